package io.files2iceberg.core.metrics;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;

/**
 * One meter as scraped from {@code /prometheus} and as docs/reference/metrics.md lists it: the
 * listener's and the batcher's meter lists are made of these.
 *
 * @param prometheusName the name as scraped (a counter with its {@code _total}, a timer with its
 *     {@code _seconds})
 * @param type gauge, counter or histogram
 * @param labels its labels, in the order the page lists them
 * @param meaning what it counts or measures, for the page and the meter's description
 */
public record MeterDescription(String prometheusName, String type, List<String> labels, String meaning) {
  public MeterDescription {
    labels = List.copyOf(labels);
  }

  /**
   * A histogram's bucket bounds in seconds, as its meaning lists them: {@code 0.005, 0.5, 1, 30}.
   */
  public static String seconds(List<Duration> bounds) {
    StringBuilder list = new StringBuilder();
    for (Duration bound : bounds) {
      list.append(list.isEmpty() ? "" : ", ")
          .append(BigDecimal.valueOf(bound.toMillis(), 3).stripTrailingZeros().toPlainString());
    }
    return list.toString();
  }

  /** Micrometer's dotted name, without the unit and {@code _total} the Prometheus registry adds. */
  public String micrometerName() {
    return prometheusName.replaceFirst("_(total|seconds)$", "").replace('_', '.');
  }
}
