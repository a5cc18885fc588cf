package io.files2iceberg.batcher.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * What a command printed on stdout with {@code --json}, checked as docs/reference/json-output.md
 * says: one compact JSON object a line and nothing else, each naming its kind in {@code kind} (a
 * record) or {@code event} (an event), each valid against its kind's schema in
 * docs/reference/json/output.schema.json.
 */
public final class JsonLinesOutput {
  /** The schema file the docs publish, from the batcher module's folder. */
  public static final Path SCHEMA = Path.of("..", "docs", "reference", "json", "output.schema.json");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Map<String, JsonSchema> SCHEMAS = new ConcurrentHashMap<>();

  private JsonLinesOutput() {}

  /** Every line of stdout as a JSON object valid against its kind's schema; anything else fails the test. */
  public static List<JsonNode> parse(String stdout) {
    List<JsonNode> objects = new ArrayList<>();
    for (String line : stdout.lines().toList()) {
      JsonNode object;
      try {
        object = JSON.readTree(line);
      } catch (JsonProcessingException e) {
        throw new AssertionError("stdout has a line that is not JSON (or an object cut over lines): " + line
            + "\n" + stdout, e);
      }
      assertThat(object.isObject()).as("not an object: " + line).isTrue();
      assertThat(object.path("kind").isTextual() != object.path("event").isTextual())
          .as("names its kind in \"kind\" or \"event\", exactly one: " + line).isTrue();
      Set<ValidationMessage> errors = schema(definition(object)).validate(object);
      assertThat(errors).as("%s against %s#/$defs/%s", line, SCHEMA, definition(object)).isEmpty();
      objects.add(object);
    }
    return objects;
  }

  /** The objects' kinds ({@code kind} or {@code event}), in order. */
  public static List<String> kinds(List<JsonNode> objects) {
    return objects.stream().map(JsonLinesOutput::kind).toList();
  }

  /** The objects of one kind, in order. */
  public static List<JsonNode> of(String kind, List<JsonNode> objects) {
    return objects.stream().filter(object -> kind(object).equals(kind)).toList();
  }

  /** The one object of that kind. */
  public static JsonNode one(String kind, List<JsonNode> objects) {
    List<JsonNode> found = of(kind, objects);
    assertThat(found).as("one %s in %s", kind, objects).hasSize(1);
    return found.get(0);
  }

  private static String kind(JsonNode object) {
    return object.has("kind") ? object.get("kind").asText() : object.get("event").asText();
  }

  /** {@code kind.<kind>} or {@code event.<event>}: the object's schema in the file's {@code $defs}. */
  static String definition(JsonNode object) {
    return (object.has("kind") ? "kind." : "event.") + kind(object);
  }

  private static JsonSchema schema(String definition) {
    return SCHEMAS.computeIfAbsent(definition, name -> {
      try {
        ObjectNode root = (ObjectNode) JSON.readTree(Files.readString(SCHEMA));
        assertThat(root.path("$defs").has(name)).as("%s has no $defs/%s", SCHEMA, name).isTrue();
        root.put("$ref", "#/$defs/" + name);
        return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(root);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
  }

  /**
   * The real {@code jq} over {@code input}: its stdout. Fails (never skips) where jq is missing,
   * saying how to install it; {@code .ci/run} installs it.
   */
  public static String jq(String input, String... arguments) {
    List<String> command = new ArrayList<>(List.of("jq"));
    command.addAll(List.of(arguments));
    Process process;
    try {
      process = new ProcessBuilder(command).redirectErrorStream(false).start();
    } catch (IOException e) {
      throw new AssertionError("jq is not installed, and the --json tests read every command's output with it:"
          + " install it (Debian/Ubuntu: apt-get install jq; macOS: brew install jq)", e);
    }
    try {
      CompletableFuture<byte[]> stdout = CompletableFuture.supplyAsync(() -> read(process, true));
      CompletableFuture<byte[]> stderr = CompletableFuture.supplyAsync(() -> read(process, false));
      try (OutputStream in = process.getOutputStream()) {
        in.write(input.getBytes(StandardCharsets.UTF_8));
      }
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("jq ends").isTrue();
      String out = new String(stdout.join(), StandardCharsets.UTF_8);
      String err = new String(stderr.join(), StandardCharsets.UTF_8);
      assertThat(process.exitValue()).as("jq %s on\n%s\nstderr: %s", command, input, err).isZero();
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while jq ran", e);
    }
  }

  private static byte[] read(Process process, boolean stdout) {
    try {
      return (stdout ? process.getInputStream() : process.getErrorStream()).readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
