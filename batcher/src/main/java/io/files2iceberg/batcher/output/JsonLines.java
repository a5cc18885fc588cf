package io.files2iceberg.batcher.output;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The one writer of every {@code --json} output (docs/reference/json-output.md): JSON lines, one
 * compact object per line, each naming what it is in {@value #KIND} (a record, a result, a
 * command's summary) or {@value #EVENT} (something that happened, in {@code batch run-once},
 * {@code local} and {@code demo}); a command with a summary prints it last.
 *
 * <p>Iceberg snapshot ids are random 64-bit numbers, mostly above 2^53, which jq 1.6 and
 * JavaScript round as JSON numbers: every id field ({@link #ID_FIELDS}, and the elements of {@link
 * #ID_ARRAYS}) is written as a string, wherever in the object it is, whoever built the object
 * (the job's metrics line and maintenance result are nested as the job wrote them).
 */
public final class JsonLines {
  /** The field that names a record's kind. */
  public static final String KIND = "kind";
  /** The field that names an event's kind. */
  public static final String EVENT = "event";
  /** Fields that hold a 64-bit id: always strings. */
  static final Set<String> ID_FIELDS = Set.of("snapshotId", "parentSnapshotId", "fromSnapshot", "toSnapshot",
      "targetSnapshot", "tableSnapshot");
  /** Arrays of 64-bit ids: their elements are strings. */
  static final Set<String> ID_ARRAYS = Set.of("expiredSnapshots");

  private static final ObjectMapper JSON = new ObjectMapper();

  private JsonLines() {}

  /** A new record: {@code {"kind": kind}}. */
  public static ObjectNode record(String kind) {
    return JSON.createObjectNode().put(KIND, kind);
  }

  /** A new event: {@code {"event": kind}}. */
  public static ObjectNode event(String kind) {
    return JSON.createObjectNode().put(EVENT, kind);
  }

  /** A new object without a kind, to nest in a record. */
  public static ObjectNode object() {
    return JSON.createObjectNode();
  }

  /** A JSON text another record's own codec wrote, to nest in the output. */
  public static JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot read JSON", e);
    }
  }

  /** A value as a tree (a record's own Jackson form), to nest or to print. */
  public static JsonNode tree(Object value) {
    return JSON.valueToTree(value);
  }

  /** The object on one line, ids as strings, without the newline. */
  public static String line(ObjectNode node) {
    if (!node.has(KIND) && !node.has(EVENT)) {
      throw new IllegalArgumentException("A JSON line names its kind in \"kind\" or \"event\": " + node);
    }
    try {
      return JSON.writeValueAsString(idsAsText(node.deepCopy()));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write JSON", e);
    }
  }

  /** The objects, each on its line, each line ending with a newline. */
  public static String lines(List<ObjectNode> nodes) {
    StringBuilder out = new StringBuilder();
    nodes.forEach(node -> out.append(line(node)).append('\n'));
    return out.toString();
  }

  /** Prints the object on its own line, whole even when tables report from several threads. */
  public static void print(PrintWriter out, ObjectNode node) {
    String line = line(node);
    synchronized (out) {
      out.println(line);
      out.flush();
    }
  }

  /** Prints the objects, a line each. */
  public static void print(PrintWriter out, List<ObjectNode> nodes) {
    synchronized (out) {
      nodes.forEach(node -> out.println(line(node)));
      out.flush();
    }
  }

  private static JsonNode idsAsText(JsonNode node) {
    if (node instanceof ObjectNode object) {
      Iterator<Map.Entry<String, JsonNode>> fields = object.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> field = fields.next();
        JsonNode value = field.getValue();
        if (ID_FIELDS.contains(field.getKey()) && value.isIntegralNumber()) {
          field.setValue(object.textNode(value.asText()));
        } else if (ID_ARRAYS.contains(field.getKey()) && value instanceof ArrayNode ids) {
          for (int i = 0; i < ids.size(); i++) {
            if (ids.get(i).isIntegralNumber()) {
              ids.set(i, ids.textNode(ids.get(i).asText()));
            }
          }
        } else {
          idsAsText(value);
        }
      }
    } else if (node instanceof ArrayNode array) {
      array.forEach(JsonLines::idsAsText);
    }
    return node;
  }
}
