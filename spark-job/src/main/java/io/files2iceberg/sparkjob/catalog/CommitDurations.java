package io.files2iceberg.sparkjob.catalog;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.metrics.CommitReport;
import org.apache.iceberg.metrics.MetricsReport;
import org.apache.iceberg.metrics.MetricsReporter;
import org.apache.iceberg.metrics.TimerResult;

/**
 * How long each Iceberg commit of this JVM took (including its retries), by snapshot id. The
 * catalogs {@link CatalogConf} configures report to it ({@code metrics-reporter-impl}); the job
 * looks up the duration of the snapshot it committed. Catalogs instantiate it by name, hence
 * public; nothing else needs to.
 */
public final class CommitDurations implements MetricsReporter {
  // Bounded: a job commits a handful of snapshots; a long-lived JVM (tests) many more.
  private static final int MAX_ENTRIES = 10_000;
  private static final Map<Long, Duration> BY_SNAPSHOT = new ConcurrentHashMap<>();

  public CommitDurations() {}

  @Override
  public void report(MetricsReport report) {
    if (report instanceof CommitReport commit && commit.commitMetrics() != null) {
      TimerResult total = commit.commitMetrics().totalDuration();
      if (total != null) {
        if (BY_SNAPSHOT.size() >= MAX_ENTRIES) {
          BY_SNAPSHOT.clear();
        }
        BY_SNAPSHOT.put(commit.snapshotId(), total.totalDuration());
      }
    }
  }

  /** How long the commit that produced this snapshot took, when this JVM made it. */
  public static Optional<Duration> of(long snapshotId) {
    return Optional.ofNullable(BY_SNAPSHOT.get(snapshotId));
  }
}
