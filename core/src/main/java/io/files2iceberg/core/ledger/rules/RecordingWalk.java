package io.files2iceberg.core.ledger.rules;

import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileRecorded;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.RecordFile;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Recording files ({@link io.files2iceberg.core.ledger.Ledger#recordFile} and {@code recordFiles}),
 * a walk over the commands in order, each seeing what the ones before it did: a file already
 * stored (or recorded earlier in the walk) changes nothing and is reported with its partition as
 * it stands; a new one is RECORDED ({@link FileRules#recorded}) and its partition moves as {@link
 * PartitionRules#onFileRecorded} says. So recording a list in one commit has the outcome of
 * recording its files one call each, in that order.
 */
public final class RecordingWalk {
  private RecordingWalk() {}

  /**
   * What the store writes and what each call returns.
   *
   * @param created the new files, in command order
   * @param partitions the partitions the walk changed, each as it is at the end, in the order first
   *     changed
   * @param recorded what each command's call returns, in command order
   */
  public record Plan(List<FileRecord> created, List<PartitionRecord> partitions, List<FileRecorded> recorded) {
    public Plan {
      created = List.copyOf(created);
      partitions = List.copyOf(partitions);
      recorded = List.copyOf(recorded);
    }
  }

  /**
   * @param commands the files to record, in order
   * @param stored the files of these commands the store holds, by file id (absent: not stored)
   * @param partitions the stored partitions of the commands and of the stored files, by {@link
   *     LedgerSchema#partitionId} (absent: not stored)
   * @throws IllegalStateException when a stored file's partition is not stored
   */
  public static Plan plan(List<RecordFile> commands, Map<String, FileRecord> stored,
      Map<String, PartitionRecord> partitions, Instant now) {
    Map<String, FileRecord> files = new HashMap<>(stored);
    Map<String, PartitionRecord> current = new HashMap<>(partitions);
    Map<String, PartitionRecord> changed = new LinkedHashMap<>();
    List<FileRecord> created = new ArrayList<>();
    List<FileRecorded> recorded = new ArrayList<>(commands.size());
    for (RecordFile command : commands) {
      FileRecord known = files.get(command.fileId());
      if (known != null) {
        // A redelivery (or a replay, or a file listed twice): the file and its partition stay.
        String id = LedgerSchema.partitionId(known.table(), known.partition());
        PartitionRecord partition = Optional.ofNullable(current.get(id)).orElseThrow(() -> new IllegalStateException(
            "Partition " + known.table() + "/" + known.partition() + " is missing from the ledger"));
        recorded.add(new FileRecorded(false, known, partition));
        continue;
      }
      String id = LedgerSchema.partitionId(command.table(), command.partition());
      Optional<PartitionRecord> moved = PartitionRules.onFileRecorded(Optional.ofNullable(current.get(id)), command, now);
      if (moved.isPresent()) {
        current.put(id, moved.get());
        changed.put(id, moved.get());
      }
      FileRecord file = FileRules.recorded(command, now);
      files.put(file.fileId(), file);
      created.add(file);
      recorded.add(new FileRecorded(true, file, current.get(id)));
    }
    return new Plan(created, new ArrayList<>(changed.values()), recorded);
  }
}
