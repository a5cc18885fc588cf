package io.files2iceberg.batcher.maintain;

import com.google.cloud.storage.Storage;
import io.files2iceberg.core.ledger.CleanedObject;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.IllegalTransitionException;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.LedgerUnavailableException;
import io.files2iceberg.core.profile.Load.AfterIngest;
import io.files2iceberg.core.profile.TableProfile;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code maintain}'s landing cleanup ({@code load.after-ingest}): the landed objects of a table's
 * files loaded longer ago than the retention are deleted, or moved under {@code move-to}.
 *
 * <p>The ledger is written first, the storage after, so a crash never leaves an object gone that
 * the ledger thinks is where it landed: a file's decision (DELETED, or ARCHIVED with its copy's URI
 * and generation) is committed before its object is removed, and its removal is confirmed after.
 * A run first finishes what an earlier one left between the two ({@link
 * io.files2iceberg.core.ledger.LedgerListings#filesBeingCleaned}). A move copies the object before
 * its decision, so a recorded archive always exists; a crash between the copy and the decision
 * leaves an unrecorded copy, and the next run copies again under a name of its own (see {@link
 * LandingObjects#copy}).
 *
 * <p>Every removal is pinned to the file's generation, so an object written again since it was
 * loaded stays, and still loads as the new file it is. A file whose generation is gone when it is
 * copied has nothing to archive and is recorded DELETED (counted as already gone).
 *
 * <p>Files are taken in chunks of at most {@link #CHUNK}, each one ledger commit. The ledger refuses
 * to clean a table while a rollback or a drop of it is unfinished; the table is then reported and
 * left for the next run.
 */
public final class LandingCleanup {
  private static final Logger LOG = LoggerFactory.getLogger(LandingCleanup.class);
  /** Files per ledger commit: within every store's writes per commit (Firestore's 500). */
  static final int CHUNK = 200;
  /** The files a dry run names; it counts them all. */
  static final int NAMED = 20;
  /** The most files one dry run counts. */
  static final int DRY_RUN_LIMIT = 100_000;

  /**
   * What cleanup did on one table.
   *
   * @param action the table's {@code load.after-ingest.action} code
   * @param ingestedBefore the cutoff: files loaded before it were cleaned
   * @param deleted objects deleted where they landed (on a dry run: to delete)
   * @param archived objects moved to their archive (on a dry run: to move)
   * @param alreadyGone files whose generation was gone already (rewritten or deleted by someone else)
   * @param finished files an earlier run had decided on, whose removal this run finished
   * @param files on a dry run, the first files that would be cleaned; empty otherwise
   * @param failed each object (or the ledger) that could not be cleaned, with why
   */
  public record Cleaned(String table, String action, boolean dryRun, Instant ingestedBefore, int deleted,
      int archived, int alreadyGone, int finished, List<String> files, Map<String, String> failed) {
    public Cleaned {
      files = List.copyOf(files);
      failed = Collections.unmodifiableMap(new LinkedHashMap<>(failed));
    }
  }

  private final Ledger ledger;
  private final LandingObjects objects;
  private final Clock clock;

  /**
   * @param storage the deployment's Storage client, opened on first use
   * @param clock what "now" is: the retention counts back from it (tests make files look old)
   */
  public LandingCleanup(Ledger ledger, Supplier<Storage> storage, Clock clock) {
    this.ledger = ledger;
    this.objects = new LandingObjects(storage);
    this.clock = clock;
  }

  /** Cleans the table's landing as its profile says; empty when its objects are kept. Never throws for a file. */
  public Optional<Cleaned> clean(TableProfile profile, boolean dryRun) {
    AfterIngest afterIngest = profile.load().afterIngest();
    if (!afterIngest.cleans()) {
      return Optional.empty();
    }
    Instant cutoff = clock.instant().minus(afterIngest.retention());
    Run run = new Run(profile.table(), afterIngest, cutoff);
    try {
      if (dryRun) {
        run.plan();
      } else {
        run.finishEarlierRuns();
        run.cleanLoadedBefore();
      }
    } catch (LedgerUnavailableException | IllegalStateException | IllegalTransitionException e) {
      // An unfinished rollback or drop, or a file reopened since it was listed: the next run goes on.
      run.failed.put("the ledger", e.getMessage());
    }
    return Optional.of(new Cleaned(profile.table(), afterIngest.action().code(), dryRun, cutoff, run.deleted,
        run.archived, run.alreadyGone, run.finished, run.named, run.failed));
  }

  /** One table's run and its counts. */
  private final class Run {
    final String table;
    final AfterIngest afterIngest;
    final Instant cutoff;
    int deleted;
    int archived;
    int alreadyGone;
    int finished;
    final List<String> named = new ArrayList<>();
    final Map<String, String> failed = new LinkedHashMap<>();

    Run(String table, AfterIngest afterIngest, Instant cutoff) {
      this.table = table;
      this.afterIngest = afterIngest;
      this.cutoff = cutoff;
    }

    void plan() {
      finished = ledger.filesBeingCleaned(table, DRY_RUN_LIMIT).size();
      List<FileRecord> candidates = ledger.filesToClean(table, cutoff, DRY_RUN_LIMIT);
      if (afterIngest.action() == AfterIngest.Action.MOVE) {
        archived = candidates.size();
      } else {
        deleted = candidates.size();
      }
      candidates.stream().limit(NAMED).forEach(f -> named.add(f.uri() + "#" + f.generation()));
    }

    /** Files decided on by a run that stopped before it removed their objects. */
    void finishEarlierRuns() {
      // A removal that failed stays pending: tried once per run, reported, never looped on.
      java.util.Set<String> tried = new java.util.HashSet<>();
      while (true) {
        List<FileRecord> pending = ledger.filesBeingCleaned(table, CHUNK).stream()
            .filter(f -> !tried.contains(f.fileId())).toList();
        if (pending.isEmpty()) {
          return;
        }
        pending.forEach(f -> tried.add(f.fileId()));
        List<String> removed = removeAll(pending, true);
        confirm(removed);
        LOG.info("Table {}: finished the cleanup of {} file(s) an earlier run had begun", table, removed.size());
      }
    }

    void cleanLoadedBefore() {
      while (true) {
        List<FileRecord> candidates = ledger.filesToClean(table, cutoff, CHUNK);
        if (candidates.isEmpty()) {
          return;
        }
        Instant now = clock.instant();
        List<Ledger.CleanFile> decisions = new ArrayList<>();
        for (FileRecord file : candidates) {
          decide(file, now).ifPresent(decisions::add);
        }
        if (decisions.isEmpty()) {
          return; // every copy failed: reported, and tried again next run
        }
        ledger.cleanFiles(table, decisions);
        Map<String, FileRecord> byId = new LinkedHashMap<>();
        candidates.forEach(f -> byId.put(f.fileId(), f));
        List<FileRecord> toRemove = decisions.stream()
            .map(d -> byId.get(d.fileId()).withCleaned(Optional.of(d.cleaned()))).toList();
        confirm(removeAll(toRemove, false));
        LOG.info("Table {}: cleaned {} of {} file(s) loaded before {} ({} deleted, {} archived, {} already gone so far)",
            table, decisions.size(), candidates.size(), cutoff, deleted, archived, alreadyGone);
        if (decisions.size() < candidates.size()) {
          return; // some copies failed: they would be listed again at once
        }
      }
    }

    /** The file's decision; for a move, its copy made first. Empty when the copy failed (reported). */
    private Optional<Ledger.CleanFile> decide(FileRecord file, Instant now) {
      if (afterIngest.action() == AfterIngest.Action.DELETE) {
        return Optional.of(new Ledger.CleanFile(file.fileId(), CleanedObject.deleted(now)));
      }
      try {
        Optional<LandingObjects.Copy> copy = objects.copy(file, afterIngest.moveTo().orElseThrow());
        if (copy.isEmpty()) {
          LOG.info("Table {}: {} generation {} is gone already (rewritten or deleted): nothing to archive, recorded"
              + " as deleted", table, file.uri(), file.generation());
          return Optional.of(new Ledger.CleanFile(file.fileId(), CleanedObject.deleted(now)));
        }
        return Optional.of(new Ledger.CleanFile(file.fileId(),
            CleanedObject.archived(copy.get().uri(), copy.get().generation(), now)));
      } catch (IOException | RuntimeException e) {
        failed.put(file.uri(), "cannot copy generation " + file.generation() + " to "
            + afterIngest.moveTo().orElseThrow() + ": " + e.getMessage());
        return Optional.empty();
      }
    }

    /** Removes each file's object; the ids of those now gone (a failure stays pending, reported). */
    private List<String> removeAll(List<FileRecord> files, boolean resumed) {
      List<String> removed = new ArrayList<>();
      for (FileRecord file : files) {
        try {
          LandingObjects.Removal removal = objects.remove(file);
          CleanedObject cleaned = file.cleaned().orElseThrow();
          removed.add(file.fileId());
          if (resumed) {
            finished++;
          } else if (cleaned.action() == CleanedObject.Action.ARCHIVED) {
            archived++;
          } else if (removal == LandingObjects.Removal.REMOVED) {
            deleted++;
          } else {
            alreadyGone++;
          }
          if (removal == LandingObjects.Removal.ALREADY_GONE) {
            LOG.info("Table {}: {} generation {} was gone already (rewritten or deleted); a newer generation stays",
                table, file.uri(), file.generation());
          }
        } catch (IOException | RuntimeException e) {
          failed.put(file.uri(), "cannot remove generation " + file.generation() + ": " + e.getMessage());
        }
      }
      return removed;
    }

    private void confirm(List<String> fileIds) {
      if (!fileIds.isEmpty()) {
        ledger.confirmRemoved(fileIds);
      }
    }
  }
}
