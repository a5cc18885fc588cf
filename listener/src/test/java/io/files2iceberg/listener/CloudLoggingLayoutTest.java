package io.files2iceberg.listener;

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
  void levelsMapToCloudLoggingSeverities() {
    assertThat(CloudLoggingLayout.severity(Level.ERROR)).isEqualTo("ERROR");
    assertThat(CloudLoggingLayout.severity(Level.WARN)).isEqualTo("WARNING");
    assertThat(CloudLoggingLayout.severity(Level.INFO)).isEqualTo("INFO");
    assertThat(CloudLoggingLayout.severity(Level.DEBUG)).isEqualTo("DEBUG");
    assertThat(CloudLoggingLayout.severity(Level.TRACE)).isEqualTo("DEBUG");
  }
}
