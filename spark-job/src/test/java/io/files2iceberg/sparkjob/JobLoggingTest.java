package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.util.Map;
import java.util.Properties;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.impl.Log4jLogEvent;
import org.apache.logging.log4j.core.layout.PatternLayout;
import org.apache.logging.log4j.message.SimpleMessage;
import org.apache.logging.log4j.util.SortedArrayStringMap;
import org.junit.jupiter.api.Test;

/** The driver's JSON log lines ({@value JobLogging#JSON_CONFIG}), and when the job writes them. */
class JobLoggingTest {
  private final ObjectMapper mapper = new ObjectMapper();

  @Test
  void aLineIsOneJsonObjectWithSeverityMessageTimeAndTheBatchAsLabels() throws Exception {
    SortedArrayStringMap mdc = new SortedArrayStringMap();
    mdc.putValue("table", "lake.web.clicks");
    mdc.putValue("batchId", "20261130T120000-1a2b3c4d");
    LogEvent event = event(Level.WARN, "Table \"lake.web.clicks\":\nmerged", new IllegalStateException("boom"), mdc);

    JsonNode line = mapper.readTree(layout().toSerializable(event));

    assertThat(line.get("severity").asText()).isEqualTo("WARNING");
    assertThat(line.get("message").asText()).startsWith("Table \"lake.web.clicks\":\nmerged")
        .contains("java.lang.IllegalStateException: boom");
    assertThat(line.get("time").asText()).isEqualTo("2026-11-30T12:00:00.123Z");
    assertThat(line.get("logger").asText()).isEqualTo("io.files2iceberg.sparkjob.BatchJob");
    assertThat(line.get("thread").asText()).isEqualTo("main");
    assertThat(line.at("/logging.googleapis.com~1labels/table").asText()).isEqualTo("lake.web.clicks");
    assertThat(line.at("/logging.googleapis.com~1labels/batch_id").asText()).isEqualTo("20261130T120000-1a2b3c4d");
  }

  @Test
  void aLineBeforeTheManifestHasNoLabels() throws Exception {
    String text = layout().toSerializable(event(Level.INFO, "starting", null, new SortedArrayStringMap()));

    assertThat(text).endsWith("\n").doesNotContain("\n{");
    JsonNode line = mapper.readTree(text);
    assertThat(line.get("severity").asText()).isEqualTo("INFO");
    assertThat(line.get("message").asText()).isEqualTo("starting");
    assertThat(line.has("logging.googleapis.com/labels")).isFalse();
  }

  @Test
  void jsonOnlyWhenTheSparkPropertyOrTheEnvironmentAsksForIt() {
    assertThat(JobLogging.isJson(Map.of(), "JSON")).isTrue();
    assertThat(JobLogging.isJson(Map.of("FILES2ICEBERG_LOG_FORMAT", "json"), null)).isTrue();
    assertThat(JobLogging.isJson(Map.of("FILES2ICEBERG_LOG_FORMAT", "JSON"), "TEXT")).isFalse();
    assertThat(JobLogging.isJson(Map.of(), null)).isFalse();
    // A Cloud Run variable means nothing to the job: only the launcher's setting does.
    assertThat(JobLogging.isJson(Map.of("K_SERVICE", "s"), null)).isFalse();
  }

  private static LogEvent event(Level level, String message, Throwable thrown, SortedArrayStringMap mdc) {
    return Log4jLogEvent.newBuilder()
        .setLoggerName("io.files2iceberg.sparkjob.BatchJob")
        .setLevel(level)
        .setMessage(new SimpleMessage(message))
        .setThrown(thrown)
        .setThreadName("main")
        .setTimeMillis(java.time.Instant.parse("2026-11-30T12:00:00.123Z").toEpochMilli())
        .setContextData(mdc)
        .build();
  }

  /** The layout the JSON configuration declares, built from the resource itself. */
  private static PatternLayout layout() throws Exception {
    Properties config = new Properties();
    try (InputStream in = JobLoggingTest.class.getClassLoader().getResourceAsStream(JobLogging.JSON_CONFIG)) {
      assertThat(in).as(JobLogging.JSON_CONFIG).isNotNull();
      config.load(in);
    }
    assertThat(config.getProperty("appender.json.layout.type")).isEqualTo("PatternLayout");
    return PatternLayout.newBuilder()
        .withPattern(config.getProperty("appender.json.layout.pattern"))
        .withAlwaysWriteExceptions(Boolean.parseBoolean(config.getProperty("appender.json.layout.alwaysWriteExceptions")))
        .build();
  }
}
