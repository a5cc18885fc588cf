package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.CleanedObject;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.ClaimNewestPartition;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.match.ObjectLocation;
import io.files2iceberg.core.profile.TableProfile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code load.save-mode = Overwrite} without a key replaces a partition with its whole live
 * content, however many batches the partition is loaded in: a late file re-opening an ingested
 * partition, or a partition split by {@code max-batch-size}, must not delete the rows of the files
 * loaded before. The table is read back through Iceberg's own reader.
 */
class OverwritePartitionsTest {
  @TempDir static Path home;
  static JobFixture fixture;
  private static final AtomicInteger EVENTS = new AtomicInteger();

  static final StructType READINGS = new StructType()
      .add("id", DataTypes.IntegerType)
      .add("value", DataTypes.StringType);

  @BeforeAll
  static void startSession() {
    fixture = JobFixture.embedded(home);
  }

  static TableProfile overwrite(String table) {
    return fixture.profile(table, overwriteHocon(table));
  }

  @Test
  void lateFileInAnIngestedPartitionKeepsTheRowsOfTheFilesLoadedBefore() {
    TableProfile profile = overwrite("late");
    record(profile, write("late", "2024-01-01", "a.parquet", RowFactory.create(1, "day one")));
    record(profile, write("late", "2024-01-02", "a.parquet", RowFactory.create(2, "day two, first")));
    markReady(profile, "2024-01-01", "2024-01-02");
    load(profile, 100);

    // A late file lands in the loaded day 2: the partition is READY again for just that file.
    record(profile, write("late", "2024-01-02", "b.parquet", RowFactory.create(3, "day two, late")));
    BatchLoadReport report = load(profile, 100);

    assertThat(rows("local.overwrite.late")).containsExactly(
        "1 day one 2024-01-01", "2 day two, first 2024-01-02", "3 day two, late 2024-01-02");
    assertThat(report.metrics().files()).as("the late file and the one loaded before").isEqualTo(2);
    assertThat(states(profile, "2024-01-02")).containsExactly("a.parquet ingested", "b.parquet ingested");
  }

  @Test
  void partitionSplitAcrossBatchesByMaxBatchSizeKeepsEveryFilesRows() {
    TableProfile profile = overwrite("split");
    record(profile, write("split", "2024-01-01", "a.parquet", RowFactory.create(1, "a")));
    record(profile, write("split", "2024-01-01", "b.parquet", RowFactory.create(2, "b")));
    record(profile, write("split", "2024-01-01", "c.parquet", RowFactory.create(3, "c")));
    markReady(profile, "2024-01-01");

    load(profile, 1);
    load(profile, 1);
    load(profile, 1);

    assertThat(rows("local.overwrite.split")).containsExactly("1 a 2024-01-01", "2 b 2024-01-01", "3 c 2024-01-01");
    assertThat(fixture.snapshotCount("local.overwrite.split")).isEqualTo(3);
  }

  @Test
  void rewrittenObjectReplacesItsOlderGenerationAndKeepsTheOtherFiles() throws Exception {
    TableProfile profile = overwrite("rewrite");
    record(profile, write("rewrite", "2024-01-01", "a.parquet", RowFactory.create(1, "a, first version")));
    record(profile, write("rewrite", "2024-01-01", "b.parquet", RowFactory.create(2, "b")));
    markReady(profile, "2024-01-01");
    load(profile, 100);

    Thread.sleep(5); // a new modification time, so a new generation
    record(profile, write("rewrite", "2024-01-01", "a.parquet", RowFactory.create(1, "a, second version"),
        RowFactory.create(4, "a, new row")));
    load(profile, 100);

    assertThat(rows("local.overwrite.rewrite")).containsExactly(
        "1 a, second version 2024-01-01", "2 b 2024-01-01", "4 a, new row 2024-01-01");
  }

  @Test
  void quarantinedFileOfThePartitionIsNotReadAgainAndOtherPartitionsAreUntouched() {
    TableProfile profile = fixture.profile("quarantine", overwriteHocon("quarantine")
        + "extract.quarantine-bad-files = true\n");
    record(profile, write("quarantine", "2024-01-01", "a.parquet", RowFactory.create(1, "a")));
    record(profile, fixture.writeText("quarantine/dt=2024-01-01/broken.parquet", "not parquet"));
    record(profile, write("quarantine", "2024-01-02", "a.parquet", RowFactory.create(5, "other day")));
    markReady(profile, "2024-01-01", "2024-01-02");
    load(profile, 100);

    record(profile, write("quarantine", "2024-01-01", "late.parquet", RowFactory.create(2, "late")));
    BatchLoadReport report = load(profile, 100);

    assertThat(rows("local.overwrite.quarantine")).containsExactly(
        "1 a 2024-01-01", "2 late 2024-01-01", "5 other day 2024-01-02");
    assertThat(report.quarantinedFiles()).isEmpty();
    assertThat(states(profile, "2024-01-01"))
        .containsExactly("a.parquet ingested", "broken.parquet quarantined", "late.parquet ingested");
  }

  @Test
  void lastModeLateFileInTheNewestPartitionKeepsTheRowsLoadedBefore() {
    TableProfile profile = fixture.profile("last", overwriteHocon("last").replace("save-mode = Overwrite", "")
        + "extract.batch-file.ingestion-type = last\n");
    record(profile, write("last", "2024-01-01", "a.parquet", RowFactory.create(1, "monday")));
    record(profile, write("last", "2024-01-02", "a.parquet", RowFactory.create(2, "tuesday")));
    markReady(profile, "2024-01-01", "2024-01-02");
    loadNewest(profile);
    assertThat(rows("local.overwrite.last")).containsExactly("2 tuesday 2024-01-02");

    // A late file in the loaded newest partition: the table must still hold the whole partition.
    record(profile, write("last", "2024-01-02", "late.parquet", RowFactory.create(3, "tuesday, late")));
    loadNewest(profile);

    assertThat(rows("local.overwrite.last")).containsExactly("2 tuesday 2024-01-02", "3 tuesday, late 2024-01-02");
  }

  private static String overwriteHocon(String table) {
    return """
        extract {
          path = "file://%s/dt=*/*.parquet"
          batch-file {
            partition-type = date
            pattern = ".+/dt=([0-9-]+)/.+"
            date-format = yyyy-MM-dd
          }
        }
        load {
          iceberg.table = "local.overwrite.%s"
          save-mode = Overwrite
          partition-by = [dt]
        }
        """.formatted(fixture.landing(table), table);
  }

  // --- what the listener and the batcher do, by hand -------------------------------------------

  @Test
  void lateFileInAPartitionWhoseLoadedFileWasArchivedReadsTheArchiveAndKeepsItsRows() throws IOException {
    TableProfile profile = overwrite("archived");
    Path first = write("archived", "2024-01-01", "a.parquet", RowFactory.create(1, "first"));
    record(profile, first);
    markReady(profile, "2024-01-01");
    load(profile, 100);
    // Landing cleanup moves the loaded file to the archive (a move keeps its generation).
    Path archive = home.resolve("archive").resolve("a.parquet");
    Files.createDirectories(archive.getParent());
    Files.move(first, archive);
    cleanOnly(profile, CleanedObject.archived(ObjectLocation.file(archive).uri(), generation(archive),
        fixture.clock.instant()));

    record(profile, write("archived", "2024-01-01", "b.parquet", RowFactory.create(2, "late")));
    load(profile, 100);

    assertThat(rows("local.overwrite.archived")).containsExactly("1 first 2024-01-01", "2 late 2024-01-01");
    assertThat(states(profile, "2024-01-01")).containsExactly("a.parquet ingested", "b.parquet ingested");
  }

  @Test
  void lateFileInAPartitionWhoseLoadedFileWasDeletedFailsNamingItInsteadOfDroppingItsRows() throws IOException {
    TableProfile profile = overwrite("deleted");
    Path first = write("deleted", "2024-01-01", "a.parquet", RowFactory.create(1, "first"));
    record(profile, first);
    markReady(profile, "2024-01-01");
    load(profile, 100);
    cleanOnly(profile, CleanedObject.deleted(fixture.clock.instant()));
    Files.delete(first);

    record(profile, write("deleted", "2024-01-01", "b.parquet", RowFactory.create(2, "late")));
    int code = fixture.runJob(fixture.writeManifest(claim(profile)));

    assertThat(code).as("stdout %s stderr %s", fixture.stdout, fixture.stderr).isNotEqualTo(BatchJob.EXIT_OK);
    assertThat(fixture.stderr).contains("landing cleanup deleted the object(s) of 1 file(s) loaded before")
        .contains(first.toUri().toString());
    assertThat(rows("local.overwrite.deleted")).containsExactly("1 first 2024-01-01");
  }

  /** Landing cleanup's decision on the table's one loaded file, its removal done. */
  private static void cleanOnly(TableProfile profile, CleanedObject cleaned) {
    try (Ledger ledger = fixture.openLedger()) {
      fixture.clock.advance(Duration.ofDays(31));
      FileRecord loaded = ledger.filesToClean(profile.table(), fixture.clock.instant(), 10).get(0);
      ledger.cleanFiles(profile.table(), List.of(new Ledger.CleanFile(loaded.fileId(), cleaned)));
      ledger.confirmRemoved(List.of(loaded.fileId()));
    }
  }

  private static BatchManifest claim(TableProfile profile) {
    try (Ledger ledger = fixture.openLedger()) {
      BatchRecord batch = ledger.claimPartitions(new ClaimPartitions(profile.table(), 100,
          Duration.ofMinutes(30), true)).orElseThrow();
      ledger.markRunning(batch.batchId(), Duration.ofMinutes(30));
      return BatchManifest.of(batch.batchId(), profile, fixture.deployment(),
          profile.extract().batchFile().ingestionType(), true, fixture.clock.instant(),
          ledger.filesOfBatch(batch.batchId()));
    }
  }

  private static Path write(String table, String day, String name, Row... rows) {
    return fixture.writeFile("parquet", table + "/dt=" + day + "/" + name, READINGS, List.of(rows));
  }

  /** Records the file as the listener does: its generation is its modification time. */
  private static void record(TableProfile profile, Path file) {
    String day = file.getParent().getFileName().toString().substring("dt=".length());
    try (Ledger ledger = fixture.openLedger()) {
      fixture.clock.advance(Duration.ofSeconds(1));
      ledger.recordFile(new RecordFile(profile.table(), day, "", file.toString(), generation(file),
          file.toUri().toString(), Files.size(file), "event-" + EVENTS.incrementAndGet(), fixture.clock.instant(),
          Optional.empty(), false));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void markReady(TableProfile profile, String... days) {
    try (Ledger ledger = fixture.openLedger()) {
      for (String day : days) {
        ledger.markReady(new MarkReady(profile.table(), day, "file:///landing/" + day + "/",
            "marker-" + EVENTS.incrementAndGet(), fixture.clock.instant()));
      }
    }
  }

  /** Claims one batch of at most {@code maxFiles} files, as the batcher does, and runs the job. */
  private static BatchLoadReport load(TableProfile profile, int maxFiles) {
    BatchManifest manifest;
    try (Ledger ledger = fixture.openLedger()) {
      BatchRecord batch = ledger.claimPartitions(new ClaimPartitions(profile.table(), maxFiles,
          Duration.ofMinutes(30), true)).orElseThrow();
      ledger.markRunning(batch.batchId(), Duration.ofMinutes(30));
      manifest = BatchManifest.of(batch.batchId(), profile, fixture.deployment(), profile.extract().batchFile().ingestionType(), true,
          fixture.clock.instant(), ledger.filesOfBatch(batch.batchId()));
    }
    return fixture.load(manifest);
  }

  /** Mode last: claims the newest READY partition, as the batcher does, and runs the job. */
  private static BatchLoadReport loadNewest(TableProfile profile) {
    BatchManifest manifest;
    try (Ledger ledger = fixture.openLedger()) {
      BatchRecord batch = ledger.claimNewestPartition(new ClaimNewestPartition(profile.table(), Duration.ofMinutes(30)))
          .orElseThrow().batch();
      ledger.markRunning(batch.batchId(), Duration.ofMinutes(30));
      manifest = BatchManifest.of(batch.batchId(), profile, fixture.deployment(), profile.extract().batchFile().ingestionType(), true,
          fixture.clock.instant(), ledger.filesOfBatch(batch.batchId()));
    }
    return fixture.load(manifest);
  }

  private static List<String> states(TableProfile profile, String day) {
    try (Ledger ledger = fixture.openLedger()) {
      return ledger.filesOfPartition(profile.table(), day).stream()
          .map(f -> Path.of(f.name()).getFileName() + " " + f.state().code())
          .toList();
    }
  }

  /** The table's rows through Iceberg's own reader: {@code id value dt}, sorted. */
  private static List<String> rows(String name) {
    Table table;
    try {
      table = Spark3Util.loadIcebergTable(fixture.spark, name);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    table.refresh();
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        rows.add(record.getField("id") + " " + record.getField("value") + " " + record.getField("dt"));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    rows.sort(null);
    return rows;
  }

  private static long generation(Path file) {
    try {
      return ObjectLocation.localGeneration(Files.readAttributes(file, BasicFileAttributes.class));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
