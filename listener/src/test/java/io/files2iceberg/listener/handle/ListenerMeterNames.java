package io.files2iceberg.listener.handle;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** The listener's own meter names as scraped or registered, and as {@link ListenerMeter} documents them. */
public final class ListenerMeterNames {
  private static final Pattern SAMPLE = Pattern.compile("^(files2iceberg_[a-z_]+)[{ ]", Pattern.MULTILINE);
  private static final Pattern HISTOGRAM_SERIES = Pattern.compile("(_seconds)_(bucket|count|sum|max)$");

  private ListenerMeterNames() {}

  /** The Prometheus names of the {@code files2iceberg_} samples in a scrape, a histogram's series as one name. */
  public static Set<String> scraped(String prometheusText) {
    Set<String> names = new TreeSet<>();
    Matcher sample = SAMPLE.matcher(prometheusText);
    while (sample.find()) {
      names.add(HISTOGRAM_SERIES.matcher(sample.group(1)).replaceFirst("$1"));
    }
    return names;
  }

  /** The Micrometer names of the {@code files2iceberg.} meters registered in a registry. */
  public static Set<String> registered(MeterRegistry meters) {
    return meters.getMeters().stream()
        .map(Meter::getId)
        .map(Meter.Id::getName)
        .filter(name -> name.startsWith("files2iceberg."))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** The Prometheus names docs/reference/metrics.md lists. */
  public static Set<String> documented() {
    return Arrays.stream(ListenerMeter.values())
        .map(meter -> meter.description().prometheusName())
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** The same, as Micrometer names. */
  public static Set<String> documentedMicrometerNames() {
    return Arrays.stream(ListenerMeter.values())
        .map(ListenerMeter::micrometerName)
        .collect(Collectors.toCollection(TreeSet::new));
  }
}
