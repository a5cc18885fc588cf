package io.files2iceberg.sparkjob.change;

import java.time.Instant;

/** Where the change feed starts: after a snapshot the reader saw last, or after an instant. */
public sealed interface FeedStart {
  /** {@code --since-snapshot}: the changes after this snapshot became the table's current one. */
  record AfterSnapshot(long snapshotId) implements FeedStart {
    @Override
    public String toString() {
      return "snapshot " + snapshotId;
    }
  }

  /** {@code --since}: the changes made after this instant. */
  record AfterTime(Instant instant) implements FeedStart {
    @Override
    public String toString() {
      return instant.toString();
    }
  }
}
