package io.files2iceberg.batcher.history;

import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The load history of one table since a time: a {@link FileLoad} per file of each batch that
 * committed or failed since then, and per file quarantined outside a batch, newest first.
 *
 * <p>It reads the batches, not the files: the ledger has no index on a file time (the files
 * collection is the hot one, and an index on a time that only grows takes every write at one
 * end), while the batches settled since a time are one indexed query ({@link
 * Ledger#batchesSettledSince}), and their files are read by id. So a history reaches back as far
 * as the ledger keeps committed batches (they are pruned to the newest few per table); files of
 * pruned batches are not listed, though {@code inspect --file} still shows each one's load.
 */
public final class LoadHistory {
  private LoadHistory() {}

  /** The history read from the ledger. */
  public static List<FileLoad> read(Ledger ledger, String table, Instant since) {
    List<BatchRecord> batches = ledger.batchesSettledSince(table, since);
    List<FileLoad> loads = new ArrayList<>();
    for (BatchRecord batch : batches) {
      loads.addAll(of(batch, ledger.filesOfBatch(batch.batchId())));
    }
    loads.addAll(quarantinedOutsideBatches(ledger.quarantinedFiles(), table, since, loads));
    return newestFirst(loads);
  }

  /** What one COMMITTED or FAILED batch did with each of its files. */
  static List<FileLoad> of(BatchRecord batch, List<FileRecord> files) {
    boolean committed = batch.state() == BatchState.COMMITTED;
    List<FileLoad> loads = new ArrayList<>();
    for (FileRecord file : files) {
      boolean stillItsBatch = file.batchId().equals(Optional.of(batch.batchId()));
      Optional<FileLoad.Outcome> leftOut = stillItsBatch ? leftOut(file.state()) : Optional.empty();
      FileLoad.Outcome outcome = leftOut.orElse(committed ? FileLoad.Outcome.INGESTED : FileLoad.Outcome.FAILED);
      // A file's counts are those of the batch it names: a later load (a replay) has its own.
      boolean loadedHere = outcome == FileLoad.Outcome.INGESTED && stillItsBatch
          && file.state() == FileState.INGESTED;
      Optional<String> detail = leftOut.isPresent() ? file.quarantineReason()
          : committed ? Optional.empty() : batch.error().map(error -> cause(batch, file) + error);
      loads.add(new FileLoad(batch.updatedAt(), file.table(), file.partition(), file.uri(), file.generation(),
          file.fileId(), outcome, Optional.of(batch.batchId()),
          outcome == FileLoad.Outcome.INGESTED ? batch.snapshotId() : Optional.empty(),
          loadedHere ? file.rows() : Optional.empty(), detail));
    }
    return loads;
  }

  /** {@code [<error class>; this file is at fault] } before a failed batch's error, when the job classified it. */
  private static String cause(BatchRecord batch, FileRecord file) {
    return batch.cause().map(cause -> "[" + cause.errorClass() + cause.file()
        .map(at -> at.equals(file.uri()) ? "; this file is at fault" : "; file at fault: " + at).orElse("") + "] ")
        .orElse("");
  }

  private static Optional<FileLoad.Outcome> leftOut(FileState state) {
    return switch (state) {
      case QUARANTINED -> Optional.of(FileLoad.Outcome.QUARANTINED);
      case SUPERSEDED -> Optional.of(FileLoad.Outcome.SUPERSEDED);
      case IGNORED -> Optional.of(FileLoad.Outcome.IGNORED);
      default -> Optional.empty();
    };
  }

  /** Quarantined files of the table recorded since then that no listed batch holds. */
  private static List<FileLoad> quarantinedOutsideBatches(List<FileRecord> quarantined, String table, Instant since,
      List<FileLoad> listed) {
    Set<String> seen = new HashSet<>();
    listed.forEach(load -> seen.add(load.fileId()));
    return quarantined.stream()
        .filter(file -> file.table().equals(table) && !file.recordedAt().isBefore(since) && !seen.contains(file.fileId()))
        .map(file -> new FileLoad(file.recordedAt(), file.table(), file.partition(), file.uri(), file.generation(),
            file.fileId(), FileLoad.Outcome.QUARANTINED, file.batchId(), Optional.empty(), Optional.empty(),
            file.quarantineReason()))
        .toList();
  }

  private static List<FileLoad> newestFirst(List<FileLoad> loads) {
    List<FileLoad> sorted = new ArrayList<>(loads);
    sorted.sort(Comparator.comparing(FileLoad::time).reversed()
        .thenComparing(load -> load.batchId().orElse(""), Comparator.reverseOrder())
        .thenComparing(FileLoad::uri).thenComparingLong(FileLoad::generation));
    return sorted;
  }
}
