package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.JobFixture.Landed;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files that landing cleanup moved to an archive ({@code load.after-ingest.action = move}) and a
 * rollback or replay loads again: the job reads the archive's copy at its generation, and the rows
 * still name where the file landed.
 */
class ArchivedFilesTest {
  @TempDir static Path home;
  static JobFixture fixture;

  static final StructType READINGS = new StructType()
      .add("id", DataTypes.IntegerType)
      .add("value", DataTypes.StringType);
  static final String DAY = "2024-01-01";

  @BeforeAll
  static void startSession() {
    fixture = JobFixture.embedded(home);
  }

  static TableProfile readings(String table) {
    return fixture.profile(table, """
        extract {
          path = "file://%s/dt=*/*.parquet"
          lineage-columns = [_source_file, _source_generation]
          batch-file {
            partition-type = date
            pattern = ".+/dt=([0-9-]+)/.+"
            date-format = yyyy-MM-dd
          }
        }
        load.iceberg.table = "local.archived.%s"
        """.formatted(fixture.landing(table), table));
  }

  static Landed write(String table, String name, Row... rows) {
    Path path = fixture.writeFile("parquet", table + "/dt=" + DAY + "/" + name, READINGS, List.of(rows));
    return new Landed(path, DAY, JobFixture.liveGeneration(path));
  }

  /** Moves the landed file to the archive folder, as cleanup does; a move keeps its modification time. */
  static Path archive(String table, Landed landed) {
    Path archived = home.resolve("archive").resolve(table).resolve("dt=" + DAY)
        .resolve(landed.path().getFileName().toString());
    try {
      Files.createDirectories(archived.getParent());
      Files.move(landed.path(), archived);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(JobFixture.liveGeneration(archived)).isEqualTo(landed.generation());
    return archived;
  }

  /** The batch with the files at {@code archived} read from their archive copies (null: where they landed). */
  static BatchManifest withArchives(BatchManifest batch, Path... archived) {
    List<ManifestFile> files = new ArrayList<>();
    for (int i = 0; i < batch.files().size(); i++) {
      ManifestFile f = batch.files().get(i);
      Optional<ManifestFile.Archive> copy = i < archived.length && archived[i] != null
          ? Optional.of(new ManifestFile.Archive(JobFixture.uri(archived[i]), f.generation())) : Optional.empty();
      files.add(new ManifestFile(f.fileId(), f.uri(), f.partition(), f.generation(), f.size(), f.eventId(),
          f.eventTime(), copy));
    }
    return new BatchManifest(batch.version(), batch.batchId(), batch.profile(), batch.deployment(), batch.mode(),
        batch.saveCheckpoint(), batch.createdAt(), files);
  }

  static FileRecord stored(BatchManifest batch, int file) {
    try (Ledger ledger = fixture.openLedger()) {
      return ledger.file(batch.files().get(file).fileId()).orElseThrow();
    }
  }

  @Test
  void aBatchOfALandedAndAnArchivedFileReadsBothAndTheirRowsNameWhereTheyLanded() {
    TableProfile profile = readings("two_files");
    Landed landed = write("two_files", "a.parquet", RowFactory.create(1, "a"));
    Landed moved = write("two_files", "b.parquet", RowFactory.create(2, "b"), RowFactory.create(3, "b"));
    BatchManifest batch = fixture.claimBatch(profile, landed, moved);
    Path archived = archive("two_files", moved);

    fixture.load(withArchives(batch, null, archived));

    assertThat(fixture.rows("SELECT id, value, _source_file, _source_generation FROM local.archived.two_files"
        + " ORDER BY id")).containsExactly(
        "[1,a," + JobFixture.uri(landed.path()) + "," + landed.generation() + "]",
        "[2,b," + JobFixture.uri(moved.path()) + "," + moved.generation() + "]",
        "[3,b," + JobFixture.uri(moved.path()) + "," + moved.generation() + "]");
    assertThat(stored(batch, 1).state()).isEqualTo(FileState.INGESTED);
  }

  @Test
  void aBatchOfOneArchivedFileReadsItsCopy() {
    TableProfile profile = readings("one_file");
    Landed moved = write("one_file", "a.parquet", RowFactory.create(7, "x"));
    BatchManifest batch = fixture.claimBatch(profile, moved);
    Path archived = archive("one_file", moved);

    fixture.load(withArchives(batch, archived));

    assertThat(fixture.rows("SELECT id, _source_file FROM local.archived.one_file"))
        .containsExactly("[7," + JobFixture.uri(moved.path()) + "]");
  }

  @Test
  void anArchivedCopyRewrittenSinceIsSupersededNamingTheArchive() throws IOException {
    TableProfile profile = readings("rewritten_copy");
    Landed landed = write("rewritten_copy", "a.parquet", RowFactory.create(1, "a"));
    Landed moved = write("rewritten_copy", "b.parquet", RowFactory.create(2, "b"));
    BatchManifest batch = fixture.claimBatch(profile, landed, moved);
    Path archived = archive("rewritten_copy", moved);
    long rewritten = moved.generation() + 1_000_000;
    Files.setLastModifiedTime(archived, FileTime.from(rewritten, TimeUnit.MICROSECONDS));

    fixture.load(withArchives(batch, null, archived));

    FileRecord superseded = stored(batch, 1);
    assertThat(superseded.state()).isEqualTo(FileState.SUPERSEDED);
    assertThat(superseded.quarantineReason()).contains("its archived copy " + JobFixture.uri(archived)
        + " was rewritten: generation " + rewritten + " is live there now, not " + moved.generation());
    assertThat(fixture.rows("SELECT id FROM local.archived.rewritten_copy")).containsExactly("[1]");
  }
}
