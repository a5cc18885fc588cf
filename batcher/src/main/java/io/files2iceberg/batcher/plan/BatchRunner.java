package io.files2iceberg.batcher.plan;

import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import io.files2iceberg.batcher.launch.AttemptResults;
import io.files2iceberg.batcher.launch.JobResult;
import io.files2iceberg.batcher.launch.LaunchException;
import io.files2iceberg.batcher.launch.LaunchedJob;
import io.files2iceberg.batcher.launch.Launcher;
import io.files2iceberg.batcher.plan.BatchEvent.AfterFailure;
import io.files2iceberg.batcher.plan.BatchEvent.BatchClaimed;
import io.files2iceberg.batcher.plan.BatchEvent.BatchCommitted;
import io.files2iceberg.batcher.plan.BatchEvent.BatchFailed;
import io.files2iceberg.batcher.plan.BatchEvent.BatchLaunched;
import io.files2iceberg.batcher.plan.BatchEvent.BatchReattached;
import io.files2iceberg.batcher.plan.BatchEvent.BatchRecovered;
import io.files2iceberg.batcher.plan.BatchEvent.PartitionsSuperseded;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.ClaimNewestPartition;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.FailBatch;
import io.files2iceberg.core.ledger.IllegalTransitionException;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.NewestPartitionClaimed;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.manifest.AttemptResult;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.JobExit;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.core.profile.Catalog;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.profile.TableProfile;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The planner: turns READY partitions into batches, runs the job on each and settles the ledger.
 *
 * <p>{@link #runOnce()} gives every table of the registry that the ledger drives one turn (a table
 * that lists storage runs only when named: {@link #runOnce(Collection)}), tables in parallel up to {@link
 * RunOptions#concurrency()}, and one batch at a time per table (claims are exclusive: concurrent
 * MERGE commits to one table would conflict). A table's turn:
 *
 * <ol>
 *   <li><b>Recovery</b>: each of its batches whose lease expired (a batcher died, or a run left it
 *       for recovery). Its latest attempt's result file comes first ({@code AttemptResult}, which
 *       the job writes beside its manifest whoever watches it): a result that says the table
 *       holds the batch settles it without Spark; a job of that attempt still running (its
 *       batcher died, it did not) is reattached and waited for, never doubled. Otherwise the
 *       batch is launched again as it is, rebuilt from the ledger. The job walks the table's
 *       snapshot ancestry before reading anything, so a batch that is already in the table is
 *       only finalized in the ledger; the batcher never reads Iceberg itself. A batch whose
 *       attempts reached {@code job.max-attempts} is failed instead.
 *   <li><b>Stops</b>: with {@code strict-pattern = true}, a quarantined file that misses the
 *       pattern stops the table here, with an error naming the file ({@link TableStops}).
 *   <li><b>Claims</b>, by mode: {@code incremental} claims READY partitions, oldest first, up to
 *       {@code max-batch-size} files, again and again until nothing is READY; {@code last} claims the
 *       newest READY partition whole and supersedes the older ones; {@code full} (and any mode with
 *       {@code save-checkpoint = false}) lists the files from storage into a batch the ledger never
 *       sees.
 *   <li>For each batch: write the manifest, mark it RUNNING, launch, renew the lease every third of
 *       {@code job.lease-timeout} while waiting (bounded by {@link RunOptions#jobTimeout()}), then
 *       settle it by the job's outcome (below). A table's turn ends at its first batch that does
 *       not commit, so a failing table never spends all its attempts in one run.
 * </ol>
 *
 * <p>Settling, by the job's {@link JobExit}, as its result file (else its exit code) says:
 *
 * <ul>
 *   <li>{@code LOADED}: the job wrote the checkpoint; the ledger must show the batch COMMITTED (else
 *       it is failed, naming the state). Then committed batches beyond {@code keep-checkpoints}
 *       are pruned.
 *   <li>{@code CHECKPOINT_FAILED}: the rows are in the table. The batch is launched again at once
 *       (the job only finalizes it); if that fails too, its lease is expired so that the next run's
 *       recovery finalizes it. Its partitions are never released: that would load them twice.
 *   <li>{@code REJECTED}: the input or the profile must change first; the batch fails with its
 *       partitions FAILED at once, showing the job's error, until an operator retries them.
 *   <li>{@code FAILED}, {@code INVALID_MANIFEST}, reported by the job: nothing was committed; the
 *       batch fails and its partitions are released with one more attempt counted (FAILED after
 *       {@code job.max-attempts}).
 *   <li>A run that ended without the job's word (a crash, a kill, the timeout), and any failure of
 *       a batch that an earlier attempt may have committed: whether the table holds it is unknown,
 *       so the batch is left for recovery (its lease expired) and launched again next run, until
 *       its attempts reach {@code job.max-attempts}.
 * </ul>
 *
 * <p>Tables whose catalog is JDBC on one SQLite file (the embedded catalog) take turns, one job at
 * a time per file: Iceberg commits from two JVMs to one SQLite file fail instead of waiting.
 *
 * <p>Not thread-safe: one caller runs {@link #runOnce()} at a time. Events are delivered from the
 * tables' worker threads.
 */
public final class BatchRunner {
  private static final Logger LOG = LoggerFactory.getLogger(BatchRunner.class);
  private static final DateTimeFormatter LISTED_ID_TIME =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss").withZone(ZoneOffset.UTC);
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Duration MIN_RENEWAL = Duration.ofMillis(50);
  /**
   * In the error of a batch failed with an unknown outcome (its job may have committed): {@code
   * retry} revives such a batch under its own id rather than loading its files in a new batch,
   * which could duplicate rows of an Append table.
   */
  public static final String MAY_HOLD_BATCH = "the table may hold the batch";

  /**
   * Whether the batch gave up with an unknown outcome ({@link #MAY_HOLD_BATCH} in its error): still
   * true of one that {@code retry} revived ({@link Ledger#reviveBatch} keeps the error).
   */
  public static boolean mayHoldBatch(BatchRecord batch) {
    return batch.error().filter(error -> error.contains(MAY_HOLD_BATCH)).isPresent();
  }

  private final ProfileRegistry profiles;
  private final Ledger ledger;
  private final Function<TableProfile, Launcher> launchers;
  private final Clock clock;
  private final RunOptions options;
  private final Consumer<BatchEvent> events;
  private final ManifestStore manifests;
  private final AttemptResults results;
  private final StorageListing listing;
  /** One job at a time per SQLite catalog file; see {@link #catalogPermit}. */
  private final Map<String, Semaphore> sqliteCatalogs = new ConcurrentHashMap<>();

  private BatchRunner(Builder builder) {
    this.profiles = builder.profiles;
    this.ledger = builder.ledger;
    this.launchers = builder.launchers;
    this.clock = builder.clock;
    this.options = builder.options;
    this.events = builder.events;
    Supplier<Storage> storage = memoize(builder.storage);
    this.manifests = new ManifestStore(storage);
    this.results = new AttemptResults(storage);
    this.listing = new StorageListing(storage);
  }

  /**
   * @param profiles the tables to run, each with its settings
   * @param ledger the deployment's ledger (the same one the job opens from the profiles)
   * @param launchers each table's launcher (see {@code Launchers})
   */
  public static Builder builder(ProfileRegistry profiles, Ledger ledger, Function<TableProfile, Launcher> launchers) {
    return new Builder(profiles, ledger, launchers);
  }

  /**
   * Recovers expired batches, then gives every table its turn (see the class comment) and waits
   * for all of them.
   *
   * @return what committed and what failed; problems that stopped a table before it had a batch
   *     (the ledger unavailable, no launcher, a file rejected under strict-pattern) are in {@link
   *     RunSummary#errors()}
   */
  public RunSummary runOnce() {
    return run(profiles.profiles().stream().filter(BatchRunner::isLedgerDriven).toList());
  }

  /**
   * As {@link #runOnce()}, for exactly the named tables, whatever their mode: the way a table that
   * lists storage is asked to run ({@code batch run-once --table}, a schedule that names it).
   *
   * @throws IllegalArgumentException naming a table no profile loads
   */
  public RunSummary runOnce(Collection<String> tables) {
    List<TableProfile> named = new ArrayList<>();
    for (String table : tables) {
      named.add(profiles.byTable(table).orElseThrow(
          () -> new IllegalArgumentException("no profile loads table " + table)));
    }
    return run(named);
  }

  /**
   * Whether the ledger drives the table's batches (modes incremental and last, with checkpoints),
   * so that a run has something to do for it only when its files arrived. A table that lists
   * storage instead (mode full, save-checkpoint = false) loads every listed file whenever it runs,
   * so it runs only when named ({@link #runOnce(Collection)}, {@link #runTable}): never as a side
   * effect of another table's files, which would load an Append backfill twice.
   */
  public static boolean isLedgerDriven(TableProfile profile) {
    return !profile.extract().listsStorage();
  }

  private RunSummary run(List<TableProfile> tables) {
    Instant start = clock.instant();
    Collected collected = new Collected();
    Map<String, List<BatchRecord>> expired;
    try {
      expired = ledger.findExpiredLeases().stream()
          .collect(Collectors.groupingBy(BatchRecord::table, LinkedHashMap::new, Collectors.toList()));
    } catch (RuntimeException e) {
      LOG.error("Cannot look for expired batches: {}", e.toString());
      collected.error("ledger: cannot look for expired batches: " + e.getMessage());
      return collected.summary(Duration.between(start, clock.instant()));
    }
    Map<String, List<TableStops.Stop>> stops;
    try {
      stops = TableStops.read(ledger, profiles.profiles());
    } catch (RuntimeException e) {
      LOG.error("Cannot read the quarantine: {}", e.toString());
      collected.error("ledger: cannot read the quarantine: " + e.getMessage());
      return collected.summary(Duration.between(start, clock.instant()));
    }
    for (String table : expired.keySet()) {
      if (profiles.byTable(table).isEmpty()) {
        LOG.warn("Table {}: batches {} have expired leases but no profile loads the table; left as they are", table,
            expired.get(table).stream().map(BatchRecord::batchId).toList());
      }
    }
    int threads = Math.max(1, Math.min(options.concurrency(), tables.size()));
    AtomicInteger threadNumber = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads, runnable -> {
      Thread thread = new Thread(runnable, "batcher-table-" + threadNumber.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    });
    try {
      Map<String, Future<?>> turns = new LinkedHashMap<>();
      for (TableProfile profile : tables) {
        List<BatchRecord> stale = expired.getOrDefault(profile.table(), List.of());
        List<TableStops.Stop> stoppedBy = stops.getOrDefault(profile.table(), List.of());
        turns.put(profile.table(), pool.submit(() -> new TableTurn(profile, collected).run(stale, stoppedBy)));
      }
      for (Map.Entry<String, Future<?>> turn : turns.entrySet()) {
        try {
          turn.getValue().get();
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          LOG.error("Table {}: the turn stopped: {}", turn.getKey(), cause.toString(), cause);
          collected.error(turn.getKey() + ": " + cause.getMessage());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      pool.shutdownNow();
      collected.error("interrupted");
    } finally {
      pool.shutdown();
    }
    RunSummary summary = collected.summary(Duration.between(start, clock.instant()));
    LOG.info("Run: {}", summary.describe());
    return summary;
  }

  /**
   * Gives one table its turn (see the class comment): its expired batches are recovered, then its
   * READY partitions claimed and loaded until nothing is READY or a batch does not commit. For the
   * operator commands' {@code --run}.
   */
  public RunSummary runTable(TableProfile profile) {
    Instant start = clock.instant();
    Collected collected = new Collected();
    List<BatchRecord> stale = ledger.findExpiredLeases().stream()
        .filter(batch -> batch.table().equals(profile.table())).toList();
    List<TableStops.Stop> stoppedBy = TableStops.read(ledger, List.of(profile)).getOrDefault(profile.table(), List.of());
    new TableTurn(profile, collected).run(stale, stoppedBy);
    return collected.summary(Duration.between(start, clock.instant()));
  }

  /**
   * Loads the given files of one table in listed batches of {@code max-batch-size} files, as a
   * backfill ({@code save-checkpoint = false}) does: the ledger is neither read nor written. For
   * {@code replay --no-checkpoint}, which chooses the files itself.
   */
  public RunSummary runListed(TableProfile profile, List<ManifestFile> files) {
    Instant start = clock.instant();
    Collected collected = new Collected();
    new TableTurn(profile, collected).runListed(launchers.apply(profile), IngestionType.INCREMENTAL, files);
    return collected.summary(Duration.between(start, clock.instant()));
  }

  /** One table's turn; runs on one worker thread. */
  private final class TableTurn {
    private final TableProfile profile;
    private final String table;
    private final Collected collected;
    private final int maxAttempts;
    private final Duration lease;
    /** Why the last launch could not start, for the batch's error. */
    private String lastLaunchError = "";

    TableTurn(TableProfile profile, Collected collected) {
      this.profile = profile;
      this.table = profile.table();
      this.collected = collected;
      this.maxAttempts = Math.max(1, profiles.deployment().job().maxAttempts());
      this.lease = profiles.deployment().job().leaseTimeout();
    }

    void run(List<BatchRecord> stale, List<TableStops.Stop> stoppedBy) {
      Launcher launcher = launchers.apply(profile);
      for (BatchRecord batch : stale) {
        if (!withPermit(() -> recover(launcher, batch))) {
          return; // the table keeps a batch in flight; claims are exclusive anyway
        }
      }
      if (!stoppedBy.isEmpty()) {
        // Recovery above settled what was already in flight; nothing new is claimed or listed
        // while a file that misses the pattern under strict-pattern stands.
        for (TableStops.Stop stop : stoppedBy) {
          LOG.error("Table {}", stop.describe());
          collected.error(stop.describe());
        }
        return;
      }
      IngestionType mode = profile.extract().batchFile().ingestionType();
      if (profile.extract().listsStorage()) {
        runListed(launcher, mode);
        return;
      }
      if (mode == IngestionType.LAST) {
        withPermit(() -> claimNewest().map(batch -> execute(launcher, batch, IngestionType.LAST, false)).orElse(false));
        return;
      }
      boolean more = true;
      while (more && !Thread.currentThread().isInterrupted()) {
        more = withPermit(() -> {
          Optional<BatchRecord> claimed =
              ledger.claimPartitions(new ClaimPartitions(table, profile.extract().maxBatchSize(), lease, true));
          if (claimed.isEmpty()) {
            return false;
          }
          BatchRecord batch = claimed.get();
          emit(new BatchClaimed(table, batch.batchId(), mode, true, batch.partitions(), batch.fileIds().size()));
          return execute(launcher, batch, mode, false);
        });
      }
    }

    /**
     * Runs one claim-and-job step holding the table's catalog permit (when its catalog needs one);
     * false when interrupted while waiting for it.
     */
    private boolean withPermit(Supplier<Boolean> step) {
      Optional<Semaphore> permit = catalogPermit(profile);
      if (permit.isEmpty()) {
        return step.get();
      }
      try {
        permit.get().acquire();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
      try {
        return step.get();
      } finally {
        permit.get().release();
      }
    }

    /**
     * A batch whose lease expired. Its latest attempt comes first, since its batcher may have died
     * while its job did not: when that attempt's result says the table holds the batch, the batch
     * is settled from it (the checkpoint the job recorded, or the one it failed to record) without
     * running Spark again; when its job still runs, it is watched instead of launching a second
     * job on the batch. Otherwise the batch is failed when out of attempts, else launched again.
     */
    private boolean recover(Launcher launcher, BatchRecord batch) {
      // The ledger does not keep a batch's mode: it is the profile's, and a ledger batch of a
      // profile since switched to full (which has no ledger batches) is loaded incrementally.
      IngestionType mode = profile.extract().batchFile().ingestionType();
      BatchManifest manifest = BatchManifest.of(batch.batchId(), profile, profiles.deployment(),
          mode == IngestionType.FULL ? IngestionType.INCREMENTAL : mode, true, batch.createdAt(),
          ledger.filesOfBatch(batch.batchId()));
      String manifestUri = ManifestStore.location(profile, batch.batchId());
      int latest = batch.launches();
      Optional<AttemptResult> previous = latest < 1 ? Optional.empty()
          : results.read(AttemptResult.locationBeside(manifestUri, latest));
      // A result without a checkpoint to write (saveCheckpoint = false) is not a run of the ledger's batch.
      if (previous.isPresent() && previous.get().isInTable()
          && previous.get().report().orElseThrow().checkpoint() != BatchLoadReport.Checkpoint.SKIPPED) {
        return settleFromResult(batch, previous.get());
      }
      Optional<LaunchedJob> running = previous.isPresent() || latest < 1 ? Optional.empty()
          : reattach(launcher, manifest, manifestUri, latest);
      if (running.isPresent()) {
        return watchReattached(launcher, batch, manifest, running.get(), latest);
      }
      if (previous.isPresent() && previous.get().exit() == JobExit.REJECTED) {
        // The job's own word that this batch cannot be loaded as it is; its batcher died before
        // settling it. Running it again would fail the same way.
        if (takeOver(batch)) {
          fail(batch.batchId(), previous.get().detail(), Optional.of(JobExit.REJECTED), 1);
          return true;
        }
        return false;
      }
      if (batch.attempts() >= maxAttempts) {
        String error = "gave up after " + batch.attempts() + " attempt(s): the lease expired without a result"
            + batch.error().map(e -> "; " + e).orElse("");
        LOG.warn("Table {} batch {}: {}", table, batch.batchId(), error);
        ledger.failBatch(new FailBatch(batch.batchId(), error, 1, error.contains(MAY_HOLD_BATCH)));
        emit(new BatchFailed(table, batch.batchId(), error, Optional.empty(), AfterFailure.PARTITIONS_FAILED));
        return true;
      }
      if (!takeOver(batch)) {
        return false;
      }
      LOG.info("Table {} batch {}: lease expired at {} after {} attempt(s); launching it again", table,
          batch.batchId(), batch.leaseUntil().orElse(null), batch.attempts());
      emit(new BatchRecovered(table, batch.batchId(), batch.launches() + 1));
      // The batch may have been RUNNING when its batcher died, or it is one that gave up with an
      // unknown outcome and retry revived (attempts reset, error kept): the table may hold it already.
      return execute(launcher, manifest, batch.attempts() > 0 || mayHoldBatch(batch), Optional.empty());
    }

    /** Recovery's compare-and-set on the lease; false when another batcher took the batch first. */
    private boolean takeOver(BatchRecord batch) {
      try {
        ledger.takeOverExpiredLease(batch.batchId(), lease);
        return true;
      } catch (IllegalTransitionException e) {
        // Another batcher (an overlapping scheduled run) recovered it first, or it settled.
        LOG.info("Table {} batch {}: not recovered here: {}", table, batch.batchId(), e.getMessage());
        return false;
      }
    }

    private Optional<LaunchedJob> reattach(Launcher launcher, BatchManifest manifest, String manifestUri, int attempt) {
      try {
        return launcher.reattach(manifest, manifestUri, attempt);
      } catch (LaunchException e) {
        LOG.warn("Table {} batch {}: cannot tell whether attempt {} still runs: {}", table, manifest.batchId(),
            attempt, e.getMessage());
        return Optional.empty();
      }
    }

    /**
     * The latest attempt's job outlived its batcher and still runs: take the lease over and watch
     * it, renewing the lease, then settle the batch by its result as if this batcher had launched it
     * (an earlier attempt may have committed, so an unclear end leaves the batch for recovery).
     */
    private boolean watchReattached(Launcher launcher, BatchRecord batch, BatchManifest manifest, LaunchedJob job,
        int attempt) {
      if (!takeOver(batch)) {
        return false;
      }
      LOG.info("Table {} batch {}: lease expired at {}, but attempt {} still runs as {}; watching it", table,
          batch.batchId(), batch.leaseUntil().orElse(null), attempt, job.jobId());
      emit(new BatchReattached(table, batch.batchId(), attempt, job.jobId(), job.log()));
      JobResult result = watch(job, batch.batchId());
      return execute(launcher, manifest, true, Optional.of(new Watched(result, batch.attempts())));
    }

    /**
     * The latest attempt's result says the table holds the batch, but its batcher died before
     * settling it. After LOADED the job recorded the checkpoint, so the ledger has the batch
     * COMMITTED already; after CHECKPOINT_FAILED the checkpoint is written here, from the result's
     * snapshot id and metrics, as the job's "already committed" path would write it, without
     * running Spark again. When an overlapping run took the batch first, it is not settled here.
     */
    private boolean settleFromResult(BatchRecord batch, AttemptResult previous) {
      if (!takeOver(batch)) {
        return ledger.batch(batch.batchId()).map(b -> b.state() == BatchState.COMMITTED).orElse(false);
      }
      BatchLoadReport report = previous.report().orElseThrow();
      LOG.info("Table {} batch {}: lease expired, and attempt {} left its result: {}; settling the batch from it",
          table, batch.batchId(), previous.attempt(), previous.detail());
      Optional<String> log = Optional.empty();
      JobResult result = new JobResult(JobExit.LOADED, Optional.of(report), previous.detail(), true, log);
      boolean inLedger = ledger.batch(batch.batchId()).map(b -> b.state() == BatchState.COMMITTED).orElse(false);
      if (!inLedger) {
        try {
          boolean already = ledger.commitBatch(new CommitBatch(batch.batchId(), report.snapshotId(), report.metrics()))
              .alreadyCommitted();
          BatchLoadReport finalized = new BatchLoadReport(report.table(), report.batchId(), report.alreadyCommitted(),
              report.snapshotId(), already ? BatchLoadReport.Checkpoint.ALREADY_COMMITTED
                  : BatchLoadReport.Checkpoint.COMMITTED, Optional.empty(), report.metrics(),
              report.quarantinedFiles(), report.rejectedTable());
          result = new JobResult(JobExit.LOADED, Optional.of(finalized), previous.detail(), true, log);
        } catch (RuntimeException e) {
          return leaveForRecovery(batch.batchId(), "the table holds the batch (" + previous.detail()
              + ") but its checkpoint cannot be written: " + e.getMessage(), Optional.of(previous.exit()),
              batch.attempts());
        }
      }
      return settleLoaded(batch.batchId(), result);
    }

    private Optional<BatchRecord> claimNewest() {
      Optional<NewestPartitionClaimed> claimed = ledger.claimNewestPartition(new ClaimNewestPartition(table, lease));
      claimed.ifPresent(c -> {
        BatchRecord batch = c.batch();
        emit(new BatchClaimed(table, batch.batchId(), IngestionType.LAST, true, batch.partitions(),
            batch.fileIds().size()));
        if (!c.superseded().isEmpty()) {
          emit(new PartitionsSuperseded(table, batch.batchId(), c.superseded()));
        }
      });
      return claimed.map(NewestPartitionClaimed::batch);
    }

    /**
     * Runs a ledger batch until it is settled; {@code mayBeCommitted}: an earlier attempt may have
     * written it to the table. Returns whether it committed.
     */
    private boolean execute(Launcher launcher, BatchRecord claimed, IngestionType mode, boolean mayBeCommitted) {
      BatchManifest manifest = BatchManifest.of(claimed.batchId(), profile, profiles.deployment(), mode, true, claimed.createdAt(),
          ledger.filesOfBatch(claimed.batchId()));
      return execute(launcher, manifest, mayBeCommitted, Optional.empty());
    }

    /**
     * As above; {@code watched}: the result of a run that was already going (a reattached
     * attempt), settled first as if it had been launched here.
     */
    private boolean execute(Launcher launcher, BatchManifest manifest, boolean mayBeCommitted,
        Optional<Watched> watched) {
      String batchId = manifest.batchId();
      boolean checkpointRetried = false;
      while (true) {
        JobResult result;
        int attempts;
        if (watched.isPresent()) {
          result = watched.get().result();
          attempts = watched.get().attempts();
          watched = Optional.empty();
        } else {
          String uri;
          try {
            uri = manifests.write(manifest);
          } catch (RuntimeException e) {
            return unlaunched(batchId, e.getMessage(), mayBeCommitted);
          }
          BatchRecord running;
          try {
            running = ledger.markRunning(batchId, lease);
          } catch (IllegalTransitionException e) {
            // Another run settled it meanwhile (the job of a batcher that died finished after all).
            LOG.info("Table {} batch {}: not launched: {}", table, batchId, e.getMessage());
            return ledger.batch(batchId).map(b -> b.state() == BatchState.COMMITTED).orElse(false);
          }
          // Launches, not attempts: a revived batch's count of attempts starts again, and its next
          // launch must not reuse an earlier one's job (a Dataproc batch id names the launch).
          int attempt = running.launches();
          attempts = running.attempts();
          Optional<JobResult> outcome = launchAndWatch(launcher, manifest, uri, attempt);
          if (outcome.isEmpty()) {
            return unlaunched(batchId, "the job could not be started", mayBeCommitted);
          }
          result = outcome.get();
        }
        switch (result.exit()) {
          case LOADED -> {
            return settleLoaded(batchId, result);
          }
          case CHECKPOINT_FAILED -> {
            mayBeCommitted = true;
            if (!checkpointRetried) {
              checkpointRetried = true;
              LOG.warn("Table {} batch {}: committed to the table but not to the ledger ({}); launching it again to"
                  + " finalize it", table, batchId, result.describe());
              continue;
            }
            return leaveForRecovery(batchId, result.describe(), Optional.of(result.exit()), attempts);
          }
          case REJECTED -> {
            return fail(batchId, result.describe(), Optional.of(result.exit()), 1);
          }
          case FAILED, INVALID_MANIFEST -> {
            if (!result.fromJob() || mayBeCommitted) {
              return leaveForRecovery(batchId, result.describe(), Optional.of(result.exit()), attempts);
            }
            return fail(batchId, result.describe(), Optional.of(result.exit()), maxAttempts);
          }
          default -> throw new IllegalStateException("Unknown job exit " + result.exit());
        }
      }
    }

    /** Launches and waits, renewing the lease; empty when the job could not be started. */
    private Optional<JobResult> launchAndWatch(Launcher launcher, BatchManifest manifest, String uri, int attempt) {
      String batchId = manifest.batchId();
      LaunchedJob job;
      try {
        job = launcher.launch(manifest, uri, attempt);
      } catch (LaunchException e) {
        LOG.error("Table {} batch {}: cannot launch attempt {}: {}", table, batchId, attempt, e.getMessage());
        lastLaunchError = e.getMessage();
        return Optional.empty();
      }
      emit(new BatchLaunched(table, batchId, attempt, job.jobId(), job.log()));
      return Optional.of(watch(job, batchId));
    }

    /**
     * Waits for a run to end, renewing the lease every third of it, cancelling the run past the
     * job timeout; a run it loses track of, or is interrupted watching, ends without the job's word.
     */
    private JobResult watch(LaunchedJob job, String batchId) {
      Instant deadline = clock.instant().plus(options.jobTimeout());
      Duration renewEvery = max(MIN_RENEWAL, lease.dividedBy(3));
      try {
        while (true) {
          Duration left = Duration.between(clock.instant(), deadline);
          if (left.isNegative() || left.isZero()) {
            LOG.error("Table {} batch {}: {} ran longer than {}; cancelling it", table, batchId, job.jobId(),
                options.jobTimeout());
            job.cancel();
            Optional<JobResult> ended = job.await(Duration.ofSeconds(30));
            String detail = "the job ran longer than the job timeout " + options.jobTimeout() + " and was cancelled";
            return new JobResult(JobExit.FAILED, Optional.empty(), detail, false,
                ended.flatMap(JobResult::log).or(job::log));
          }
          Optional<JobResult> result = job.await(min(renewEvery, left));
          if (result.isPresent()) {
            return result.get();
          }
          renewLease(batchId);
        }
      } catch (InterruptedException e) {
        LOG.warn("Table {} batch {}: interrupted; cancelling {} and leaving the batch for recovery", table, batchId,
            job.jobId());
        job.cancel();
        Thread.currentThread().interrupt();
        return new JobResult(JobExit.FAILED, Optional.empty(), "the batcher was interrupted", false, Optional.empty());
      } catch (LaunchException e) {
        // The watcher lost the run; the job may still be running or may have committed.
        return new JobResult(JobExit.FAILED, Optional.empty(), "lost track of " + job.jobId() + ": " + e.getMessage(),
            false, Optional.empty());
      }
    }

    private void renewLease(String batchId) {
      try {
        ledger.renewLease(batchId, lease);
      } catch (RuntimeException e) {
        // The job goes on; if renewals keep failing, recovery may relaunch it, which the job's
        // ancestry check makes safe.
        LOG.warn("Table {} batch {}: cannot renew the lease: {}", table, batchId, e.toString());
      }
    }

    private boolean settleLoaded(String batchId, JobResult result) {
      Optional<BatchRecord> stored = ledger.batch(batchId);
      if (stored.isEmpty() || stored.get().state() != BatchState.COMMITTED) {
        String state = stored.map(b -> b.state().name()).orElse("missing");
        String error = "the job exited 0 but the ledger has the batch " + state + " (expected COMMITTED): "
            + result.describe();
        LOG.error("Table {} batch {}: {}", table, batchId, error);
        if (stored.isPresent() && stored.get().state().isInFlight()) {
          ledger.failBatch(new FailBatch(batchId, error, maxAttempts, false));
        }
        emit(new BatchFailed(table, batchId, error, Optional.of(JobExit.LOADED), afterFailure(stored)));
        return false;
      }
      BatchRecord batch = stored.get();
      BatchLoadReport report = result.report().orElseGet(() -> new BatchLoadReport(table, batchId, false,
          batch.snapshotId().orElse(0L), BatchLoadReport.Checkpoint.COMMITTED, Optional.empty(),
          batch.metrics().orElse(io.files2iceberg.core.ledger.BatchMetrics.EMPTY), List.of(), Optional.empty()));
      emit(new BatchCommitted(table, batchId, report));
      try {
        ledger.pruneCommitted(table, profile.extract().keepCheckpoints());
      } catch (RuntimeException e) {
        LOG.warn("Table {}: cannot prune committed batches: {}", table, e.toString());
      }
      return true;
    }

    private boolean unlaunched(String batchId, String why, boolean mayBeCommitted) {
      String error = why + (lastLaunchError.isEmpty() || why.contains(lastLaunchError) ? "" : ": " + lastLaunchError);
      lastLaunchError = "";
      if (mayBeCommitted) {
        int attempts = ledger.batch(batchId).map(BatchRecord::attempts).orElse(0);
        return leaveForRecovery(batchId, error, Optional.empty(), attempts);
      }
      return fail(batchId, error, Optional.empty(), maxAttempts);
    }

    /** Nothing was committed: release the partitions, counting an attempt. */
    private boolean fail(String batchId, String error, Optional<JobExit> exit, int attemptsAllowed) {
      BatchRecord failed = ledger.failBatch(new FailBatch(batchId, error, attemptsAllowed, false));
      AfterFailure after = afterFailure(Optional.of(failed));
      LOG.warn("Table {} batch {}: failed ({}): {}", table, batchId, after, error);
      emit(new BatchFailed(table, batchId, error, exit, after));
      return false;
    }

    /**
     * The table may hold the batch: never release its partitions (another batch would load them
     * again). Expire its lease so that the next run's recovery launches it again, or give up once
     * its attempts are spent.
     */
    private boolean leaveForRecovery(String batchId, String error, Optional<JobExit> exit, int attempts) {
      if (attempts >= maxAttempts) {
        String gaveUp = "gave up after " + attempts + " attempt(s); " + MAY_HOLD_BATCH + ": " + error;
        ledger.failBatch(new FailBatch(batchId, gaveUp, 1, true));
        LOG.error("Table {} batch {}: {}", table, batchId, gaveUp);
        emit(new BatchFailed(table, batchId, gaveUp, exit, AfterFailure.PARTITIONS_FAILED));
        return false;
      }
      try {
        ledger.renewLease(batchId, Duration.ZERO);
      } catch (RuntimeException e) {
        LOG.warn("Table {} batch {}: cannot expire the lease ({}); recovery takes it when the lease runs out", table,
            batchId, e.toString());
      }
      LOG.warn("Table {} batch {}: left for recovery after attempt {}: {}", table, batchId, attempts, error);
      emit(new BatchFailed(table, batchId, error, exit, AfterFailure.LEFT_FOR_RECOVERY));
      return false;
    }

    private AfterFailure afterFailure(Optional<BatchRecord> batch) {
      if (batch.isEmpty()) {
        return AfterFailure.NOTHING_CLAIMED;
      }
      for (String partition : batch.get().partitions()) {
        Optional<PartitionRecord> stored = ledger.partition(table, partition);
        if (stored.isPresent() && stored.get().state() == PartitionState.FAILED) {
          return AfterFailure.PARTITIONS_FAILED;
        }
      }
      return AfterFailure.RETRIED_LATER;
    }

    /**
     * Mode {@code full}, and backfills ({@code save-checkpoint = false}): the files come from a
     * listing and the ledger is neither read nor written. {@code full} and {@code last} load one
     * batch that replaces the table (for {@code last}, the newest partition only), so {@code
     * max-batch-size} does not apply; an incremental backfill goes in batches of that size.
     */
    private void runListed(Launcher launcher, IngestionType mode) {
      runListed(launcher, mode, listing.list(profile));
    }

    private void runListed(Launcher launcher, IngestionType mode, List<ManifestFile> files) {
      if (mode == IngestionType.LAST && !files.isEmpty()) {
        String newest = files.get(files.size() - 1).partition();
        files = files.stream().filter(f -> f.partition().equals(newest)).toList();
      }
      if (files.isEmpty()) {
        LOG.info("Table {}: no files match {}; nothing to load", table, profile.extract().path());
        return;
      }
      int size = mode == IngestionType.INCREMENTAL ? profile.extract().maxBatchSize() : files.size();
      for (int from = 0; from < files.size(); from += size) {
        List<ManifestFile> chunk = files.subList(from, Math.min(files.size(), from + size));
        if (!withPermit(() -> runListedBatch(launcher, mode, chunk))) {
          return;
        }
      }
    }

    private boolean runListedBatch(Launcher launcher, IngestionType mode, List<ManifestFile> files) {
      String batchId = listedBatchId(mode);
      BatchManifest manifest =
          new BatchManifest(BatchManifest.CURRENT_VERSION, batchId, profile, profiles.deployment(), mode, false, clock.instant(), files);
      List<String> partitions = files.stream().map(ManifestFile::partition).distinct().sorted().toList();
      emit(new BatchClaimed(table, batchId, mode, false, partitions, files.size()));
      String uri;
      try {
        uri = manifests.write(manifest);
      } catch (RuntimeException e) {
        emit(new BatchFailed(table, batchId, e.getMessage(), Optional.empty(), AfterFailure.NOTHING_CLAIMED));
        return false;
      }
      Optional<JobResult> outcome = launchAndWatchListed(launcher, manifest, uri);
      if (outcome.isPresent() && outcome.get().exit() == JobExit.LOADED && outcome.get().report().isPresent()) {
        emit(new BatchCommitted(table, batchId, outcome.get().report().get()));
        return true;
      }
      String error = outcome.map(JobResult::describe).orElse("the job could not be started: " + lastLaunchError);
      lastLaunchError = "";
      emit(new BatchFailed(table, batchId, error, outcome.map(JobResult::exit), AfterFailure.NOTHING_CLAIMED));
      return false;
    }

    /** As {@link #launchAndWatch}, for a batch without a lease to renew. */
    private Optional<JobResult> launchAndWatchListed(Launcher launcher, BatchManifest manifest, String uri) {
      LaunchedJob job;
      try {
        job = launcher.launch(manifest, uri, 1);
      } catch (LaunchException e) {
        lastLaunchError = e.getMessage();
        return Optional.empty();
      }
      emit(new BatchLaunched(table, manifest.batchId(), 1, job.jobId(), job.log()));
      try {
        Optional<JobResult> result = job.await(options.jobTimeout());
        if (result.isEmpty()) {
          job.cancel();
          return Optional.of(new JobResult(JobExit.FAILED, Optional.empty(),
              "the job ran longer than the job timeout " + options.jobTimeout() + " and was cancelled", false,
              job.log()));
        }
        return result;
      } catch (InterruptedException e) {
        job.cancel();
        Thread.currentThread().interrupt();
        return Optional.of(new JobResult(JobExit.FAILED, Optional.empty(), "the batcher was interrupted", false,
            Optional.empty()));
      }
    }

    private void emit(BatchEvent event) {
      collected.add(event);
      try {
        events.accept(event);
      } catch (RuntimeException e) {
        LOG.warn("Table {} batch {}: the event listener failed on {}: {}", table, event.batchId(),
            event.getClass().getSimpleName(), e.toString());
      }
    }
  }

  /**
   * The permit a table's job holds while it runs: tables whose catalog is JDBC on one SQLite file
   * (the embedded catalog) share one, because Iceberg commits from two JVMs to one SQLite file fail
   * with {@code SQLITE_BUSY_SNAPSHOT} instead of waiting; every other catalog (REST, Hadoop, a
   * server database) lets its tables run in parallel.
   */
  private Optional<Semaphore> catalogPermit(TableProfile profile) {
    Catalog catalog = profile.catalog();
    if (catalog.type() != Catalog.CatalogType.JDBC || !catalog.uri().startsWith("jdbc:sqlite:")) {
      return Optional.empty();
    }
    return Optional.of(sqliteCatalogs.computeIfAbsent(catalog.uri(), uri -> new Semaphore(1, true)));
  }

  /** {@code full-20261130T120000-1a2b3c4d}, {@code backfill-...}: sortable, and unique per run. */
  private String listedBatchId(IngestionType mode) {
    byte[] random = new byte[4];
    RANDOM.nextBytes(random);
    String kind = mode == IngestionType.INCREMENTAL ? "backfill" : mode.code();
    return kind + "-" + LISTED_ID_TIME.format(clock.instant()) + "-" + HexFormat.of().formatHex(random);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  private static <T> Supplier<T> memoize(Supplier<T> supplier) {
    return new Supplier<>() {
      private T value;

      @Override
      public synchronized T get() {
        if (value == null) {
          value = supplier.get();
        }
        return value;
      }
    };
  }

  /** The result of a run that was watched before {@code execute} (a reattached attempt) and its batch's attempts. */
  private record Watched(JobResult result, int attempts) {}

  /** What the tables' turns reported, for the summary. */
  private static final class Collected {
    private final List<BatchCommitted> committed = Collections.synchronizedList(new ArrayList<>());
    private final List<BatchFailed> failed = Collections.synchronizedList(new ArrayList<>());
    private final List<BatchRecovered> recovered = Collections.synchronizedList(new ArrayList<>());
    private final List<String> errors = Collections.synchronizedList(new ArrayList<>());

    void add(BatchEvent event) {
      if (event instanceof BatchCommitted c) {
        committed.add(c);
      } else if (event instanceof BatchFailed f) {
        failed.add(f);
      } else if (event instanceof BatchRecovered r) {
        recovered.add(r);
      }
    }

    void error(String error) {
      errors.add(error);
    }

    RunSummary summary(Duration elapsed) {
      synchronized (this) {
        return new RunSummary(List.copyOf(committed), List.copyOf(failed), List.copyOf(recovered),
            List.copyOf(errors), elapsed);
      }
    }
  }

  /** Builds a {@link BatchRunner}. */
  public static final class Builder {
    private final ProfileRegistry profiles;
    private final Ledger ledger;
    private final Function<TableProfile, Launcher> launchers;
    private Clock clock = Clock.systemUTC();
    private RunOptions options = RunOptions.DEFAULTS;
    private Consumer<BatchEvent> events = event -> {};
    private Supplier<Storage> storage = () -> StorageOptions.getDefaultInstance().getService();

    private Builder(ProfileRegistry profiles, Ledger ledger, Function<TableProfile, Launcher> launchers) {
      this.profiles = Objects.requireNonNull(profiles, "profiles");
      this.ledger = Objects.requireNonNull(ledger, "ledger");
      this.launchers = Objects.requireNonNull(launchers, "launchers");
    }

    /** Times the job and names listed batches; the system UTC clock by default. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    public Builder options(RunOptions options) {
      this.options = Objects.requireNonNull(options, "options");
      return this;
    }

    /** Receives every {@link BatchEvent}, from the tables' worker threads; must be thread-safe. */
    public Builder events(Consumer<BatchEvent> events) {
      this.events = Objects.requireNonNull(events, "events");
      return this;
    }

    /**
     * The GCS client for {@code gs://} manifests and listings, created on first use; by default
     * from the environment's credentials.
     */
    public Builder storage(Supplier<Storage> storage) {
      this.storage = Objects.requireNonNull(storage, "storage");
      return this;
    }

    public BatchRunner build() {
      return new BatchRunner(this);
    }
  }
}
