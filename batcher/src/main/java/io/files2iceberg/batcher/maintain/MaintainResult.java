package io.files2iceberg.batcher.maintain;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.engine.launch.MainRuns;
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

  /** The result in a line of the main's output, if it is one. */
  public static Optional<MaintainResult> fromLine(String line) {
    return MainRuns.lastResult(line, KEY).map(MaintainResult::new);
  }

  /** The last result line of the text, if any. */
  public static Optional<MaintainResult> lastIn(String text) {
    return MainRuns.lastResult(text, KEY).map(MaintainResult::new);
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
