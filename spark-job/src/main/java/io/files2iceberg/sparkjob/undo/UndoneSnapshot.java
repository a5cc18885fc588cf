package io.files2iceberg.sparkjob.undo;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.sparkjob.change.ChangeSummary;
import io.files2iceberg.sparkjob.load.CommitMarker;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Snapshot;

/**
 * A snapshot a rollback undoes, as its summary describes it.
 *
 * @param operation Iceberg's ({@code append}, {@code overwrite}, {@code delete}, {@code replace})
 * @param batchId {@code files2iceberg.batch-id}: the batch it committed, if a batch did
 * @param change {@code files2iceberg.change} ({@code drop-partition}) and {@code changeId}, for an operator's change
 * @param partitions the partitions it lists ({@link ChangeSummary#listedPartitions}); empty when it
 *     lists none (committed before batches listed them, or not by files2iceberg)
 * @param partitionsCount {@code files2iceberg.partitions.count}, if given: more than listed when truncated
 */
record UndoneSnapshot(long snapshotId, Instant committedAt, String operation, Optional<String> batchId,
    Optional<String> change, Optional<String> changeId, Optional<List<String>> partitions,
    Optional<Integer> partitionsCount) {

  static UndoneSnapshot of(Snapshot snapshot) {
    Map<String, String> summary = snapshot.summary() == null ? Map.of() : snapshot.summary();
    return new UndoneSnapshot(snapshot.snapshotId(), Instant.ofEpochMilli(snapshot.timestampMillis()),
        String.valueOf(snapshot.operation()), Optional.ofNullable(summary.get(CommitMarker.BATCH_ID)),
        Optional.ofNullable(summary.get(ChangeSummary.CHANGE)), Optional.ofNullable(summary.get(ChangeSummary.CHANGE_ID)),
        ChangeSummary.listedPartitions(summary),
        Optional.ofNullable(summary.get(ChangeSummary.PARTITIONS_COUNT)).map(Integer::valueOf));
  }

  /** Whether files2iceberg committed it: a batch, or an operator's change. */
  boolean isFiles2icebergCommit() {
    return batchId.isPresent() || change.isPresent();
  }

  void describe(ObjectNode node) {
    node.put("snapshotId", snapshotId);
    node.put("committedAt", committedAt.toString());
    node.put("operation", operation);
    node.put("files2iceberg", isFiles2icebergCommit());
    node.put("batchId", batchId.orElse(null));
    node.put("change", change.orElse(null));
    node.put("changeId", changeId.orElse(null));
    if (partitions.isPresent()) {
      ArrayNode listed = node.putArray("partitions");
      partitions.get().forEach(listed::add);
    } else {
      node.putNull("partitions");
    }
    if (partitionsCount.isPresent()) {
      node.put("partitionsCount", partitionsCount.get());
    } else {
      node.putNull("partitionsCount");
    }
  }
}
