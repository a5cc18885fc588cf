package io.files2iceberg.batcher.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * What {@code batch run-once}, {@code local} or {@code demo} printed on stdout with {@code --json}:
 * one event per line, each valid against its schema ({@link JsonLinesOutput}), and nothing else.
 */
public final class EventLines {
  private EventLines() {}

  /** Every line of stdout as a JSON object with its {@code event}; any other line fails the test. */
  public static List<JsonNode> parse(String stdout) {
    List<JsonNode> events = JsonLinesOutput.parse(stdout);
    events.forEach(event -> assertThat(event.path("event").isTextual()).as(event.toString()).isTrue());
    return events;
  }

  /** The events' kinds in order. */
  public static List<String> kinds(List<JsonNode> events) {
    return JsonLinesOutput.kinds(events);
  }

  /** The events of one kind, in order. */
  public static List<JsonNode> of(String kind, List<JsonNode> events) {
    return JsonLinesOutput.of(kind, events);
  }
}
