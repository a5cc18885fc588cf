package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.JobFixture.Landed;
import io.files2iceberg.sparkjob.extract.LiveGenerations;
import io.files2iceberg.sparkjob.extract.LocalGenerations;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An object rewritten (or deleted) after its notification: the job reads exactly the generation
 * its manifest names, and a rewrite of a loaded object follows {@code extract.on-overwrite}.
 */
class RewrittenObjectTest {
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

  static TableProfile readings(String table, String extra) {
    return fixture.profile(table, """
        extract {
          path = "file://%s/dt=*/*.parquet"
          lineage-columns = [_source_generation]
          batch-file {
            partition-type = date
            pattern = ".+/dt=([0-9-]+)/.+"
            date-format = yyyy-MM-dd
          }
        }
        load.iceberg.table = "local.rewrites.%s"
        %s
        """.formatted(fixture.landing(table), table, extra));
  }

  /** Writes (or rewrites) the object; its generation is its new modification time. */
  static Landed write(String table, String name, Row... rows) {
    Path path = fixture.writeFile("parquet", table + "/dt=" + DAY + "/" + name, READINGS, List.of(rows));
    return new Landed(path, DAY, JobFixture.liveGeneration(path));
  }

  /** Rewrites the object with other rows and a modification time {@code later} microseconds on. */
  static Landed rewrite(Landed landed, String table, long later, Row... rows) {
    Landed rewritten = write(table, landed.path().getFileName().toString(), rows);
    Landed newer = new Landed(rewritten.path(), DAY, landed.generation() + later);
    JobFixture.pinGeneration(newer);
    return newer;
  }

  static FileRecord stored(BatchManifest batch, int file) {
    try (Ledger ledger = fixture.openLedger()) {
      return ledger.file(batch.files().get(file).fileId()).orElseThrow();
    }
  }

  static PartitionState partition(TableProfile profile) {
    try (Ledger ledger = fixture.openLedger()) {
      return ledger.partition(profile.table(), DAY).orElseThrow().state();
    }
  }

  boolean tableExists(String table) {
    return fixture.spark.catalog().tableExists(table);
  }

  @Test
  void theGenerationsOfABatchsFilesAreAskedSideBySideAndTheRewrittenOneIsSuperseded() {
    TableProfile profile = readings("side_by_side", "");
    Landed[] landed = new Landed[12];
    for (int i = 0; i < landed.length; i++) {
      landed[i] = write("side_by_side", "f%02d.parquet".formatted(i), RowFactory.create(i, "v1"));
    }
    BatchManifest batch = fixture.claimBatch(profile, landed);
    Landed rewritten = rewrite(landed[5], "side_by_side", 1_000_000, RowFactory.create(105, "v2"));
    LocalGenerations disk = new LocalGenerations();
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    // Each question takes a while, as a GCS metadata GET does: asked one by one, none overlaps.
    LiveGenerations slowStorage = object -> {
      most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
      try {
        TimeUnit.MILLISECONDS.sleep(100);
        return disk.of(object);
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      } finally {
        inFlight.decrementAndGet();
      }
    };

    int code = fixture.runJob(fixture.writeManifest(batch), slowStorage);

    assertThat(code).as("stderr: %s", fixture.stderr).isEqualTo(BatchJob.EXIT_OK);
    assertThat(most.get()).as("questions to the storage at once").isGreaterThan(1);
    assertThat(stored(batch, 5).quarantineReason())
        .contains("rewritten: generation " + rewritten.generation() + " is live now");
    assertThat(fixture.rows("SELECT count(*) FROM local.rewrites.side_by_side")).containsExactly("[11]");
  }

  @Test
  void appendObjectRewrittenBeforeItsBatchIsSupersededAndItsNewGenerationLoadsItsRowsOnce() {
    TableProfile profile = readings("append_rewritten", "");
    Landed v1 = write("append_rewritten", "a.parquet", RowFactory.create(1, "v1"), RowFactory.create(2, "v1"));
    BatchManifest first = fixture.claimBatch(profile, v1);
    Landed v2 = rewrite(v1, "append_rewritten", 1_000_000, RowFactory.create(3, "v2"));

    fixture.load(first);

    FileRecord superseded = stored(first, 0);
    assertThat(superseded.state()).isEqualTo(FileState.SUPERSEDED);
    assertThat(superseded.quarantineReason()).contains("rewritten: generation " + v2.generation() + " is live now");
    assertThat(partition(profile)).isEqualTo(PartitionState.INGESTED);
    assertThat(tableExists("local.rewrites.append_rewritten")).isFalse();

    fixture.load(fixture.claimBatch(profile, v2));

    assertThat(fixture.rows("SELECT id, value, _source_generation FROM local.rewrites.append_rewritten"))
        .containsExactly("[3,v2," + v2.generation() + "]");
    assertThat(partition(profile)).isEqualTo(PartitionState.INGESTED);
  }

  @Test
  void keyedObjectRewrittenBeforeItsBatchHoldsTheNewGenerationsValues() {
    TableProfile profile = readings("keyed_rewritten", "load.primary-key = [id]");
    Landed other = write("keyed_rewritten", "b.parquet", RowFactory.create(9, "other"));
    Landed v1 = write("keyed_rewritten", "a.parquet", RowFactory.create(1, "v1"), RowFactory.create(2, "v1"));
    BatchManifest first = fixture.claimBatch(profile, v1, other);
    Landed v2 = rewrite(v1, "keyed_rewritten", 1_000_000, RowFactory.create(1, "v2"), RowFactory.create(3, "v2"));

    fixture.load(first);

    assertThat(stored(first, 0).state()).isEqualTo(FileState.SUPERSEDED);
    assertThat(stored(first, 1).state()).isEqualTo(FileState.INGESTED);
    assertThat(fixture.rows("SELECT id, value FROM local.rewrites.keyed_rewritten ORDER BY id"))
        .containsExactly("[9,other]");

    fixture.load(fixture.claimBatch(profile, v2));

    assertThat(fixture.rows("SELECT id, value, _source_generation FROM local.rewrites.keyed_rewritten ORDER BY id"))
        .containsExactly("[1,v2," + v2.generation() + "]", "[3,v2," + v2.generation() + "]",
            "[9,other," + other.generation() + "]");
  }

  @Test
  void objectDeletedBeforeItsBatchIsSupersededAndTheRestOfThePartitionLoads() throws IOException {
    TableProfile profile = readings("deleted", "");
    Landed gone = write("deleted", "a.parquet", RowFactory.create(1, "gone"));
    Landed kept = write("deleted", "b.parquet", RowFactory.create(2, "kept"));
    BatchManifest batch = fixture.claimBatch(profile, gone, kept);
    Files.delete(gone.path());

    fixture.load(batch);

    FileRecord superseded = stored(batch, 0);
    assertThat(superseded.state()).isEqualTo(FileState.SUPERSEDED);
    assertThat(superseded.quarantineReason()).contains("deleted before it was read");
    assertThat(stored(batch, 1).state()).isEqualTo(FileState.INGESTED);
    assertThat(fixture.rows("SELECT id, value FROM local.rewrites.deleted")).containsExactly("[2,kept]");
    assertThat(partition(profile)).isEqualTo(PartitionState.INGESTED);
    assertThat(fixture.report().metrics().files()).isEqualTo(1);
  }

  @Test
  void objectRewrittenWhileItsBatchReadsItFailsTheBatchAsRetryableAndTheRetrySupersedesIt() {
    TableProfile profile = readings("during", "");
    Landed v1 = write("during", "a.parquet", RowFactory.create(1, "v1"));
    BatchManifest batch = fixture.claimBatch(profile, v1);
    Path manifest = fixture.writeManifest(batch);
    AtomicInteger asked = new AtomicInteger();
    LocalGenerations disk = new LocalGenerations();
    // The second question comes once the rows are materialized: the object is rewritten just before.
    LiveGenerations rewrittenDuringTheRead = object -> {
      if (asked.incrementAndGet() == 2) {
        rewrite(v1, "during", 5_000_000, RowFactory.create(2, "v2"));
      }
      return disk.of(object);
    };

    int code = fixture.runJob(manifest, rewrittenDuringTheRead);

    assertThat(code).as("stderr: %s", fixture.stderr).isEqualTo(BatchJob.EXIT_FAILED);
    assertThat(fixture.stderr)
        .contains("the object changed while the batch read it")
        .contains(v1.path().toUri().toString() + " (generation " + v1.generation() + ", now generation "
            + (v1.generation() + 5_000_000) + ")")
        .contains("the batch can be retried");
    assertThat(stored(batch, 0).state()).isEqualTo(FileState.CLAIMED);
    // The table may have been created (a metadata commit), but no row was committed.
    assertThat(fixture.rows("SELECT * FROM local.rewrites.during")).isEmpty();

    assertThat(fixture.runJob(manifest)).as("stderr: %s", fixture.stderr).isEqualTo(BatchJob.EXIT_OK);
    assertThat(stored(batch, 0).state()).isEqualTo(FileState.SUPERSEDED);
    assertThat(partition(profile)).isEqualTo(PartitionState.INGESTED);
  }

  @Test
  void appendTableIgnoresATouchedObjectByDefaultSoItsRowsAreLoadedOnce() {
    TableProfile profile = readings("touched", "");
    Landed v1 = write("touched", "a.parquet", RowFactory.create(1, "once"));
    fixture.load(fixture.claimBatch(profile, v1));
    Landed touched = touch(v1);

    BatchManifest second = fixture.claimBatch(profile, touched);
    fixture.load(second);

    FileRecord ignored = stored(second, 0);
    assertThat(ignored.state()).isEqualTo(FileState.IGNORED);
    assertThat(ignored.quarantineReason())
        .contains("generation " + v1.generation() + " of the object is INGESTED (extract.on-overwrite = ignore)");
    assertThat(fixture.rows("SELECT id, value FROM local.rewrites.touched")).containsExactly("[1,once]");
    assertThat(partition(profile)).isEqualTo(PartitionState.INGESTED);
  }

  @Test
  void appendTableWithOnOverwriteReloadLoadsATouchedObjectAgain() {
    TableProfile profile = readings("reloaded", "extract.on-overwrite = reload");
    Landed v1 = write("reloaded", "a.parquet", RowFactory.create(1, "twice"));
    fixture.load(fixture.claimBatch(profile, v1));
    Landed touched = touch(v1);

    BatchManifest second = fixture.claimBatch(profile, touched);
    fixture.load(second);

    assertThat(stored(second, 0).state()).isEqualTo(FileState.INGESTED);
    assertThat(fixture.rows("SELECT id, value FROM local.rewrites.reloaded"))
        .containsExactly("[1,twice]", "[1,twice]");
  }

  /** {@code touch}: the same bytes, a new modification time, so a new generation. */
  static Landed touch(Landed landed) {
    Landed touched = new Landed(landed.path(), landed.partition(), landed.generation() + 1_000_000);
    try {
      Files.setLastModifiedTime(touched.path(), FileTime.from(touched.generation(), TimeUnit.MICROSECONDS));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return touched;
  }
}
