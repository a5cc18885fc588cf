package io.files2iceberg.core.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class LogFormatTest {

  @Test
  void textOnATerminalJsonOnCloudRunServicesAndJobs() {
    assertThat(LogFormat.of(Map.of("TERM", "xterm"), null)).isEqualTo("TEXT");
    assertThat(LogFormat.of(Map.of("K_SERVICE", "f2i-listener"), null)).isEqualTo("JSON");
    assertThat(LogFormat.of(Map.of("CLOUD_RUN_JOB", "f2i-batcher"), null)).isEqualTo("JSON");
  }

  @Test
  void theSettingWinsEitherWayAndThePropertyOverTheEnvironment() {
    assertThat(LogFormat.of(Map.of("K_SERVICE", "s", "FILES2ICEBERG_LOG_FORMAT", "text"), null)).isEqualTo("TEXT");
    assertThat(LogFormat.of(Map.of("FILES2ICEBERG_LOG_FORMAT", "json"), null)).isEqualTo("JSON");
    assertThat(LogFormat.of(Map.of("FILES2ICEBERG_LOG_FORMAT", "TEXT"), "JSON")).isEqualTo("JSON");
  }

  @Test
  void anUnknownSettingIsText() {
    assertThat(LogFormat.of(Map.of("K_SERVICE", "s", "FILES2ICEBERG_LOG_FORMAT", "yaml"), null)).isEqualTo("TEXT");
  }
}
