package io.files2iceberg.core.ledger.rules;

import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.CleanedObject;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.IllegalTransitionException;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.ledger.States;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What each ledger call does to a file, decided once for every store: the stored record in, the
 * record to write out (empty when nothing changes). A file's position in its batch is the store's
 * (the batch's list holds the order).
 */
public final class FileRules {
  private FileRules() {}

  /** A new file: RECORDED. */
  public static FileRecord recorded(RecordFile command, Instant now) {
    return new FileRecord(command.fileId(), command.table(), command.partition(), command.bucket(), command.name(),
        command.generation(), command.uri(), command.size(), command.eventId(), command.eventTime(),
        command.overwroteGeneration(), FileState.RECORDED, Optional.empty(), Optional.empty(), now);
  }

  /** A RECORDED file taken into a batch. */
  public static FileRecord claimed(FileRecord file, String batchId) {
    States.requireTransition("Cannot claim file " + file.fileId() + " (" + file.uri() + ")", file.state(),
        FileState.CLAIMED, FileState::next);
    return with(file, FileState.CLAIMED, Optional.of(batchId), file.quarantineReason());
  }

  /**
   * Its batch committed: CLAIMED by it becomes INGESTED, with the batch's snapshot and what the
   * job counted of its rows (empty: unknown). Empty for a file the batch no longer holds:
   * QUARANTINED, SUPERSEDED or IGNORED while in flight, they stay so.
   */
  public static Optional<FileRecord> afterCommit(FileRecord file, String batchId, long snapshotId,
      Optional<FileRows> rows, Instant now) {
    if (!isClaimedBy(file, batchId)) {
      return Optional.empty();
    }
    FileRecord f = file;
    return Optional.of(new FileRecord(f.fileId(), f.table(), f.partition(), f.bucket(), f.name(), f.generation(),
        f.uri(), f.size(), f.eventId(), f.eventTime(), f.overwroteGeneration(), FileState.INGESTED, f.batchId(),
        f.quarantineReason(), f.recordedAt(), Optional.of(snapshotId), rows, Optional.of(now), f.cleaned()));
  }

  /**
   * One file's move while a store writes a batch's transition over several commits (after the one
   * that decided it) to {@code target}: CLAIMED (a claim or revival: a RECORDED file, claimed by
   * this batch's own claim, which holds its partition), INGESTED (a commit, with the batch's
   * {@code snapshotId} and the file's counts from {@code rows} by file id, none there: unknown) or
   * RECORDED (a failure). Empty when the file is not the batch's to move: moved already (a settling that
   * resumes), or left out while the batch was in flight (QUARANTINED, SUPERSEDED, IGNORED, or
   * released from the quarantine: RECORDED without a batch).
   */
  public static Optional<FileRecord> settled(FileRecord file, FileState target, String batchId,
      Optional<Long> snapshotId, Map<String, FileRows> rows, Instant now) {
    return switch (target) {
      case CLAIMED -> file.state() == FileState.RECORDED ? Optional.of(claimed(file, batchId)) : Optional.empty();
      case INGESTED -> afterCommit(file, batchId, snapshotId.orElseThrow(() -> new IllegalStateException(
          "Batch " + batchId + " settles its files as committed but has no snapshot id")),
          Optional.ofNullable(rows.get(file.fileId())), now);
      case RECORDED -> afterFailure(file, batchId);
      default -> throw new IllegalArgumentException("Batch " + batchId + " cannot settle its files to " + target);
    };
  }

  /** {@link #afterCommit} of each file, its counts from {@code rows} by file id: those that change. */
  public static List<FileRecord> afterCommit(List<FileRecord> files, String batchId, long snapshotId,
      Map<String, FileRows> rows, Instant now) {
    return files.stream()
        .flatMap(file -> afterCommit(file, batchId, snapshotId, Optional.ofNullable(rows.get(file.fileId())), now)
            .stream())
        .toList();
  }

  /** {@link #afterFailure} of each file: those that change. */
  public static List<FileRecord> afterFailure(List<FileRecord> files, String batchId) {
    return files.stream().flatMap(file -> afterFailure(file, batchId).stream()).toList();
  }

  /** Its batch failed: CLAIMED by it becomes RECORDED and forgets the batch; others stay. */
  public static Optional<FileRecord> afterFailure(FileRecord file, String batchId) {
    return isClaimedBy(file, batchId)
        ? Optional.of(with(file, FileState.RECORDED, Optional.empty(), file.quarantineReason())) : Optional.empty();
  }

  /**
   * {@code replay --force}, or a rollback that undid its batch: INGESTED or DROPPED becomes RECORDED
   * and forgets its batch (and a drop's reason); others stay. An ARCHIVED file keeps its {@link
   * FileRecord#cleaned}, so its next batch reads the archive. A file whose object landing cleanup
   * deleted becomes SUPERSEDED instead ({@link #deletedByCleanup}): nothing could read it again, and
   * a batch that claimed it would only find it gone. The commands refuse such a reload unless the
   * operator said that losing its rows is intended; this rule is what the ledger records then.
   */
  public static Optional<FileRecord> reopened(FileRecord file) {
    if (lostOnReopen(file)) {
      return Optional.of(with(file, FileState.SUPERSEDED, Optional.empty(),
          Optional.of(deletedByCleanup(file.cleaned().orElseThrow()))));
    }
    return switch (file.state()) {
      case INGESTED -> Optional.of(with(file, FileState.RECORDED, Optional.empty(), file.quarantineReason()));
      case DROPPED -> Optional.of(with(file, FileState.RECORDED, Optional.empty(), Optional.empty()));
      default -> Optional.empty();
    };
  }

  /**
   * Whether {@link #reopened} makes the file SUPERSEDED rather than RECORDED: it is INGESTED or
   * DROPPED (a reload would read it) and landing cleanup deleted its object. What the commands
   * refuse without {@code --allow-missing}, so that their check and this rule never disagree.
   */
  public static boolean lostOnReopen(FileRecord file) {
    return (file.state() == FileState.INGESTED || file.state() == FileState.DROPPED)
        && file.cleaned().filter(c -> c.action() == CleanedObject.Action.DELETED).isPresent();
  }

  /** Why a reopened file whose object cleanup deleted is SUPERSEDED. */
  public static String deletedByCleanup(CleanedObject deleted) {
    return "its object was deleted from the landing by cleanup at " + deleted.cleanedAt()
        + "; its rows were not reloaded";
  }

  /**
   * {@code drop-partition}: INGESTED becomes DROPPED with the reason, keeping its batch and load (a
   * rollback of the drop makes it INGESTED again); others stay.
   */
  public static Optional<FileRecord> dropped(FileRecord file, String reason) {
    return file.state() == FileState.INGESTED
        ? Optional.of(with(file, FileState.DROPPED, file.batchId(), Optional.of(reason))) : Optional.empty();
  }

  /** A rollback undid the drop but not the file's batch: DROPPED is INGESTED again, its reason cleared. */
  public static Optional<FileRecord> undropped(FileRecord file) {
    return file.state() == FileState.DROPPED
        ? Optional.of(with(file, FileState.INGESTED, file.batchId(), Optional.empty())) : Optional.empty();
  }

  /**
   * A revived batch's file: RECORDED becomes CLAIMED by it again; QUARANTINED, SUPERSEDED or
   * IGNORED stay (empty).
   *
   * @throws io.files2iceberg.core.ledger.IllegalTransitionException naming the file otherwise
   */
  public static Optional<FileRecord> revived(FileRecord file, String batchId, String action) {
    return States.requireRevivable(action, file.fileId(), file.uri(), file.state())
        ? Optional.of(with(file, FileState.CLAIMED, Optional.of(batchId), file.quarantineReason()))
        : Optional.empty();
  }

  /** A file written at its position in its batch's list. */
  public record Placed(FileRecord file, int position) {}

  /**
   * {@link io.files2iceberg.core.ledger.Ledger#reviveBatch}'s files: each RECORDED one of the
   * batch's list claimed by it again at its position; every file checked before any is written.
   *
   * @param stored the batch's files as stored, in any order
   * @throws IllegalStateException naming a file of the batch's list that is not stored
   */
  public static List<Placed> revived(BatchRecord batch, Collection<FileRecord> stored, String action) {
    Map<String, FileRecord> byId = new HashMap<>();
    stored.forEach(file -> byId.put(file.fileId(), file));
    List<Placed> claimed = new ArrayList<>();
    for (int position = 0; position < batch.fileIds().size(); position++) {
      String fileId = batch.fileIds().get(position);
      FileRecord file = byId.get(fileId);
      if (file == null) {
        throw new IllegalStateException(action + ": its file " + fileId + " is missing from the ledger");
      }
      Optional<FileRecord> again = revived(file, batch.batchId(), action);
      if (again.isPresent()) {
        claimed.add(new Placed(again.get(), position));
      }
    }
    return claimed;
  }

  /** RECORDED or CLAIMED becomes QUARANTINED with the reason. */
  public static FileRecord quarantined(FileRecord file, String reason) {
    States.requireTransition("Cannot quarantine file " + file.fileId() + " (" + file.uri() + ")", file.state(),
        FileState.QUARANTINED, FileState::next);
    return with(file, FileState.QUARANTINED, file.batchId(), Optional.of(reason));
  }

  /**
   * SUPERSEDED or IGNORED with the reason (kept as the quarantine reason: why the file is left
   * out); empty when it is in that state already (the first reason stays).
   *
   * @param action e.g. {@code Cannot supersede file }, completed with the file's id and URI
   */
  public static Optional<FileRecord> leftOut(FileRecord file, FileState target, String reason, String action) {
    return States.requireLeftOut(action + file.fileId() + " (" + file.uri() + ")", file.state(), target)
        ? Optional.of(with(file, target, file.batchId(), Optional.of(reason))) : Optional.empty();
  }

  /** {@code quarantine release}: QUARANTINED becomes RECORDED, its reason and batch cleared. */
  public static FileRecord released(FileRecord file) {
    States.requireOneOf("Cannot release file " + file.fileId() + " (" + file.uri() + ") from the quarantine",
        file.state(), EnumSet.of(FileState.QUARANTINED));
    return with(file, FileState.RECORDED, Optional.empty(), Optional.empty());
  }

  /**
   * Landing cleanup decides on an INGESTED file with a load time whose object is where it landed:
   * it records {@code cleaned}. Empty when the file was cleaned the same way already (a run that
   * resumes).
   *
   * @throws IllegalTransitionException naming the file otherwise
   */
  public static Optional<FileRecord> cleaned(FileRecord file, CleanedObject cleaned, String action) {
    String what = action + ": file " + file.fileId() + " (" + file.uri() + ")";
    if (file.cleaned().isPresent()) {
      CleanedObject stored = file.cleaned().get();
      if (stored.action() == cleaned.action() && stored.archiveUri().equals(cleaned.archiveUri())) {
        return Optional.empty();
      }
      throw new IllegalTransitionException(what + " was " + stored.action().code() + " already"
          + stored.archiveUri().map(uri -> " (to " + uri + ")").orElse(""));
    }
    States.requireOneOf(what, file.state(), EnumSet.of(FileState.INGESTED));
    if (file.ingestedAt().isEmpty()) {
      throw new IllegalTransitionException(what + " has no load time (loaded before the ledger recorded one)");
    }
    return Optional.of(file.withCleaned(Optional.of(cleaned)));
  }

  /**
   * Landing cleanup removed a cleaned file's object at {@code now}. Empty when that is recorded
   * already.
   *
   * @throws IllegalStateException naming the file when it was never cleaned
   */
  public static Optional<FileRecord> removed(FileRecord file, Instant now, String action) {
    CleanedObject cleaned = file.cleaned().orElseThrow(() -> new IllegalStateException(action + ": file "
        + file.fileId() + " (" + file.uri() + ") was never cleaned"));
    return cleaned.removedAt().isPresent() ? Optional.empty()
        : Optional.of(file.withCleaned(Optional.of(cleaned.removed(now))));
  }

  public static boolean isClaimedBy(FileRecord file, String batchId) {
    return file.state() == FileState.CLAIMED && file.batchId().equals(Optional.of(batchId));
  }

  /** A file that forgets its batch forgets that batch's load (snapshot and counts) with it. */
  private static FileRecord with(FileRecord f, FileState state, Optional<String> batchId, Optional<String> reason) {
    boolean sameLoad = batchId.isPresent() && batchId.equals(f.batchId());
    return new FileRecord(f.fileId(), f.table(), f.partition(), f.bucket(), f.name(), f.generation(), f.uri(),
        f.size(), f.eventId(), f.eventTime(), f.overwroteGeneration(), state, batchId, reason, f.recordedAt(),
        sameLoad ? f.snapshotId() : Optional.empty(), sameLoad ? f.rows() : Optional.empty(),
        sameLoad ? f.ingestedAt() : Optional.empty(), f.cleaned());
  }
}
