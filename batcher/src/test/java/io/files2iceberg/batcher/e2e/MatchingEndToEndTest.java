package io.files2iceberg.batcher.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.files2iceberg.batcher.cli.ExitCode;
import io.files2iceberg.batcher.cli.Files2Iceberg;
import io.files2iceberg.batcher.local.LandingNotifier.Outcome;
import io.files2iceberg.batcher.local.LandingNotifier.ScanResult;
import io.files2iceberg.batcher.engine.BatchEvent;
import io.files2iceberg.batcher.engine.BatchEvent.BatchClaimed;
import io.files2iceberg.batcher.engine.RunSummary;
import io.files2iceberg.batcher.status.StatusFormat;
import io.files2iceberg.batcher.status.StatusReport;
import io.files2iceberg.batcher.testing.IcebergRows;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import io.files2iceberg.core.match.ObjectLocation;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * How objects are matched to partitions, end to end on the embedded default: the notifier's real
 * envelopes to the real listener, the batcher with real Spark child JVMs, rows read back through
 * Iceberg's own reader. Files in subfolders of a partition folder ({@code extract.recursive-file-lookup})
 * and data files that miss the partition pattern ({@code strict-pattern}), and object names with
 * every character a name can hold.
 */
class MatchingEndToEndTest {
  private static final String PATTERN = ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/[^/]+";

  @TempDir static Path root;
  static EmbeddedDeployment deployment;

  @BeforeAll
  static void start() throws Exception {
    deployment = new EmbeddedDeployment(root, Map.of(
        "nested", profile("nested", "recursive-file-lookup = true", ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+", false),
        "flat", profile("flat", "recursive-file-lookup = false", ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+", false),
        "strict", profile("strict", "", PATTERN, true),
        "lenient", profile("lenient", "", PATTERN, false),
        "names", profile("names", "", PATTERN, false)));
  }

  @AfterAll
  static void stop() {
    if (deployment != null) {
      deployment.close();
    }
  }

  /** JSON lines under {@code LANDING/<name>/dt=.../} into {@code local.e2e.<name>}, keyed by id. */
  private static String profile(String name, String extract, String pattern, boolean strict) {
    return "extract {\n"
        + "  path = \"file://LANDING/" + name + "/dt=*/*.json\"\n"
        + "  format = json\n"
        + "  " + extract + "\n"
        + "  batch-file {\n"
        + "    partition-type = date\n"
        + "    pattern = \"" + pattern + "\"\n"
        + "    date-format = \"yyyy-MM-dd\"\n"
        + "    strict-pattern = " + strict + "\n"
        + "  }\n"
        + "}\n"
        + "load {\n"
        + "  iceberg.table = local.e2e." + name + "\n"
        + "  primary-key = [id]\n"
        + "}\n"
        + "job.spark-properties { \"spark.ui.enabled\" = \"false\", \"spark.sql.shuffle.partitions\" = \"2\" }\n";
  }

  private static String row(String id, int amount) {
    return "{\"id\":\"" + id + "\",\"amount\":" + amount + "}\n";
  }

  /** The table's ids and amounts with the partition column's values, sorted. */
  private static String contents(String table) {
    return IcebergRows.joined(IcebergRows.rows(deployment.home, table),
        row -> row.get("id") + "=" + row.get("amount") + "@" + row.get("dt"));
  }

  private static Optional<FileRecord> recorded(Path file) {
    ObjectLocation object = ObjectLocation.file(file);
    return deployment.ledger.filesNamed(object.bucket(), object.name()).stream().findFirst();
  }

  @Test
  void withRecursiveFileLookupAFileInASubfolderIsLoadedIntoItsPartitionFoldersPartitionAndWithoutItIsLeftOut()
      throws Exception {
    deployment.write("nested/dt=2026-11-27/part-0.json", row("n1", 1) + row("n2", 2));
    Path nested = deployment.write("nested/dt=2026-11-27/sub/part.json", row("n3", 3));
    Path deeper = deployment.write("nested/dt=2026-11-27/sub/deeper/part.json", row("n4", 4));
    deployment.write("nested/dt=2026-11-27/_SUCCESS", "");
    deployment.write("flat/dt=2026-11-27/part-0.json", row("f1", 1) + row("f2", 2));
    Path flatNested = deployment.write("flat/dt=2026-11-27/sub/part.json", row("f3", 3));
    deployment.write("flat/dt=2026-11-27/_SUCCESS", "");

    ScanResult scan = deployment.notifyListener();
    List<BatchEvent> events = EmbeddedDeployment.events();
    RunSummary nestedRun = deployment.runner("nested", events).runOnce();
    RunSummary flatRun = deployment.runner("flat", events).runOnce();

    assertThat(scan.count(Outcome.IGNORED)).as(scan.describe()).isEqualTo(1);
    assertThat(nestedRun.isClean()).as(nestedRun.describe()).isTrue();
    assertThat(flatRun.isClean()).as(flatRun.describe()).isTrue();
    for (Path file : List.of(nested, deeper)) {
      FileRecord record = recorded(file).orElseThrow(() -> new AssertionError(file + " not recorded"));
      assertThat(record.partition()).isEqualTo("2026-11-27");
      assertThat(record.state()).isEqualTo(FileState.INGESTED);
    }
    assertThat(recorded(flatNested)).isEmpty();
    assertThat(contents("local.e2e.nested"))
        .isEqualTo("n1=1@2026-11-27,n2=2@2026-11-27,n3=3@2026-11-27,n4=4@2026-11-27");
    assertThat(contents("local.e2e.flat")).isEqualTo("f1=1@2026-11-27,f2=2@2026-11-27");
  }

  @Test
  void withStrictPatternAFileMissingThePatternStopsTheTableUntilItIsClearedThenEverythingLoads() throws Exception {
    deployment.write("strict/dt=2026-11-28/part-0.json", row("s1", 1));
    deployment.write("strict/dt=2026-11-28/_SUCCESS", "");
    Path bad = deployment.write("strict/dt=latest/part-0.json", row("s2", 2));
    String badUri = ObjectLocation.file(bad).uri();

    ScanResult scan = deployment.notifyListener();
    List<BatchEvent> events = EmbeddedDeployment.events();
    RunSummary stopped = deployment.runner("strict", events).runOnce();

    assertThat(scan.count(Outcome.QUARANTINED)).as(scan.describe()).isEqualTo(1);
    QuarantinedMessage message = deployment.ledger.quarantinedMessages().stream()
        .filter(m -> m.objectUri().equals(Optional.of(badUri))).findFirst().orElseThrow();
    // The run fails visibly, naming the file and how to clear it; nothing of the table is claimed.
    assertThat(stopped.isClean()).isFalse();
    assertThat(stopped.errors()).singleElement().asString()
        .contains("local.e2e.strict", badUri, "strict-pattern", "quarantine release --message " + message.messageId());
    assertThat(events).noneMatch(BatchClaimed.class::isInstance);
    assertThat(deployment.ledger.partition("local.e2e.strict", "2026-11-28").orElseThrow().state())
        .isEqualTo(PartitionState.READY);
    StatusReport status = StatusReport.read(deployment.ledger, Optional.of(deployment.profile("strict")),
        Optional.empty(), Clock.systemUTC());
    assertThat(StatusFormat.human(status)).contains("STOPPED TABLES", "local.e2e.strict", badUri,
        message.messageId());
    assertThat(StatusFormat.json(status)).contains("\"stoppedBy\"", badUri);

    // Cleared: the object removed and its message released (discarded, as the object is gone).
    Files.delete(bad);
    StringWriter out = new StringWriter();
    var commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out));
    commandLine.setErr(new PrintWriter(out));
    int code = commandLine.execute("quarantine", "release", "--config",
        deployment.profiles.resolve("strict.conf").toString(), "--home", deployment.home.root().toString(),
        "--message", message.messageId(), "--discard");
    assertThat(code).as(out.toString()).isZero();
    RunSummary resumed = deployment.runner("strict", events).runOnce();

    assertThat(resumed.isClean()).as(resumed.describe()).isTrue();
    assertThat(resumed.committed()).hasSize(1);
    assertThat(contents("local.e2e.strict")).isEqualTo("s1=1@2026-11-28");
  }

  @Test
  void localUntilIdleEndsFailingAndNamesTheFileWhenAStrictPatternStopStands() throws Exception {
    // A landing folder, profile and home of its own, as a user runs `local`.
    Path landing = Files.createDirectories(root.resolve("stoplocal-landing"));
    Path profiles = Files.createDirectories(root.resolve("stoplocal-profiles"));
    Files.writeString(profiles.resolve("stoplocal.conf"),
        profile("stoplocal", "", PATTERN, true).replace("LANDING/stoplocal", landing.toString()));
    Path good = landing.resolve("dt=2026-11-30/part-0.json");
    Path bad = landing.resolve("dt=latest/part-0.json");
    for (Path file : List.of(good, bad, landing.resolve("dt=2026-11-30/_SUCCESS"))) {
      Files.createDirectories(file.getParent());
      Files.writeString(file, file.equals(good) ? row("t1", 1) : file.equals(bad) ? row("t2", 2) : "");
      Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.from(java.time.Instant.now().minusSeconds(2)));
    }
    StringWriter out = new StringWriter();
    var commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out));
    commandLine.setErr(new PrintWriter(out));

    int code = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofMinutes(3),
        () -> commandLine.execute("local", "--config", profiles.toString(), "--landing", landing.toString(),
            "--home", root.resolve("stoplocal-home").toString(), "--until-idle", "--interval", "500ms"));

    String printed = out.toString();
    assertThat(code).as(printed).isEqualTo(ExitCode.FAILED);
    assertThat(printed).contains("local.e2e.stoplocal", ObjectLocation.file(bad).uri(), "quarantine release --message");
    assertThat(printed).contains("error: local.e2e.stoplocal: stopped by " + ObjectLocation.file(bad).uri());
    assertThat(printed).doesNotContain(" claimed: ");
  }

  @Test
  void localPrintsAFailedBatchsErrorOnceAndLogsItOnce() throws Exception {
    Path landing = Files.createDirectories(root.resolve("failonce-landing"));
    Path profiles = Files.createDirectories(root.resolve("failonce-profiles"));
    Files.writeString(profiles.resolve("failonce.conf"), profile("failonce", "", PATTERN, false)
        .replace("LANDING/failonce", landing.toString()).replace("primary-key = [id]", "primary-key = [nope]"));
    for (Path file : List.of(landing.resolve("dt=2026-11-30/part-0.json"), landing.resolve("dt=2026-11-30/_SUCCESS"))) {
      Files.createDirectories(file.getParent());
      Files.writeString(file, file.getFileName().toString().startsWith("part") ? row("f1", 1) : "");
      Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.from(java.time.Instant.now().minusSeconds(2)));
    }
    StringWriter out = new StringWriter();
    var commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out));
    commandLine.setErr(new PrintWriter(out));
    Logger logs = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    logs.addAppender(logged);
    int code;
    try {
      code = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofMinutes(3),
          () -> commandLine.execute("local", "--config", profiles.toString(), "--landing", landing.toString(),
              "--home", root.resolve("failonce-home").toString(), "--until-idle", "--interval", "500ms"));
    } finally {
      logs.detachAppender(logged);
    }

    String printed = out.toString();
    String error = "load.primary-key[0]: column \"nope\" is not among the batch's columns";
    List<String> loggedErrors = logged.list.stream().map(ILoggingEvent::getFormattedMessage)
        .filter(message -> message.contains(error)).toList();
    assertThat(code).as(printed).isEqualTo(ExitCode.FAILED);
    assertThat(printed.split(java.util.regex.Pattern.quote(error), -1)).as(printed).hasSize(2);
    assertThat(printed).containsPattern("partition 2026-11-30 of local.e2e.failonce FAILED after 1 attempt"
        + " \\(batch \\S+ above\\)");
    assertThat(loggedErrors).as("the log lines with the error").hasSize(1);
  }

  /**
   * Every printable ASCII punctuation character but {@code /} (Spark's reader would take {@code [
   * ] { } * ?} for a glob), spaces, non-ASCII letters and %-escapes: the listener, the ledger, the
   * manifest and the job agree on each name byte for byte, and every file loads.
   */
  @Test
  void filesNamedWithAnyCharacterANameCanHoldLoad() throws Exception {
    List<String> names = List.of(
        "a!\"#$%&'()*+,-.json",
        "b.:;<=>?@.json",
        "c[1]\\^_`{|}~.json",
        "d name  with spaces .json",
        "e-\u00e9\u65e5\u672c-\u00fc.json",
        "f%20%2F%25.json");
    for (int i = 0; i < names.size(); i++) {
      deployment.write("names/dt=2026-12-01/" + names.get(i), row("n" + i, i));
    }
    deployment.write("names/dt=2026-12-01/_SUCCESS", "");

    ScanResult scan = deployment.notifyListener();
    RunSummary run = deployment.runner("names", EmbeddedDeployment.events()).runOnce();

    assertThat(run.isClean()).as(run.describe()).isTrue();
    assertThat(run.committed()).as(scan.describe()).hasSize(1);
    for (String name : names) {
      Path file = deployment.landing.resolve("names/dt=2026-12-01").resolve(name);
      FileRecord record = recorded(file).orElseThrow(() -> new AssertionError(name + " not recorded"));
      assertThat(record.uri()).isEqualTo(ObjectLocation.file(file).uri());
      assertThat(record.name()).endsWith("/" + name);
      assertThat(record.state()).as(name).isEqualTo(FileState.INGESTED);
    }
    assertThat(IcebergRows.joined(IcebergRows.rows(deployment.home, "local.e2e.names"),
        row -> row.get("id") + "=" + row.get("amount")))
        .isEqualTo("n0=0,n1=1,n2=2,n3=3,n4=4,n5=5");
  }

  @Test
  void withoutStrictPatternAFileMissingThePatternIsQuarantinedAndTheTableLoadsTheRest() throws Exception {
    deployment.write("lenient/dt=2026-11-29/part-0.json", row("l1", 1));
    deployment.write("lenient/dt=2026-11-29/_SUCCESS", "");
    Path bad = deployment.write("lenient/dt=latest/part-0.json", row("l2", 2));

    ScanResult scan = deployment.notifyListener();
    RunSummary run = deployment.runner("lenient", EmbeddedDeployment.events()).runOnce();

    assertThat(scan.count(Outcome.QUARANTINED)).as(scan.describe()).isEqualTo(1);
    assertThat(deployment.ledger.quarantinedMessages())
        .anySatisfy(m -> {
          assertThat(m.objectUri()).contains(ObjectLocation.file(bad).uri());
          assertThat(m.reason()).contains("does not match extract.batch-file.pattern", "strict-pattern off");
        });
    assertThat(run.isClean()).as(run.describe()).isTrue();
    assertThat(run.committed()).hasSize(1);
    assertThat(contents("local.e2e.lenient"))
        .isEqualTo("l1=1@2026-11-29");
  }
}
