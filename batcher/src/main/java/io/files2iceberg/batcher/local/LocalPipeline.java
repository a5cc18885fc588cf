package io.files2iceberg.batcher.local;

import io.files2iceberg.batcher.events.ChangePublisher;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.batcher.cli.ConfigProblems;
import io.files2iceberg.batcher.cli.ErrorOutput;
import io.files2iceberg.batcher.engine.launch.Launchers;
import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import io.files2iceberg.batcher.output.EventJson;
import io.files2iceberg.batcher.engine.BatchEvent;
import io.files2iceberg.batcher.engine.BatchEvent.BatchClaimed;
import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.batcher.engine.BatchEvent.BatchFailed;
import io.files2iceberg.batcher.engine.BatchRunner;
import io.files2iceberg.batcher.engine.RunOptions;
import io.files2iceberg.batcher.engine.RunSummary;
import io.files2iceberg.batcher.engine.TableStops;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.Ledgers;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.TableStatus;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileError;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.profile.TableProfile;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * The embedded pipeline on one machine, the same code paths as production with other adapters: a
 * landing folder and {@link LandingNotifier} for the bucket and Pub/Sub push, the real listener as
 * a child process ({@link ListenerProcess}), the ledger of the profiles (SQLite in the home by
 * default) and the {@link BatchRunner} with the launcher of each profile (the local Spark launcher
 * unless a profile names Dataproc).
 *
 * <p>Progress goes to the {@link PipelineOutput}, one line or JSON event per fact; every batch
 * that committed while this pipeline ran is kept for {@link #committed()}.
 */
public final class LocalPipeline implements AutoCloseable {
  /** The shortest pause between two scans. */
  private static final Duration MIN_PAUSE = Duration.ofMillis(20);
  /** How long the listener may take to come up. */
  static final Duration LISTENER_START_TIMEOUT = Duration.ofSeconds(90);

  private final ProfileRegistry profiles;
  private final Ledger ledger;
  private final Launchers launchers;
  private final ListenerProcess listener;
  private final LandingNotifier notifier;
  private final LandingWatch watch;
  /** When the first file the last scan found still being written will have settled. */
  private Optional<Instant> nextSettle = Optional.empty();
  private final BatchRunner runner;
  private final PipelineOutput output;
  private final Clock clock;
  private final Map<String, BatchClaimed> claims = new LinkedHashMap<>();
  private final List<CommittedBatch> committed = new ArrayList<>();
  /** The batches whose failure was printed, with its error. */
  private final Set<String> failedBatches = ConcurrentHashMap.newKeySet();
  private Optional<String> waitingFor = Optional.empty();
  /** Whether the batcher has run once: the first round always runs it (recovery of expired leases). */
  private boolean ranOnce;
  private final ChangePublisher changes;

  private LocalPipeline(ProfileRegistry profiles, Ledger ledger, Launchers launchers, ListenerProcess listener,
      LandingNotifier notifier, RunOptions options, PipelineOutput output, Clock clock, ChangePublisher changes) {
    this.changes = changes;
    this.profiles = profiles;
    this.ledger = ledger;
    this.launchers = launchers;
    this.listener = listener;
    this.notifier = notifier;
    this.watch = LandingWatch.on(notifier.landing());
    this.output = output;
    this.clock = clock;
    this.runner = BatchRunner.builder(profiles, ledger, launchers)
        .clock(clock)
        .options(options)
        .events(this::print)
        .changes(changes)
        .build();
  }

  /**
   * Opens the ledger, starts the listener on the profiles and the home, and checks that every
   * profile's jobs can be launched.
   *
   * @param config the profile folder (or file) the listener loads, the one {@code profiles} came from
   * @param landing the folder the notifier watches
   * @param sparkJobTarget spark-job's {@code target} folder, for the local launcher
   * @param listenerTarget listener's {@code target} folder
   * @throws IllegalArgumentException when a profile cannot match a file of the landing folder
   *     ({@link LandingScope}) or its jobs cannot be launched (a configuration error, one line per
   *     problem)
   * @throws IllegalStateException when the listener does not come up
   */
  public static LocalPipeline start(ProfileRegistry profiles, Path config, Home home, Path landing,
      Path sparkJobTarget, Path listenerTarget, RunOptions options, PipelineOutput output)
      throws InterruptedException {
    // Before anything starts: a profile that can match nothing here would make every scan say
    // "nothing new" for ever.
    List<ProfileError> unreachable = LandingScope.unreachable(profiles.profiles(), landing);
    if (!unreachable.isEmpty()) {
      throw new IllegalArgumentException(
          ConfigProblems.describe(config.toString(), unreachable.stream().map(ProfileError::toString).toList()));
    }
    Clock clock = Clock.systemUTC();
    Launchers launchers = Launchers.discover(profiles.deployment(), () -> LocalSparkLauncher.forMode(sparkJobTarget, home,
        profiles.deployment().job()));
    List<String> problems = launchers.check(profiles.profiles());
    if (!problems.isEmpty()) {
      launchers.close();
      throw new IllegalArgumentException(problems.size() + " problem(s) keep jobs from starting:"
          + System.lineSeparator() + "  " + String.join(System.lineSeparator() + "  ", problems));
    }
    // A warm driver starts its Spark context while the listener starts and the first files land.
    launchers.prepare(profiles.profiles());
    Ledger ledger = Ledgers.open(profiles.deployment().ledger(), clock);
    ListenerProcess listener;
    try {
      listener = ListenerProcess.start(listenerTarget, config, profiles.deploymentFile(), home, LISTENER_START_TIMEOUT);
    } catch (RuntimeException | InterruptedException e) {
      ledger.close();
      launchers.close();
      throw e;
    }
    Set<String> markers = profiles.profiles().stream()
        .map(p -> p.extract().batchFile().successFileName())
        .collect(Collectors.toSet());
    LandingNotifier notifier =
        new LandingNotifier(landing, listener.pushUri(profiles.deployment().listener().pushPath()), markers, clock);
    LocalPipeline pipeline =
        new LocalPipeline(profiles, ledger, launchers, listener, notifier, options, output, clock,
            ChangePublisher.of(profiles.deployment(), home, ledger));
    output.fact("listener up on " + listener.baseUri() + " (pid " + listener.pid() + ", log " + listener.log() + ")",
        () -> EventJson.event("listener_started").put("uri", listener.baseUri().toString()).put("pid", listener.pid())
            .put("log", listener.log().toString()));
    return pipeline;
  }

  /**
   * {@link #start} with spark-job's and the listener's builds found from the environment or the
   * working directory ({@link LocalSparkLauncher#locateSparkJobTarget}, {@link
   * ListenerProcess#locateTarget}); empty after printing the configuration problem on {@code err}.
   */
  public static Optional<LocalPipeline> startHere(ProfileRegistry profiles, Path config, Home home, Path landing,
      RunOptions options, PipelineOutput output, PrintWriter err) throws InterruptedException {
    try {
      return Optional.of(start(profiles, config, home, landing,
          LocalSparkLauncher.locateSparkJobTarget(System.getenv(), Path.of("")),
          ListenerProcess.locateTarget(System.getenv(), Path.of("")), options, output));
    } catch (IllegalArgumentException e) {
      ErrorOutput.print(err, e.getMessage());
      return Optional.empty();
    }
  }

  /** Posts what is new in the landing folder; prints a line when anything was posted. */
  public LandingNotifier.ScanResult scan() throws InterruptedException {
    LandingNotifier.ScanResult result = notifier.scan();
    nextSettle = result.nextSettle();
    if (result.posted() > 0 || result.pending() > 0) {
      output.fact("posted " + result.describe(), () -> PipelineSummary.posted(result));
    }
    return result;
  }

  /**
   * Scans and runs batches until the pipeline has caught up: a scan posts nothing new and no table
   * has a partition READY or CLAIMED or a batch in flight. A partition still OPEN (its marker has
   * not landed) does not hold it up.
   *
   * @param interval the pause between rounds while batches of another run hold partitions
   * @param timeout the longest it waits
   * @return the state reached, with the partitions FAILED for good (which do not hold it up)
   * @throws IllegalStateException when it has not caught up within {@code timeout}
   */
  public Progress catchUp(Duration interval, Duration timeout) throws InterruptedException {
    Instant deadline = clock.instant().plus(timeout);
    while (true) {
      LandingNotifier.ScanResult scan = scan();
      Map<String, TableStatus> before = statuses();
      // A table stopped by a strict-pattern rejection keeps its READY partitions until an operator
      // clears it: it does not hold the catch-up (as FAILED partitions do not), it is reported.
      Set<String> stopped = stops().keySet();
      // runOnce gives the ledger-driven tables their turn; a table that lists storage (mode full,
      // backfills) runs only when asked (batch run-once --table, backfill), never because some
      // file arrived: each of its runs loads every listed file again.
      boolean arrived = scan.count(LandingNotifier.Outcome.RECORDED) + scan.count(LandingNotifier.Outcome.PARTITION_READY)
          + scan.count(LandingNotifier.Outcome.ACKNOWLEDGED) > 0;
      boolean work = !ranOnce || arrived || hasWork(before, stopped);
      ranOnce = true;
      if (work) {
        RunSummary summary = runner.runOnce();
        summary.errors().forEach(output::error);
      }
      Map<String, TableStatus> after = statuses();
      Map<String, List<TableStops.Stop>> stops = stops();
      boolean busy = hasWork(after, stops.keySet());
      if (!busy && scan.isQuiet() && !work) {
        waitingFor = Optional.empty();
        return new Progress(after.values().stream().flatMap(s -> s.failedPartitions().stream()).toList(),
            stops.values().stream().flatMap(List::stream).toList());
      }
      if (!busy && scan.isQuiet()) {
        continue; // one more quiet round confirms nothing arrived while the batches ran
      }
      if (clock.instant().isAfter(deadline)) {
        throw new IllegalStateException("Not caught up after " + timeout.toSeconds() + "s: " + describe(after));
      }
      if (busy) {
        announceWait(after);
      }
      pause(interval);
    }
  }

  /**
   * Waits for the next scan: until a file or folder appears in the landing folder, a file the last
   * scan found still being written has settled, or {@code interval} has passed, whichever comes
   * first. A new success marker is thus posted within a fraction of a second, not at the next
   * interval.
   */
  public void pause(Duration interval) throws InterruptedException {
    Duration wait = interval;
    if (nextSettle.isPresent()) {
      Duration untilSettled = Duration.between(clock.instant(), nextSettle.get());
      wait = untilSettled.compareTo(wait) < 0 ? untilSettled : wait;
      wait = wait.compareTo(MIN_PAUSE) < 0 ? MIN_PAUSE : wait;
    }
    watch.await(wait);
  }

  /**
   * Where {@link #catchUp} stopped: nothing left for the batcher.
   *
   * @param failedPartitions partitions that ran out of attempts (now or before): an operator's turn
   * @param stops quarantined files that stop their tables (strict-pattern): an operator's turn
   */
  public record Progress(List<PartitionRecord> failedPartitions, List<TableStops.Stop> stops) {
    public Progress {
      failedPartitions = List.copyOf(failedPartitions);
      stops = List.copyOf(stops);
    }

    /** Whether something waits for an operator. */
    public boolean needsAnOperator() {
      return !failedPartitions.isEmpty() || !stops.isEmpty();
    }
  }

  private Map<String, List<TableStops.Stop>> stops() {
    return TableStops.read(ledger, profiles.profiles());
  }

  /** Whether a table that is not stopped has something for the batcher. */
  private static boolean hasWork(Map<String, TableStatus> statuses, Set<String> stopped) {
    return statuses.entrySet().stream().anyMatch(e -> !stopped.contains(e.getKey()) && hasWork(e.getValue()));
  }

  /** Whether a table has something for the batcher: READY or CLAIMED partitions, a batch in flight. */
  private static boolean hasWork(TableStatus status) {
    return status.partitionsByState().getOrDefault(PartitionState.READY, 0L) > 0
        || status.partitionsByState().getOrDefault(PartitionState.CLAIMED, 0L) > 0
        || !status.inFlight().isEmpty();
  }

  /** Says once which batch holds partitions until it ends or its lease expires. */
  private void announceWait(Map<String, TableStatus> statuses) {
    Optional<BatchRecord> held = statuses.values().stream().flatMap(s -> s.inFlight().stream()).findFirst();
    held.ifPresent(batch -> {
      if (!waitingFor.equals(Optional.of(batch.batchId()))) {
        waitingFor = Optional.of(batch.batchId());
        output.fact("batch " + batch.batchId() + " of " + batch.table() + " is " + batch.state().code()
            + batch.leaseUntil().map(until -> "; recovered once its lease expires at " + until).orElse(""),
            () -> {
              ObjectNode node = EventJson.event("waiting").put("table", batch.table()).put("batchId", batch.batchId())
                  .put("state", batch.state().code());
              return batch.leaseUntil().isPresent() ? node.put("leaseUntil", batch.leaseUntil().get().toString())
                  : node.putNull("leaseUntil");
            });
      }
    });
  }

  private String describe(Map<String, TableStatus> statuses) {
    return statuses.values().stream()
        .map(s -> s.table() + " partitions " + s.partitionsByState() + ", " + s.inFlight().size() + " batch(es) in flight")
        .collect(Collectors.joining("; "));
  }

  /** The ledger's view of every table whose batches the ledger drives (modes incremental, last). */
  public Map<String, TableStatus> statuses() {
    Map<String, TableStatus> statuses = new LinkedHashMap<>();
    for (TableProfile profile : profiles.profiles()) {
      if (isLedgerDriven(profile)) {
        statuses.put(profile.table(), ledger.tableStatus(profile.table()));
      }
    }
    return statuses;
  }

  private static boolean isLedgerDriven(TableProfile profile) {
    return BatchRunner.isLedgerDriven(profile);
  }

  /** Every batch that committed while this pipeline ran, in commit order. */
  public List<CommittedBatch> committed() {
    return List.copyOf(committed);
  }

  public Ledger ledger() {
    return ledger;
  }

  public ListenerProcess listener() {
    return listener;
  }

  /**
   * A batch that committed, with what it claimed.
   *
   * @param partitions the partition tokens it loaded (empty when its claim was not seen)
   * @param files the files it read
   */
  public record CommittedBatch(String table, String batchId, List<String> partitions, int files,
      BatchLoadReport report) {
    public CommittedBatch {
      partitions = List.copyOf(partitions);
      Objects.requireNonNull(report, "report");
    }
  }

  private void print(BatchEvent event) {
    if (event instanceof BatchClaimed claimed) {
      synchronized (claims) {
        claims.put(claimed.batchId(), claimed);
      }
    } else if (event instanceof BatchCommitted done) {
      BatchLoadReport report = done.report();
      BatchClaimed claimed;
      synchronized (claims) {
        claimed = claims.get(done.batchId());
      }
      synchronized (committed) {
        committed.add(new CommittedBatch(done.table(), done.batchId(),
            claimed == null ? List.of() : claimed.partitions(),
            claimed == null ? (int) report.metrics().files() : claimed.files(), report));
      }
    } else if (event instanceof BatchFailed failed) {
      failedBatches.add(failed.batchId());
    }
    output.fact(PipelineSummary.line(event), () -> EventJson.batch(event));
  }

  /** Whether this pipeline printed the failure of {@code batchId}, its error with it. */
  public boolean printedFailure(String batchId) {
    return failedBatches.contains(batchId);
  }

  /**
   * Prints what this pipeline committed: one row per batch (table, batch id, partitions, files,
   * rows inserted and updated, snapshot) and a total, then each table's state in the ledger; or,
   * when nothing was committed, that every table is unchanged.
   */
  public void printSummary(Duration elapsed) {
    new PipelineSummary(output).print(elapsed, statuses().values(), committed());
  }

  /** Stops the listener (gracefully), then closes the launchers and the ledger. */
  @Override
  public void close() {
    watch.close();
    try {
      listener.close();
    } finally {
      try {
        launchers.close();
      } finally {
        changes.close();
        ledger.close();
      }
    }
  }
}
