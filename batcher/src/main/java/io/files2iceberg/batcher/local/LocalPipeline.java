package io.files2iceberg.batcher.local;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.batcher.cli.ConfigProblems;
import io.files2iceberg.batcher.launch.Launchers;
import io.files2iceberg.batcher.launch.LocalSparkLauncher;
import io.files2iceberg.batcher.output.Counted;
import io.files2iceberg.batcher.output.EventJson;
import io.files2iceberg.batcher.plan.BatchEvent;
import io.files2iceberg.batcher.plan.BatchEvent.BatchClaimed;
import io.files2iceberg.batcher.plan.BatchEvent.BatchCommitted;
import io.files2iceberg.batcher.plan.BatchEvent.BatchFailed;
import io.files2iceberg.batcher.plan.BatchEvent.BatchLaunched;
import io.files2iceberg.batcher.plan.BatchEvent.BatchReattached;
import io.files2iceberg.batcher.plan.BatchEvent.BatchRecovered;
import io.files2iceberg.batcher.plan.BatchEvent.PartitionsSuperseded;
import io.files2iceberg.batcher.plan.BatchRunner;
import io.files2iceberg.batcher.plan.RunOptions;
import io.files2iceberg.batcher.plan.RunSummary;
import io.files2iceberg.batcher.plan.TableStops;
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
import java.nio.file.Path;
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
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
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
  /** How long the listener may take to come up. */
  static final Duration LISTENER_START_TIMEOUT = Duration.ofSeconds(90);

  private final ProfileRegistry profiles;
  private final Ledger ledger;
  private final Launchers launchers;
  private final ListenerProcess listener;
  private final LandingNotifier notifier;
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

  private LocalPipeline(ProfileRegistry profiles, Ledger ledger, Launchers launchers, ListenerProcess listener,
      LandingNotifier notifier, RunOptions options, PipelineOutput output, Clock clock) {
    this.profiles = profiles;
    this.ledger = ledger;
    this.launchers = launchers;
    this.listener = listener;
    this.notifier = notifier;
    this.output = output;
    this.clock = clock;
    this.runner = BatchRunner.builder(profiles, ledger, launchers)
        .clock(clock)
        .options(options)
        .events(this::print)
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
        new LocalPipeline(profiles, ledger, launchers, listener, notifier, options, output, clock);
    output.fact("listener up on " + listener.baseUri() + " (pid " + listener.pid() + ", log " + listener.log() + ")",
        () -> EventJson.event("listener_started").put("uri", listener.baseUri().toString()).put("pid", listener.pid())
            .put("log", listener.log().toString()));
    return pipeline;
  }

  /** Posts what is new in the landing folder; prints a line when anything was posted. */
  public LandingNotifier.ScanResult scan() throws InterruptedException {
    LandingNotifier.ScanResult result = notifier.scan();
    if (result.posted() > 0 || result.pending() > 0) {
      output.fact("posted " + result.describe(), () -> posted(result));
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
      TimeUnit.MILLISECONDS.sleep(interval.toMillis());
    }
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
    output.fact(line(event), () -> EventJson.batch(event));
  }

  /** Whether this pipeline printed the failure of {@code batchId}, its error with it. */
  public boolean printedFailure(String batchId) {
    return failedBatches.contains(batchId);
  }

  /** The event as a line for people. */
  private static String line(BatchEvent event) {
    if (event instanceof BatchClaimed claimed) {
      return "batch " + claimed.batchId() + " claimed: " + Counted.of(claimed.files(), "file", "files")
          + " in " + partitions(claimed.partitions()) + " (" + claimed.table() + ", mode "
          + claimed.mode().code() + ")";
    } else if (event instanceof BatchLaunched launched) {
      return "batch " + launched.batchId() + " launched: " + launched.jobId()
          + (launched.attempt() > 1 ? " (attempt " + launched.attempt() + ")" : "");
    } else if (event instanceof BatchRecovered recovered) {
      return "batch " + recovered.batchId() + " recovered after its lease expired; launching attempt "
          + recovered.attempt();
    } else if (event instanceof BatchReattached reattached) {
      return "batch " + reattached.batchId() + " recovered after its lease expired; its attempt "
          + reattached.attempt() + " (" + reattached.jobId() + ") still runs, waiting for it";
    } else if (event instanceof PartitionsSuperseded superseded) {
      return "partitions " + partitions(superseded.partitions()) + " superseded by batch " + superseded.batchId()
          + " (mode last loads only the newest)";
    } else if (event instanceof BatchCommitted done) {
      BatchLoadReport report = done.report();
      if (report.alreadyCommitted()) {
        return "batch " + done.batchId() + " committed: already in snapshot " + report.snapshotId()
            + " (ledger finalized)";
      }
      return "batch " + done.batchId() + " committed: snapshot " + report.snapshotId() + ", "
          + Counted.of(report.metrics().rowsInserted(), "row", "rows") + " inserted, " + report.metrics().rowsUpdated()
          + " updated";
    } else if (event instanceof BatchFailed batchFailed) {
      return "batch " + batchFailed.batchId() + " failed: " + batchFailed.error() + " ("
          + batchFailed.after().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + ")";
    }
    return event.describe();
  }

  /**
   * Prints what this pipeline committed: one row per batch (table, batch id, partitions, files,
   * rows inserted and updated, snapshot) and a total, then each table's state in the ledger; or,
   * when nothing was committed, that every table is unchanged.
   */
  public void printSummary(Duration elapsed) {
    Map<String, TableStatus> statuses = statuses();
    List<CommittedBatch> batches = committed();
    if (output.isJson()) {
      printSummaryEvents(elapsed, statuses.values(), batches);
      return;
    }
    if (batches.isEmpty()) {
      for (TableStatus status : statuses.values()) {
        say("nothing new; table " + status.table() + " unchanged ("
            + status.lastCommitted().flatMap(BatchRecord::snapshotId).map(id -> "snapshot " + id).orElse("no snapshot yet")
            + ", " + ingested(status) + ")");
      }
      return;
    }
    say("done in " + elapsed.toSeconds() + "s: " + Counted.of(batches.size(), "batch", "batches")
        + " committed");
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"table", "batch", "partitions", "files", "inserted", "updated", "snapshot"});
    long files = 0;
    long inserted = 0;
    long updated = 0;
    java.util.Set<String> partitions = new java.util.TreeSet<>();
    for (CommittedBatch batch : batches) {
      BatchLoadReport report = batch.report();
      rows.add(new String[] {batch.table(), batch.batchId(), partitions(batch.partitions()),
          Integer.toString(batch.files()), Long.toString(report.metrics().rowsInserted()),
          Long.toString(report.metrics().rowsUpdated()), Long.toString(report.snapshotId())});
      files += batch.files();
      inserted += report.metrics().rowsInserted();
      updated += report.metrics().rowsUpdated();
      batch.partitions().forEach(p -> partitions.add(batch.table() + "|" + p));
    }
    rows.add(new String[] {"total", "", Counted.of(partitions.size(), "partition", "partitions"),
        Long.toString(files), Long.toString(inserted), Long.toString(updated), ""});
    int[] widths = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder("  ");
      for (int i = 0; i < row.length; i++) {
        boolean number = i == 3 || i == 4 || i == 5;
        String padding = " ".repeat(widths[i] - row[i].length());
        line.append(number ? padding + row[i] : row[i] + (i < row.length - 1 ? padding : "")).append("  ");
      }
      output.text(line.toString().stripTrailing());
    }
    for (TableStatus status : statuses.values()) {
      say("table " + status.table() + ": " + ingested(status)
          + status.lastCommitted().flatMap(BatchRecord::snapshotId).map(id -> ", current snapshot " + id).orElse(""));
    }
  }

  /**
   * The summary as events: a {@code table} event per table with its partitions and files by state
   * and its current snapshot, then {@code summary} (batches committed, their partitions, files and
   * rows; all zero when nothing was new).
   */
  private void printSummaryEvents(Duration elapsed, Collection<TableStatus> statuses, List<CommittedBatch> batches) {
    Set<String> partitions = new TreeSet<>();
    batches.forEach(batch -> batch.partitions().forEach(p -> partitions.add(batch.table() + "|" + p)));
    ObjectNode summary = EventJson.event("summary").put("elapsedMillis", elapsed.toMillis())
        .put("batchesCommitted", batches.size()).put("partitions", partitions.size())
        .put("files", batches.stream().mapToLong(CommittedBatch::files).sum())
        .put("rowsInserted", batches.stream().mapToLong(b -> b.report().metrics().rowsInserted()).sum())
        .put("rowsUpdated", batches.stream().mapToLong(b -> b.report().metrics().rowsUpdated()).sum())
        .put("rowsDeleted", batches.stream().mapToLong(b -> b.report().metrics().rowsDeleted()).sum());
    for (TableStatus status : statuses) {
      ObjectNode table = EventJson.event("table").put("table", status.table());
      Optional<Long> snapshot = status.lastCommitted().flatMap(BatchRecord::snapshotId);
      if (snapshot.isPresent()) {
        table.put("snapshotId", snapshot.get());
      } else {
        table.putNull("snapshotId");
      }
      ObjectNode byState = table.putObject("partitions");
      status.partitionsByState().forEach((state, count) -> byState.put(state.code(), count));
      ObjectNode files = table.putObject("files");
      status.filesByState().forEach((state, count) -> files.put(state.code(), count));
      output.event(() -> table);
    }
    // The summary comes last, as in every --json output.
    output.event(() -> summary);
  }

  /** {@code posted}: what one scan of the landing folder posted, by the listener's outcome. */
  private static ObjectNode posted(LandingNotifier.ScanResult scan) {
    ObjectNode node = EventJson.event("posted").put("posted", scan.posted()).put("markers", scan.markers());
    ObjectNode outcomes = node.putObject("outcomes");
    for (LandingNotifier.Outcome outcome : LandingNotifier.Outcome.values()) {
      if (scan.count(outcome) > 0) {
        outcomes.put(outcome.code(), scan.count(outcome));
      }
    }
    return node.put("pending", scan.pending());
  }

  /** {@code 3 partitions ingested (10 files)}, plus any partitions in other states. */
  private static String ingested(TableStatus status) {
    long partitions = status.partitionsByState().getOrDefault(PartitionState.INGESTED, 0L);
    long files = status.filesByState().getOrDefault(io.files2iceberg.core.ledger.FileState.INGESTED, 0L);
    StringBuilder text = new StringBuilder()
        .append(Counted.of(partitions, "partition", "partitions")).append(" ingested (")
        .append(Counted.of(files, "file", "files")).append(')');
    status.partitionsByState().forEach((state, count) -> {
      if (state != PartitionState.INGESTED && count > 0) {
        text.append(", ").append(count).append(' ').append(state.code());
      }
    });
    return text.toString();
  }

  /** Up to three partitions, then how many more. */
  static String partitions(List<String> partitions) {
    if (partitions.isEmpty()) {
      return "no partition";
    }
    if (partitions.size() <= 3) {
      return String.join(", ", partitions);
    }
    return String.join(", ", partitions.subList(0, 3)) + " and " + (partitions.size() - 3) + " more";
  }

  /** A line for people (none with {@code --json}). */
  private void say(String line) {
    output.say(line);
  }

  /** Stops the listener (gracefully), then closes the launchers and the ledger. */
  @Override
  public void close() {
    try {
      listener.close();
    } finally {
      try {
        launchers.close();
      } finally {
        ledger.close();
      }
    }
  }
}
