package io.files2iceberg.batcher.engine;

import io.files2iceberg.core.profile.Deployment;
import com.google.cloud.storage.Storage;
import io.files2iceberg.batcher.engine.launch.AttemptResults;
import io.files2iceberg.batcher.engine.launch.JobResult;
import io.files2iceberg.batcher.engine.launch.Launcher;
import io.files2iceberg.batcher.engine.BatchEvent.AfterFailure;
import io.files2iceberg.batcher.engine.BatchEvent.BatchClaimed;
import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.batcher.engine.BatchEvent.BatchFailed;
import io.files2iceberg.batcher.engine.Launch.Launched;
import io.files2iceberg.batcher.engine.Launch.Refused;
import io.files2iceberg.batcher.engine.Launch.Started;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.logging.LogLabels;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.JobExit;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.core.profile.TableProfile;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * One table's turn in a run, on one worker thread: its expired batches are recovered ({@link
 * Recovery}); a stop under {@code strict-pattern} ends the turn there ({@link TableStops}); then
 * batches are planned ({@link Planner}) and run one at a time ({@link BatchAttempts}), until
 * nothing is READY or a batch does not commit, so a failing table never spends all its attempts
 * in one run.
 */
final class TableTurn {
  private static final Logger LOG = LoggerFactory.getLogger(TableTurn.class);

  /** What every table's turn of a runner shares. */
  record Shared(Ledger ledger, Deployment deployment, ManifestStore manifests, AttemptResults results,
      StorageListing listing, Clock clock, RunOptions options, CatalogPermits permits) {

    /** @param storage the GCS client for manifests, results and listings, created on first use */
    static Shared of(Ledger ledger, Deployment deployment, Supplier<Storage> storage, Clock clock,
        RunOptions options) {
      Supplier<Storage> once = new Supplier<>() {
        private Storage client;

        @Override
        public synchronized Storage get() {
          if (client == null) {
            client = storage.get();
          }
          return client;
        }
      };
      return new Shared(ledger, deployment, new ManifestStore(once), new AttemptResults(once), new StorageListing(once), clock,
          options, new CatalogPermits(options.waitForJobs()));
    }
  }

  private final TableProfile profile;
  private final String table;
  private final RunEvents events;
  private final CatalogPermits permits;
  private final Planner planner;
  private final Launch launch;
  private final JobWatcher watcher;
  private final BatchAttempts attempts;
  private final Recovery recovery;

  TableTurn(Shared shared, TableProfile profile, Launcher launcher, RunEvents events) {
    this.profile = profile;
    this.table = profile.table();
    this.events = events;
    this.permits = shared.permits();
    this.planner = new Planner(shared.ledger(), profile, shared.deployment(), shared.listing(), shared.clock(), events);
    this.launch = new Launch(shared.ledger(), shared.manifests(), launcher, events);
    this.watcher = new JobWatcher(shared.ledger(), shared.clock(), shared.options().jobTimeout());
    SettlementWriter writer = new SettlementWriter(shared.ledger(), profile, shared.deployment().job(), events);
    this.attempts = new BatchAttempts(shared.ledger(), profile, shared.deployment().job(), launch, watcher, writer,
        shared.options().waitForJobs(), () -> permits.keep(profile));
    this.recovery = new Recovery(shared.ledger(), profile, shared.deployment().job(), launcher, shared.results(), planner, watcher, attempts,
        writer, events);
  }

  void run(List<BatchRecord> stale, List<TableStops.Stop> stoppedBy) {
    // Every line of the turn names its table (a label of the JSON logs); its batches add theirs.
    try (MDC.MDCCloseable labelled = MDC.putCloseable(LogLabels.MDC_TABLE, table)) {
      runLabelled(stale, stoppedBy);
    }
  }

  private void runLabelled(List<BatchRecord> stale, List<TableStops.Stop> stoppedBy) {
    for (BatchRecord batch : stale) {
      if (!withPermit(() -> recovery.recover(batch))) {
        return; // the table keeps a batch in flight; claims are exclusive anyway
      }
    }
    if (!stoppedBy.isEmpty()) {
      // Recovery above settled what was already in flight; nothing new is claimed or listed
      // while a file that misses the pattern under strict-pattern stands.
      for (TableStops.Stop stop : stoppedBy) {
        LOG.error("Table {}", stop.describe());
        events.error(stop.describe());
      }
      return;
    }
    IngestionType mode = profile.extract().batchFile().ingestionType();
    if (profile.extract().listsStorage()) {
      runListed(mode, planner.listFiles());
      return;
    }
    Supplier<Boolean> claimAndRun = () -> planner.claimNext().map(manifest -> attempts.run(manifest, false)).orElse(false);
    if (mode.claimsOncePerTurn()) {
      withPermit(claimAndRun);
      return;
    }
    boolean more = true;
    while (more && !Thread.currentThread().isInterrupted()) {
      more = withPermit(claimAndRun);
    }
  }

  /**
   * Mode {@code full}, and backfills ({@code save-checkpoint = false}): the files come from a
   * listing and the ledger is neither read nor written.
   */
  void runListed(IngestionType mode, List<ManifestFile> files) {
    try (MDC.MDCCloseable labelled = MDC.putCloseable(LogLabels.MDC_TABLE, table)) {
      runListedLabelled(mode, files);
    }
  }

  private void runListedLabelled(IngestionType mode, List<ManifestFile> files) {
    List<List<ManifestFile>> chunks = planner.listedChunks(mode, files);
    if (chunks.isEmpty()) {
      LOG.info("Table {}: no files match {}; nothing to load", table, profile.extract().path());
      return;
    }
    for (List<ManifestFile> chunk : chunks) {
      if (!withPermit(() -> runListedBatch(planner.listed(mode, chunk)))) {
        return;
      }
    }
  }

  private boolean runListedBatch(BatchManifest manifest) {
    try (MDC.MDCCloseable labelled = MDC.putCloseable(LogLabels.MDC_BATCH_ID, manifest.batchId())) {
      return runListedBatchLabelled(manifest);
    }
  }

  private boolean runListedBatchLabelled(BatchManifest manifest) {
    String batchId = manifest.batchId();
    List<String> partitions = manifest.files().stream().map(ManifestFile::partition).distinct().sorted().toList();
    events.emit(new BatchClaimed(table, batchId, manifest.mode(), false, partitions, manifest.files().size()));
    Started started = launch.startListed(manifest);
    if (started instanceof Refused refused) {
      events.emit(new BatchFailed(table, batchId, refused.why().error(), Optional.empty(),
          AfterFailure.NOTHING_CLAIMED));
      return false;
    }
    JobResult result = watcher.watch(((Launched) started).job(), table, batchId, Optional.empty());
    if (result.exit() == JobExit.LOADED && result.report().isPresent()) {
      events.emit(new BatchCommitted(table, batchId, result.report().get()));
      return true;
    }
    events.emit(new BatchFailed(table, batchId, result.describe(), Optional.of(result.exit()),
        AfterFailure.NOTHING_CLAIMED));
    return false;
  }

  private boolean withPermit(Supplier<Boolean> step) {
    return permits.withPermit(profile, step);
  }
}
