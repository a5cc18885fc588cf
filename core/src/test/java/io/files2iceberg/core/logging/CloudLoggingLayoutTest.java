package io.files2iceberg.core.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CloudLoggingLayoutTest {

  @Test
  void lineIsOneJsonObjectWithSeverityMessageLoggerAndTheMdc() throws Exception {
    LoggerContext context = new LoggerContext();
    LoggingEvent event =
        new LoggingEvent(
            "fqcn",
            context.getLogger("io.files2iceberg.listener.handle.NotificationHandler"),
            Level.WARN,
            "Message {}: \"quoted\"\nand a tab\t and \u0001",
            new IllegalStateException("boom"),
            new Object[] {"m-1"});
    event.setMDCPropertyMap(Map.of("messageId", "m-1", "objectUri", "gs://b/o"));

    String line = new CloudLoggingLayout().doLayout(event);

    assertThat(line).endsWith("\n").doesNotContain("\n{");
    assertThat(line.strip()).doesNotContain("\n");
    JsonNode json = new ObjectMapper().readTree(line);
    assertThat(json.get("severity").asText()).isEqualTo("WARNING");
    assertThat(json.get("message").asText())
        .startsWith("Message m-1: \"quoted\"\nand a tab\t and \u0001")
        .contains("java.lang.IllegalStateException: boom");
    assertThat(json.get("logger").asText()).isEqualTo("io.files2iceberg.listener.handle.NotificationHandler");
    assertThat(json.get("messageId").asText()).isEqualTo("m-1");
    assertThat(json.get("objectUri").asText()).isEqualTo("gs://b/o");
    assertThat(json.get("time").asText()).endsWith("Z");
  }

  @Test
  void traceAndLabelsComeFromTheMdcUnderCloudLoggingsFieldNames() throws Exception {
    LoggerContext context = new LoggerContext();
    LoggingEvent event = new LoggingEvent("fqcn", context.getLogger("x"), Level.INFO, "committed", null, null);
    event.setMDCPropertyMap(Map.of("traceId", "4bf92f3577b34da6a3ce929d0e0e4736", "spanId", "00f067aa0ba902b7",
        "traceSampled", "false", "table", "cat.db.clicks", "partition", "2024-05-01", "batchId", "b-1"));
    CloudLoggingLayout layout = new CloudLoggingLayout();
    layout.setProject("p-1");

    JsonNode json = new ObjectMapper().readTree(layout.doLayout(event));

    assertThat(json.get("logging.googleapis.com/trace").asText())
        .isEqualTo("projects/p-1/traces/4bf92f3577b34da6a3ce929d0e0e4736");
    assertThat(json.get("logging.googleapis.com/spanId").asText()).isEqualTo("00f067aa0ba902b7");
    assertThat(json.get("logging.googleapis.com/trace_sampled").isBoolean()).isTrue();
    assertThat(json.get("logging.googleapis.com/trace_sampled").asBoolean()).isFalse();
    JsonNode labels = json.get("logging.googleapis.com/labels");
    assertThat(labels.get("table").asText()).isEqualTo("cat.db.clicks");
    assertThat(labels.get("partition").asText()).isEqualTo("2024-05-01");
    assertThat(labels.get("batch_id").asText()).isEqualTo("b-1");
    assertThat(labels.has("object_uri")).isFalse();
    assertThat(json.has("traceId")).isFalse();
    assertThat(json.get("batchId").asText()).isEqualTo("b-1");
  }

  @Test
  void withoutAProjectTheTraceIsTheBareTraceId() throws Exception {
    LoggerContext context = new LoggerContext();
    LoggingEvent event = new LoggingEvent("fqcn", context.getLogger("x"), Level.INFO, "m", null, null);
    event.setMDCPropertyMap(Map.of("traceId", "4bf92f3577b34da6a3ce929d0e0e4736", "spanId", "00f067aa0ba902b7",
        "traceSampled", "true"));
    CloudLoggingLayout layout = new CloudLoggingLayout();
    layout.setProject("");

    JsonNode json = new ObjectMapper().readTree(layout.doLayout(event));

    assertThat(json.get("logging.googleapis.com/trace").asText()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
    assertThat(json.has("logging.googleapis.com/labels")).isFalse();
  }

  @Test
  void levelsMapToCloudLoggingSeverities() {
    assertThat(CloudLoggingLayout.severity(Level.ERROR)).isEqualTo("ERROR");
    assertThat(CloudLoggingLayout.severity(Level.WARN)).isEqualTo("WARNING");
    assertThat(CloudLoggingLayout.severity(Level.INFO)).isEqualTo("INFO");
    assertThat(CloudLoggingLayout.severity(Level.DEBUG)).isEqualTo("DEBUG");
    assertThat(CloudLoggingLayout.severity(Level.TRACE)).isEqualTo("DEBUG");
  }
}
