package io.files2iceberg.sparkjob.load;

import java.util.Optional;

/**
 * Fact: the batch's bad records are in the rejected-rows table (or there were none).
 *
 * @param table the {@code <table>__rejected} table, when there were bad records
 * @param snapshotId the snapshot that holds them
 * @param alreadyWritten an earlier run of the same batch wrote them; nothing was written now
 */
public record RejectsWritten(Optional<String> table, long rows, Optional<Long> snapshotId, boolean alreadyWritten) {

  static RejectsWritten none() {
    return new RejectsWritten(Optional.empty(), 0, Optional.empty(), false);
  }
}
