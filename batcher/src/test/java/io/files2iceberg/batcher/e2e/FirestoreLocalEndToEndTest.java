package io.files2iceberg.batcher.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import io.files2iceberg.batcher.local.ListenerProcess;
import io.files2iceberg.batcher.testing.IcebergRows;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.TableStatus;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.ledger.firestore.FirestoreEmulator;
import io.files2iceberg.ledger.firestore.FirestoreEmulatorExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A local rehearsal of production: {@code local} with {@code ledger.type = firestore} on the Cloud
 * Firestore emulator and the local Spark launcher, run as a user runs it (its own process, with
 * {@code FIRESTORE_EMULATOR_HOST}), on click data with a newer version of some clicks in a second
 * file and a late file after its day was loaded. Rows are read back through Iceberg's own reader, the states
 * from the Firestore ledger.
 */
class FirestoreLocalEndToEndTest {
  @RegisterExtension static final FirestoreEmulatorExtension FIRESTORE = new FirestoreEmulatorExtension();

  @TempDir Path root;

  private static final String PROFILE = """
      extract {
        path = "file://LANDING/clicks/dt=*/*.json"
        format = json
        batch-file {
          partition-type = date
          pattern = ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+"
          date-format = "yyyy-MM-dd"
        }
      }
      transform.filter = ["click_id IS NOT NULL"]
      load {
        iceberg.table = local.demo.clicks
        primary-key = [click_id]
        partition-by = [dt]
        iceberg.precombine-field = click_time
      }
      ledger { type = firestore, firestore-project = PROJECT, collection-prefix = PREFIX }
      job.spark-properties { "spark.ui.enabled" = "false", "spark.sql.shuffle.partitions" = "2" }
      """;

  private record Run(int code, String out) {}

  private static String click(String id, String user, String time) {
    return "{\"click_id\":\"" + id + "\",\"user_id\":\"" + user + "\",\"click_time\":\"2026-11-27T" + time + "Z\"}";
  }

  private static void write(Path file, String... lines) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, lines.length == 0 ? "" : String.join("\n", lines) + "\n");
    // Settled: the notifier takes only files that stopped changing.
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().minusSeconds(2)));
  }

  /** {@code files2iceberg local --until-idle} in a process of its own, pointed at the emulator. */
  private static Run local(Path profiles, Path landing, Path home) throws Exception {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
        "-D" + LocalSparkLauncher.SPARK_JOB_DIR_PROPERTY + "="
            + LocalSparkLauncher.locateSparkJobTarget(System.getenv(), Path.of("")),
        "-D" + ListenerProcess.LISTENER_DIR_PROPERTY + "=" + ListenerProcess.locateTarget(System.getenv(), Path.of("")),
        "-cp", System.getProperty("java.class.path"),
        "io.files2iceberg.batcher.cli.Files2Iceberg",
        "local", "--config", profiles.toString(), "--landing", landing.toString(), "--home", home.toString(),
        "--until-idle", "--interval", "500ms"));
    Path out = Files.createTempFile(home.getParent(), "local", ".out");
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
    builder.environment().put("FIRESTORE_EMULATOR_HOST", FIRESTORE.emulator().host());
    Process process = builder.start();
    try {
      if (!process.waitFor(6, TimeUnit.MINUTES)) {
        throw new AssertionError("local did not become idle in 6 minutes:\n" + Files.readString(out));
      }
    } finally {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
    return new Run(process.exitValue(), Files.readString(out));
  }

  /** The table's clicks as {@code id=user} in id order, and the row count, as one JSON object. */
  private static String clicks(Path home) {
    List<Map<String, Object>> rows = IcebergRows.rows(new Home(home), "local.demo.clicks");
    return "{\"clicks\":\"" + IcebergRows.joined(rows, row -> row.get("click_id") + "=" + row.get("user_id"))
        + "\",\"n\":" + rows.size() + "}";
  }

  @Test
  void localOnTheFirestoreLedgerLandsEveryClickOnceInItsNewestVersionAndALateFileOnce() throws Exception {
    Path landing = Files.createDirectories(root.resolve("landing"));
    Path profiles = Files.createDirectories(root.resolve("profiles"));
    // No home yet: with the Firestore ledger nothing but the run itself creates it.
    Path home = root.resolve("home");
    String prefix = FirestoreEmulator.newPrefix();
    Files.writeString(profiles.resolve("clicks.conf"), PROFILE.replace("LANDING", landing.toString())
        .replace("PROJECT", FirestoreEmulator.PROJECT).replace("PREFIX", prefix));
    Path day1 = landing.resolve("clicks/dt=2026-11-27");
    Path day2 = landing.resolve("clicks/dt=2026-11-28");
    write(day1.resolve("part-0.json"), click("c1", "u1", "10:00:00"), click("c2", "u2", "10:00:00"),
        click("c3", "u3", "10:00:00"));
    write(day1.resolve("part-1.json"), click("c2", "u2b", "11:00:00"), click("c3", "u3-old", "09:00:00"),
        click("c4", "u4", "10:00:00"));
    write(day1.resolve("_SUCCESS"));
    write(day2.resolve("part-0.json"), click("c5", "u5", "10:00:00"), "{\"user_id\":\"no click id\"}");
    write(day2.resolve("_SUCCESS"));

    Run first = local(profiles, landing, home);

    assertThat(first.code()).as(first.out()).isZero();
    assertThat(first.out())
        .contains("[local] posted 5 notifications (2 markers): 3 recorded, 2 partition_ready")
        .contains("[local] table local.demo.clicks: 2 partitions ingested (3 files), current snapshot ");
    assertThat(clicks(home))
        .isEqualTo("{\"clicks\":\"c1=u1,c2=u2b,c3=u3,c4=u4,c5=u5\",\"n\":5}");

    // A late file in the first day, after that day was loaded: it re-opens the day, which the day's
    // marker (posted again with every scan of a new run) makes READY again, and it lands once.
    write(day1.resolve("part-2.json"), click("c1", "u1-late", "12:00:00"), click("c6", "u6", "10:00:00"));

    Run second = local(profiles, landing, home);

    assertThat(second.code()).as(second.out()).isZero();
    assertThat(second.out())
        .contains("[local] posted 6 notifications (2 markers): 1 recorded, 4 duplicate, 1 partition_ready")
        .contains("[local] table local.demo.clicks: 2 partitions ingested (4 files), current snapshot ");
    assertThat(clicks(home))
        .isEqualTo("{\"clicks\":\"c1=u1-late,c2=u2b,c3=u3,c4=u4,c5=u5,c6=u6\",\"n\":6}");
    var settings = ProfileRegistry.load(profiles, new Home(home)).deployment().ledger();
    try (Ledger ledger = FIRESTORE.emulator().openLedger(settings, Clock.systemUTC())) {
      TableStatus status = ledger.tableStatus("local.demo.clicks");
      assertThat(status.filesByState()).containsEntry(FileState.INGESTED, 4L);
      assertThat(status.filesByState().values().stream().mapToLong(Long::longValue).sum()).isEqualTo(4L);
      assertThat(status.partitionsByState()).containsEntry(PartitionState.INGESTED, 2L);
      assertThat(status.partitionsByState().values().stream().mapToLong(Long::longValue).sum()).isEqualTo(2L);
      assertThat(status.inFlight()).isEmpty();
      assertThat(status.failedBatches()).isEmpty();
    }
  }
}
