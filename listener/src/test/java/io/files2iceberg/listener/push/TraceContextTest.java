package io.files2iceberg.listener.push;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TraceContextTest {

  @Test
  void traceparentGivesTraceSpanAndSampledFlag() {
    assertThat(TraceContext.of("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", null))
        .contains(new TraceContext("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", true));
    assertThat(TraceContext.of("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", null))
        .contains(new TraceContext("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", false));
  }

  @Test
  void cloudTraceContextSpanIsDecimalAndBecomesHex() {
    assertThat(TraceContext.of(null, "4BF92F3577B34DA6A3CE929D0E0E4736/1;o=1"))
        .contains(new TraceContext("4bf92f3577b34da6a3ce929d0e0e4736", "0000000000000001", true));
    assertThat(TraceContext.of(null, "4bf92f3577b34da6a3ce929d0e0e4736/18446744073709551615"))
        .contains(new TraceContext("4bf92f3577b34da6a3ce929d0e0e4736", "ffffffffffffffff", false));
  }

  @Test
  void traceparentWinsOverCloudTraceContext() {
    assertThat(TraceContext.of("00-11111111111111111111111111111111-2222222222222222-01",
        "4bf92f3577b34da6a3ce929d0e0e4736/1;o=1")).get().extracting(TraceContext::traceId)
        .isEqualTo("11111111111111111111111111111111");
  }

  @Test
  void unreadableOrAbsentHeadersAreNoTrace() {
    assertThat(TraceContext.of(null, null)).isEmpty();
    assertThat(TraceContext.of("garbage", "not-a-trace/12")).isEmpty();
    assertThat(TraceContext.of("00-00000000000000000000000000000000-00f067aa0ba902b7-01", null)).isEmpty();
    assertThat(TraceContext.of(null, "4bf92f3577b34da6a3ce929d0e0e4736/99999999999999999999999")).isEmpty();
    // A trace without a span cannot name the span: no trace rather than half of one.
    assertThat(TraceContext.of(null, "4bf92f3577b34da6a3ce929d0e0e4736")).isEmpty();
  }
}
