package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.JobFixture.Landed;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * "08:00 stays 08:00": the job runs in a JVM of its own whose environment has {@code
 * TZ=America/New_York}, as on a user's machine, and a zone-less {@code 08:00} it reads is stored as
 * 08:00 UTC; a table's {@code extract.timezone} reads its zone-less text in that zone instead. The
 * tables are read back through Iceberg's own API, which no session zone colours.
 */
class TimeZonesTest {
  private static final String MACHINE_ZONE = "America/New_York";

  @TempDir static Path home;
  static JobFixture fixture;

  @BeforeAll
  static void startSession() {
    fixture = JobFixture.embedded(home);
    // The job in its own JVM checks the batch's lease on the real clock.
    fixture.clock.advance(Duration.between(fixture.clock.instant(), Instant.now()));
  }

  @Test
  void zoneLessCsvTimestampIsStoredAsUtcWhateverTheMachinesZone() throws Exception {
    TableProfile profile = fixture.profile("csv_events", """
        extract {
          path = "file://%s/*/*"
          format = csv
          options { header = "true" }
        }
        transform.cast.columns { ts = TIMESTAMP }
        load.iceberg.table = "local.tz.csv_events"
        """.formatted(fixture.landing("csv_events")));
    Path file = fixture.writeText("csv_events/p1/events.csv", "id,ts\ne1,2026-11-30 08:00:00\n");

    Path manifest = fixture.writeManifest(fixture.claimBatch(profile, Landed.of(file, "p1")));
    runJobInJvmWithTz(manifest);

    assertThat(storedInstants("local.tz.csv_events", "ts")).containsExactly(Instant.parse("2026-11-30T08:00:00Z"));
  }

  @Test
  void extractTimezoneReadsZoneLessTextInTheTablesZoneAndKeepsAnExplicitOffset() throws Exception {
    TableProfile profile = fixture.profile("paris_events", """
        extract {
          path = "file://%s/*/*"
          format = csv
          options { header = "true" }
          timezone = "Europe/Paris"
        }
        transform.cast.columns { ts = TIMESTAMP }
        load.iceberg.table = "local.tz.paris_events"
        """.formatted(fixture.landing("paris_events")));
    Path file = fixture.writeText("paris_events/p1/events.csv",
        "id,ts\ne1,2026-11-30 08:00:00\ne2,2026-11-30T08:00:00-05:00\ne3,2026-07-01 08:00\n");
    // The cast must not depend on the session's zone, which the warm driver shares among tables.
    String sessionZone = fixture.spark.conf().get("spark.sql.session.timeZone");
    fixture.spark.conf().set("spark.sql.session.timeZone", "Asia/Tokyo");
    try {
      fixture.load(fixture.claimBatch(profile, Landed.of(file, "p1")));
    } finally {
      fixture.spark.conf().set("spark.sql.session.timeZone", sessionZone);
    }

    assertThat(storedInstants("local.tz.paris_events", "ts")).containsExactlyInAnyOrder(Instant.parse("2026-11-30T07:00:00Z"), Instant.parse("2026-11-30T13:00:00Z"),
            Instant.parse("2026-07-01T06:00:00Z"));
  }

  @Test
  void extractTimezoneIsTheZoneOfTimestampsTheCsvReaderInfers() throws Exception {
    TableProfile profile = fixture.profile("inferred_events", """
        extract {
          path = "file://%s/*/*"
          format = csv
          options { header = "true", inferSchema = "true" }
          timezone = "Europe/Paris"
        }
        load.iceberg.table = "local.tz.inferred_events"
        """.formatted(fixture.landing("inferred_events")));
    Path file = fixture.writeText("inferred_events/p1/events.csv", "id,ts\ne1,2026-11-30 08:00:00\n");

    fixture.load(fixture.claimBatch(profile, Landed.of(file, "p1")));

    assertThat(storedInstants("local.tz.inferred_events", "ts")).containsExactly(Instant.parse("2026-11-30T07:00:00Z"));
  }

  /** Runs the job's entry point in a child JVM whose environment has {@code TZ} set. */
  private static void runJobInJvmWithTz(Path manifest) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(SparkJavaOptions.load());
    command.addAll(List.of("-Xmx1g", "-Dspark.master=local[1]", "-Dspark.ui.enabled=false",
        "-cp", System.getProperty("java.class.path"), BatchJob.class.getName(), "--manifest", manifest.toString()));
    Path log = home.resolve("job-" + manifest.getFileName() + ".log");
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().put("TZ", MACHINE_ZONE);
    Process job = builder.start();
    assertThat(job.waitFor(5, TimeUnit.MINUTES)).as("the job ends").isTrue();
    assertThat(job.exitValue()).as("exit code; output: %s", Files.readString(log, StandardCharsets.UTF_8))
        .isEqualTo(BatchJob.EXIT_OK);
  }

  /** The column's values as the table holds them (timestamptz: an instant). */
  private static List<Instant> storedInstants(String table, String column) throws Exception {
    // The catalog is resolved in the active session's conf, which must be this class's session.
    SparkSession.setActiveSession(fixture.spark);
    Table iceberg = Spark3Util.loadIcebergTable(fixture.spark, table);
    iceberg.refresh();
    List<Instant> instants = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(iceberg).select(column).build()) {
      records.forEach(record -> instants.add(((OffsetDateTime) record.getField(column)).toInstant()));
    }
    return instants;
  }
}
