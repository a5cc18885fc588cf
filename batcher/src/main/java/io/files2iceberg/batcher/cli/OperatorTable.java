package io.files2iceberg.batcher.cli;

import io.files2iceberg.batcher.events.ChangePublisher;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.batcher.engine.launch.Launchers;
import io.files2iceberg.batcher.listing.PartitionRange;
import io.files2iceberg.batcher.output.EventJson;
import io.files2iceberg.batcher.output.JsonLines;
import io.files2iceberg.batcher.engine.BatchRunner;
import io.files2iceberg.batcher.engine.RunOptions;
import io.files2iceberg.batcher.engine.RunSummary;
import io.files2iceberg.batcher.engine.StorageListing;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.profile.StorageSettings;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.core.storage.StorageClients;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What {@code replay}, {@code backfill} and {@code reconcile} share: the table option, its
 * profile, the storage listing, progress on stderr, JSON output, and running the batcher for the
 * table ({@code --run}, {@code replay --no-checkpoint}); the run's summary is printed as {@code
 * batch run-once} prints it ({@link #summarize}).
 */
public final class OperatorTable {
  private OperatorTable() {}

  /** The listing through the deployment's GCS client, created on the first {@code gs://} listing. */
  public static StorageListing listing(ProfileRegistry profiles) {
    StorageSettings storage = profiles.deployment().storage();
    return new StorageListing(() -> StorageClients.shared(storage));
  }

  /**
   * The profile loading {@code table}.
   *
   * @throws CommandLineProblem naming the tables the profiles load, when none loads it
   */
  public static TableProfile profile(ProfileRegistry profiles, String table, Path config) {
    return profiles.byTable(table).orElseThrow(() -> new CommandLineProblem("--table " + table + ": no profile in "
        + config + " loads it; tables there: " + String.join(", ", profiles.profiles().stream()
        .map(TableProfile::table).sorted().toList())));
  }

  /**
   * The partition range of {@code --from}/{@code --to} (or {@code --partition}), as {@code range} reads it.
   *
   * @throws CommandLineProblem when a value does not fit the table's partitioning
   */
  public static PartitionRange range(Supplier<PartitionRange> range) {
    try {
      return range.get();
    } catch (IllegalArgumentException e) {
      throw new CommandLineProblem(e.getMessage());
    }
  }

  /** Progress lines on stderr, prefixed with the command. */
  public static Consumer<String> progress(String command, PrintWriter err) {
    return line -> {
      err.println("[" + command + "] " + line);
      err.flush();
    };
  }

  /**
   * {@code run: <summary>} on stdout (with {@code json}, the {@code run_finished} event's line),
   * each error on stderr; 0 when clean, else {@link ExitCode#FAILED}.
   */
  public static int summarize(RunSummary summary, boolean json, PrintWriter out, PrintWriter err) {
    if (json) {
      JsonLines.print(out, EventJson.runFinished(summary));
    } else {
      out.println("run: " + summary.describe());
    }
    summary.errors().forEach(error -> ErrorOutput.print(err, error));
    out.flush();
    err.flush();
    return summary.isClean() ? 0 : ExitCode.FAILED;
  }

  /** The names, comma-separated, or {@code -} for none. */
  public static String names(List<String> names) {
    return names.isEmpty() ? "-" : String.join(", ", names);
  }

  /** The report's fields (its record components) on one JSON line of that kind. */
  public static void printJson(PrintWriter out, String kind, Object report) {
    JsonLines.print(out, record(kind, report));
  }

  /** The report's fields (its record components) in a record of that kind. */
  public static ObjectNode record(String kind, Object report) {
    ObjectNode node = JsonLines.record(kind);
    node.setAll((ObjectNode) JsonLines.tree(report));
    return node;
  }

  /**
   * Runs the batcher for the table of a {@code replay} or {@code backfill} ({@code --run}, {@code
   * --no-checkpoint}) and prints its summary ({@link #summarize}); {@link ExitCode#INVALID} after
   * printing the launcher problems of the profile.
   */
  public static int runBatches(LedgerAccess.Opened opened, TableProfile profile, OperatorOptions options,
      Duration jobTimeout, PrintWriter out, PrintWriter err, Function<Batches, RunSummary> run) {
    Optional<Batches> batches = Batches.open(opened.registry(), profile, opened.ledger(), opened.home(), jobTimeout,
        options.config(), err);
    if (batches.isEmpty()) {
      return ExitCode.INVALID;
    }
    try (Batches open = batches.get()) {
      return summarize(run.apply(open), options.json, out, err);
    }
  }

  /** How the batcher runs for the commands: the launcher each profile names, events on stderr. */
  public static final class Batches implements AutoCloseable {
    private final Launchers launchers;
    private final BatchRunner runner;
    private final ChangePublisher changes;

    private Batches(Launchers launchers, BatchRunner runner, ChangePublisher changes) {
      this.launchers = launchers;
      this.runner = runner;
      this.changes = changes;
    }

    /** Empty after printing the launcher problems of the profile. */
    public static Optional<Batches> open(ProfileRegistry profiles, TableProfile profile, Ledger ledger, Home home,
        Duration jobTimeout, Path config, PrintWriter err) {
      Optional<Launchers> checked = JobLaunchers.open(List.of(profile), profiles.deployment(), home, config, err);
      if (checked.isEmpty()) {
        return Optional.empty();
      }
      Launchers launchers = checked.get();
      ChangePublisher changes = ChangePublisher.of(profiles.deployment(), home, ledger);
      BatchRunner runner = BatchRunner.builder(profiles, ledger, launchers)
          .options(new RunOptions(1, jobTimeout))
          .changes(changes)
          .events(event -> {
            synchronized (err) {
              err.println("[batch] " + event.describe());
              err.flush();
            }
          })
          .build();
      return Optional.of(new Batches(launchers, runner, changes));
    }

    /** Loads the table's READY partitions until none is left or a batch does not commit. */
    public RunSummary runTable(TableProfile profile) {
      return runner.runTable(profile);
    }

    /** Loads the files once, without the ledger. */
    public RunSummary runListed(TableProfile profile, List<ManifestFile> files) {
      return runner.runListed(profile, files);
    }

    @Override
    public void close() {
      changes.close();
      launchers.close();
    }
  }
}
