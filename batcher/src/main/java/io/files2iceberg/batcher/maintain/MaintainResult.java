package io.files2iceberg.batcher.maintain;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Optional;

/**
 * The result line of {@code io.files2iceberg.sparkjob.maintain.MaintainMain}, {@code
 * {"files2iceberg-maintain":{...}}}: kept as the JSON it is (for {@code --json}) with the reads
 * the summary needs. A table the main left alone carries {@code "skipped":{"reason","detail"}}
 * instead of the maintenance fields.
 */
public record MaintainResult(JsonNode body) {
  /** Why the main left the table alone, such as {@code not created yet}, {@code no batch has loaded it}. */
  public record Skipped(String reason, String detail) {}

  static final String KEY = "files2iceberg-maintain";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The result in a line of the main's output, if it is one. */
  public static Optional<MaintainResult> fromLine(String line) {
    String trimmed = line.strip();
    if (!trimmed.startsWith("{\"" + KEY + "\"")) {
      return Optional.empty();
    }
    try {
      JsonNode body = JSON.readTree(trimmed).get(KEY);
      return body != null && body.isObject() ? Optional.of(new MaintainResult(body)) : Optional.empty();
    } catch (JsonProcessingException e) {
      return Optional.empty();
    }
  }

  /** The last result line of the text, if any. */
  public static Optional<MaintainResult> lastIn(String text) {
    Optional<MaintainResult> last = Optional.empty();
    for (String line : text.split("\\R")) {
      Optional<MaintainResult> parsed = fromLine(line);
      if (parsed.isPresent()) {
        last = parsed;
      }
    }
    return last;
  }

  public String table() {
    return body.path("table").asText();
  }

  public boolean isDryRun() {
    return body.path("dryRun").asBoolean();
  }

  /** Present when the main skipped the table (it did not exist yet): nothing was maintained. */
  public Optional<Skipped> skipped() {
    JsonNode skipped = body.path("skipped");
    return skipped.isObject()
        ? Optional.of(new Skipped(skipped.path("reason").asText(), skipped.path("detail").asText()))
        : Optional.empty();
  }
}
