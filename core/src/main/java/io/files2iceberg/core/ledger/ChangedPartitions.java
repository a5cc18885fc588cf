package io.files2iceberg.core.ledger;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * The partitions a change touched, as the change feed, the snapshot summary and the change events
 * name them: sorted, each once, at most {@link #LISTED} listed, with their count and whether the
 * list was cut. A snapshot summary lives in every metadata file of the table, so it is bounded.
 *
 * @param listed the first partitions, sorted
 * @param count how many there are, listed or not
 */
public record ChangedPartitions(List<String> listed, int count) {
  /** Partitions listed at most. */
  public static final int LISTED = 100;

  public ChangedPartitions {
    listed = List.copyOf(listed);
  }

  public static ChangedPartitions of(Collection<String> partitions) {
    return of(partitions, LISTED);
  }

  /** {@link #of(Collection)} with another limit, so that a test need not write 101 partitions. */
  public static ChangedPartitions of(Collection<String> partitions, int limit) {
    List<String> sorted = new ArrayList<>(new TreeSet<>(partitions));
    return new ChangedPartitions(sorted.subList(0, Math.min(sorted.size(), limit)), sorted.size());
  }

  /** Whether {@link #listed} holds only the first of them. */
  public boolean truncated() {
    return listed.size() < count;
  }
}
