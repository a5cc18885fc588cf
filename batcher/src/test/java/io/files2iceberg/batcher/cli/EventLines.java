package io.files2iceberg.batcher.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;

/** What a command printed on stdout with {@code --json}: one event per line, and nothing else. */
public final class EventLines {
  private static final ObjectMapper JSON = new ObjectMapper();

  private EventLines() {}

  /** Every line of stdout as a JSON object with its {@code event}; any other line fails the test. */
  public static List<JsonNode> parse(String stdout) {
    List<JsonNode> events = new ArrayList<>();
    for (String line : stdout.lines().toList()) {
      JsonNode event;
      try {
        event = JSON.readTree(line);
      } catch (JsonProcessingException e) {
        throw new AssertionError("stdout has a line that is not JSON: " + line + "\n" + stdout, e);
      }
      assertThat(event.isObject()).as(line).isTrue();
      assertThat(event.path("event").isTextual()).as(line).isTrue();
      events.add(event);
    }
    return events;
  }

  /** The events' kinds in order. */
  public static List<String> kinds(List<JsonNode> events) {
    return events.stream().map(event -> event.get("event").asText()).toList();
  }

  /** The events of one kind, in order. */
  public static List<JsonNode> of(String kind, List<JsonNode> events) {
    return events.stream().filter(event -> event.get("event").asText().equals(kind)).toList();
  }
}
