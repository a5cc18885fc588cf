package io.files2iceberg.batcher.engine;

import com.google.cloud.storage.Storage;
import io.files2iceberg.batcher.engine.launch.Launcher;
import io.files2iceberg.batcher.events.ChangePublisher;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.profile.StorageSettings;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.core.storage.StorageClients;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The batcher's run: turns READY partitions into batches, runs the job on each and settles the
 * ledger.
 *
 * <p>{@link #runOnce()} gives every table of the registry that the ledger drives one turn (a table
 * that lists storage runs only when named: {@link #runOnce(Collection)}), tables in parallel up to {@link
 * RunOptions#concurrency()}, and one batch at a time per table (claims are exclusive: concurrent
 * MERGE commits to one table would conflict). A table's turn ({@link TableTurn}) recovers its
 * batches whose lease expired ({@link Recovery}), stops at a quarantined file under {@code
 * strict-pattern = true} ({@link TableStops}), then plans batches by mode ({@link Planner}) and
 * runs each: manifest written, RUNNING, launched ({@link Launch}), watched with its lease renewed
 * ({@link JobWatcher}), settled by the job's outcome ({@link Settlement}, written by {@link
 * SettlementWriter}). The job walks the table's snapshot ancestry before reading anything, so a
 * batch that is already in the table is only finalized in the ledger; the batcher never reads
 * Iceberg itself.
 *
 * <p>With a {@link ChangePublisher}, the change events the ledger's outbox holds are published at
 * the start of every run and after every commit (failures are logged, and the events left for
 * the next time: the batch stays committed).
 *
 * <p>Tables whose catalog is JDBC on one SQLite file (the embedded catalog) take turns, one job at
 * a time per file ({@link CatalogPermits}).
 *
 * <p>Not thread-safe: one caller runs {@link #runOnce()} at a time. Events are delivered from the
 * tables' worker threads.
 */
public final class BatchRunner {
  private static final Logger LOG = LoggerFactory.getLogger(BatchRunner.class);

  private final ProfileRegistry profiles;
  private final Ledger ledger;
  private final Function<TableProfile, Launcher> launchers;
  private final Clock clock;
  private final RunOptions options;
  private final Consumer<BatchEvent> events;
  private final TableTurn.Shared shared;
  private final Optional<ChangePublisher> changes;

  private BatchRunner(Builder builder) {
    this.profiles = builder.profiles;
    this.ledger = builder.ledger;
    this.launchers = builder.launchers;
    this.clock = builder.clock;
    this.options = builder.options;
    this.changes = builder.changes;
    this.events = changes.map(publisher -> publishingAfterCommits(builder.events, publisher)).orElse(builder.events);
    this.shared = TableTurn.Shared.of(ledger, profiles.deployment(), builder.storage, clock, options);
  }

  /** The events, each commit followed by publishing the change events pending (its own among them). */
  private static Consumer<BatchEvent> publishingAfterCommits(Consumer<BatchEvent> events, ChangePublisher publisher) {
    return event -> {
      events.accept(event);
      if (event instanceof BatchEvent.BatchCommitted) {
        publisher.publishPending();
      }
    };
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

  /**
   * Gives one table its turn (see the class comment): its expired batches are recovered, then its
   * READY partitions claimed and loaded until nothing is READY or a batch does not commit. For the
   * operator commands' {@code --run}.
   */
  public RunSummary runTable(TableProfile profile) {
    Instant start = clock.instant();
    changes.ifPresent(ChangePublisher::publishPending);
    RunEvents run = new RunEvents(events);
    List<BatchRecord> stale = ledger.findExpiredLeases().stream()
        .filter(batch -> batch.table().equals(profile.table())).toList();
    List<TableStops.Stop> stoppedBy = TableStops.read(ledger, List.of(profile)).getOrDefault(profile.table(), List.of());
    turn(profile, run).run(stale, stoppedBy);
    return run.summary(Duration.between(start, clock.instant()));
  }

  /**
   * Loads the given files of one table in listed batches of {@code max-batch-size} files, as a
   * backfill ({@code save-checkpoint = false}) does: the ledger is neither read nor written. For
   * {@code replay --no-checkpoint}, which chooses the files itself.
   */
  public RunSummary runListed(TableProfile profile, List<ManifestFile> files) {
    Instant start = clock.instant();
    RunEvents run = new RunEvents(events);
    turn(profile, run).runListed(IngestionType.backfill(), files);
    return run.summary(Duration.between(start, clock.instant()));
  }

  private TableTurn turn(TableProfile profile, RunEvents run) {
    return new TableTurn(shared, profile, launchers.apply(profile), run);
  }

  private RunSummary run(List<TableProfile> tables) {
    Instant start = clock.instant();
    // What an earlier run committed but could not publish goes first.
    changes.ifPresent(ChangePublisher::publishPending);
    RunEvents run = new RunEvents(events);
    Map<String, List<BatchRecord>> expired;
    Map<String, List<TableStops.Stop>> stops;
    try {
      expired = ledger.findExpiredLeases().stream()
          .collect(Collectors.groupingBy(BatchRecord::table, LinkedHashMap::new, Collectors.toList()));
    } catch (RuntimeException e) {
      LOG.error("Cannot look for expired batches: {}", e.toString());
      run.error("ledger: cannot look for expired batches: " + e.getMessage());
      return run.summary(Duration.between(start, clock.instant()));
    }
    try {
      stops = TableStops.read(ledger, profiles.profiles());
    } catch (RuntimeException e) {
      LOG.error("Cannot read the quarantine: {}", e.toString());
      run.error("ledger: cannot read the quarantine: " + e.getMessage());
      return run.summary(Duration.between(start, clock.instant()));
    }
    expired.forEach((table, batches) -> {
      if (profiles.byTable(table).isEmpty()) {
        LOG.warn("Table {}: batches {} have expired leases but no profile loads the table; left as they are", table,
            batches.stream().map(BatchRecord::batchId).toList());
      }
    });
    Map<String, Runnable> turns = new LinkedHashMap<>();
    for (TableProfile profile : tables) {
      List<BatchRecord> stale = expired.getOrDefault(profile.table(), List.of());
      List<TableStops.Stop> stoppedBy = stops.getOrDefault(profile.table(), List.of());
      turns.put(profile.table(), () -> turn(profile, run).run(stale, stoppedBy));
    }
    TablePool.runAll(turns, options.concurrency(), run);
    RunSummary summary = run.summary(Duration.between(start, clock.instant()));
    LOG.info("Run: {}", summary.describe());
    return summary;
  }

  /** Builds a {@link BatchRunner}. */
  public static final class Builder {
    private final ProfileRegistry profiles;
    private final Ledger ledger;
    private final Function<TableProfile, Launcher> launchers;
    private Clock clock = Clock.systemUTC();
    private RunOptions options = RunOptions.DEFAULTS;
    private Consumer<BatchEvent> events = event -> {};
    private Supplier<Storage> storage;
    private Optional<ChangePublisher> changes = Optional.empty();

    private Builder(ProfileRegistry profiles, Ledger ledger, Function<TableProfile, Launcher> launchers) {
      this.profiles = Objects.requireNonNull(profiles, "profiles");
      StorageSettings settings = profiles.deployment().storage();
      this.storage = () -> StorageClients.shared(settings);
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
     * the deployment's ({@code storage.*}, {@link StorageClients}).
     */
    public Builder storage(Supplier<Storage> storage) {
      this.storage = Objects.requireNonNull(storage, "storage");
      return this;
    }

    /**
     * Publishes the ledger's change events at the start of each run and after each commit; none
     * by default (the events then wait in the outbox for a runner that has one).
     */
    public Builder changes(ChangePublisher publisher) {
      this.changes = Optional.of(publisher);
      return this;
    }

    public BatchRunner build() {
      return new BatchRunner(this);
    }
  }
}
