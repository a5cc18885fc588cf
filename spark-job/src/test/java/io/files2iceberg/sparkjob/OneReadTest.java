package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.manifest.QuarantinedFile;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.JobFixture.Landed;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A batch of many files is read in one pass: the files' schemas are still checked one by one (a
 * bad file is quarantined, the others land), and every row still carries its own file's
 * generation, manifest order and partition.
 */
class OneReadTest {
  @TempDir static Path home;
  static JobFixture fixture;

  static final StructType ORDERS = new StructType()
      .add("id", DataTypes.StringType)
      .add("version", DataTypes.IntegerType)
      .add("amount", DataTypes.IntegerType)
      .add("note", DataTypes.StringType);

  @BeforeAll
  static void startSession() {
    fixture = JobFixture.embedded(home);
  }

  static TableProfile orders(String table, String extra) {
    return fixture.profile(table, """
        extract {
          path = "file://%s/dt=*/*"
          batch-file {
            partition-type = date
            pattern = ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+"
            date-format = yyyy-MM-dd
          }
          %s
        }
        load {
          iceberg.table = "local.oneread.%s"
          primary-key = [id]
          iceberg.precombine-field = version
        }
        """.formatted(fixture.landing(table), extra, table));
  }

  static Landed file(String table, String day, String name, long generation, StructType schema, Object[]... rows) {
    List<org.apache.spark.sql.Row> list = new ArrayList<>();
    for (Object[] row : rows) {
      list.add(RowFactory.create(row));
    }
    return new Landed(fixture.writeFile("parquet", table + "/dt=" + day + "/" + name, schema, list), day, generation);
  }

  static Object[] row(Object... values) {
    return values;
  }

  static FileRecord ledgerFile(BatchManifest batch, Landed landed) {
    String uri = JobFixture.uri(landed.path());
    String fileId = batch.files().stream().filter(f -> f.uri().equals(uri)).findFirst().map(ManifestFile::fileId)
        .orElseThrow();
    try (Ledger ledger = fixture.openLedger()) {
      return ledger.file(fileId).orElseThrow();
    }
  }

  @Test
  void filesWithDifferentButCompatibleSchemasLandTogetherWithTheirOwnPartitions() {
    StructType wide = new StructType().add("id", DataTypes.StringType).add("version", DataTypes.IntegerType)
        .add("amount", DataTypes.LongType).add("note", DataTypes.StringType);
    StructType noNote = new StructType().add("id", DataTypes.StringType).add("version", DataTypes.IntegerType)
        .add("amount", DataTypes.IntegerType);
    TableProfile profile = orders("compatible", "lineage-columns = [_source_file]");
    Landed a = file("compatible", "2024-01-01", "a.parquet", 1, ORDERS, row("a1", 1, 10, "x"), row("a2", 1, 11, "y"));
    Landed b = file("compatible", "2024-01-02", "b.parquet", 1, wide, row("b1", 1, 5_000_000_000L, "z"));
    Landed c = file("compatible", "2024-01-01", "c.parquet", 1, noNote, row("c1", 1, 30));
    Landed d = file("compatible", "2024-01-02", "d.parquet", 1, ORDERS, row("d1", 1, 40, "w"));

    BatchLoadReport report = fixture.load(fixture.claimBatch(profile, a, b, c, d));

    assertThat(fixture.rows("SELECT id, amount, note, dt, _source_file = '" + JobFixture.uri(a.path())
            + "' FROM local.oneread.compatible ORDER BY id"))
        .containsExactly("[a1,10,x,2024-01-01,true]", "[a2,11,y,2024-01-01,true]",
            "[b1,5000000000,z,2024-01-02,false]", "[c1,30,null,2024-01-01,false]", "[d1,40,w,2024-01-02,false]");
    assertThat(fixture.rows("SELECT id, _source_file FROM local.oneread.compatible WHERE id IN ('b1', 'c1', 'd1')"
            + " ORDER BY id"))
        .containsExactly("[b1," + JobFixture.uri(b.path()) + "]", "[c1," + JobFixture.uri(c.path()) + "]",
            "[d1," + JobFixture.uri(d.path()) + "]");
    assertThat(fixture.spark.table("local.oneread.compatible").schema().apply("amount").dataType())
        .isEqualTo(DataTypes.LongType);
    assertThat(report.metrics().files()).isEqualTo(4);
  }

  @Test
  void oneBadFileAmongManyIsQuarantinedNamingItAndTheOthersLand() {
    TableProfile profile = orders("onebad", "quarantine-bad-files = true");
    List<Landed> files = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      files.add(file("onebad", "2024-01-01", "good-" + i + ".parquet", 1, ORDERS, row("k" + i, 1, i, "n")));
    }
    Landed corrupt = new Landed(fixture.writeText("onebad/dt=2024-01-01/corrupt.parquet", "PAR1 not parquet at all"),
        "2024-01-01", 1);
    StructType noKey = new StructType().add("version", DataTypes.IntegerType).add("amount", DataTypes.IntegerType);
    Landed keyless = file("onebad", "2024-01-01", "keyless.parquet", 1, noKey, row(1, 99));
    files.add(3, corrupt);
    files.add(5, keyless);
    BatchManifest batch = fixture.claimBatch(profile, files.toArray(Landed[]::new));

    BatchLoadReport report = fixture.load(batch);

    assertThat(fixture.rows("SELECT id, amount FROM local.oneread.onebad ORDER BY id"))
        .containsExactly("[k0,0]", "[k1,1]", "[k2,2]", "[k3,3]", "[k4,4]", "[k5,5]");
    assertThat(report.quarantinedFiles()).extracting(QuarantinedFile::uri)
        .containsExactly(JobFixture.uri(corrupt.path()), JobFixture.uri(keyless.path()));
    assertThat(ledgerFile(batch, corrupt).state()).isEqualTo(FileState.QUARANTINED);
    assertThat(ledgerFile(batch, corrupt).quarantineReason().orElseThrow()).contains("is not a Parquet file");
    assertThat(ledgerFile(batch, keyless).state()).isEqualTo(FileState.QUARANTINED);
    assertThat(ledgerFile(batch, keyless).quarantineReason().orElseThrow())
        .startsWith("file " + JobFixture.uri(keyless.path()) + " has no column id, which load.primary-key[0] needs");
    assertThat(ledgerFile(batch, files.get(0)).state()).isEqualTo(FileState.INGESTED);
    assertThat(report.metrics().files()).isEqualTo(6);
  }

  @Test
  void aTieOnThePrecombineFieldGoesToTheHigherGenerationThenToTheLaterFileOfTheManifest() {
    TableProfile profile = orders("ties", "");
    // Same generation: the manifest's last file wins the tie.
    Landed first = file("ties", "2024-01-01", "a-first.parquet", 7, ORDERS, row("same", 1, 1, "first"),
        row("gen", 1, 1, "old generation, later file"));
    Landed second = file("ties", "2024-01-01", "b-second.parquet", 7, ORDERS, row("same", 1, 2, "second"));
    Landed third = file("ties", "2024-01-01", "c-third.parquet", 7, ORDERS, row("same", 1, 3, "third"));
    // A higher generation wins over a later file.
    Landed newer = file("ties", "2024-01-01", "d-newer.parquet", 9, ORDERS, row("gen", 1, 9, "newer generation"));
    Landed last = file("ties", "2024-01-01", "e-last.parquet", 7, ORDERS, row("gen", 1, 2, "last file"),
        row("higher", 2, 0, "higher version"));
    Landed after = file("ties", "2024-01-01", "f-after.parquet", 7, ORDERS, row("higher", 1, 5, "lower version"));

    BatchManifest batch = fixture.claimBatch(profile, first, second, third, newer, last, after);
    assertThat(batch.files()).extracting(ManifestFile::uri).containsExactly(Stream.of(first, second, third, newer, last,
        after).map(f -> JobFixture.uri(f.path())).toArray(String[]::new));

    fixture.load(batch);

    assertThat(fixture.rows("SELECT id, note FROM local.oneread.ties ORDER BY id"))
        .containsExactly("[gen,newer generation]", "[higher,higher version]", "[same,third]");
  }

  @Test
  void filesWhoseNamesNeedEscapingAreToldApartByTheirPaths() {
    TableProfile profile = orders("escaped", "lineage-columns = [_source_file, _source_generation]");
    Landed space = file("escaped", "2024-01-01", "a file with spaces.parquet", 11, ORDERS, row("s", 1, 1, "n"));
    Landed percent = file("escaped", "2024-01-01", "100%25 sure %.parquet", 12, ORDERS, row("p", 1, 2, "n"));
    Landed equals = file("escaped", "2024-01-02", "k=v&x+y.parquet", 13, ORDERS, row("e", 1, 3, "n"));
    Landed plain = file("escaped", "2024-01-02", "plain.parquet", 14, ORDERS, row("q", 1, 4, "n"));

    fixture.load(fixture.claimBatch(profile, space, percent, equals, plain));

    assertThat(fixture.rows("SELECT id, _source_file, _source_generation, dt FROM local.oneread.escaped ORDER BY id"))
        .containsExactly(
            "[e," + JobFixture.uri(equals.path()) + ",13,2024-01-02]",
            "[p," + JobFixture.uri(percent.path()) + ",12,2024-01-01]",
            "[q," + JobFixture.uri(plain.path()) + ",14,2024-01-02]",
            "[s," + JobFixture.uri(space.path()) + ",11,2024-01-01]");
    assertThat(JobFixture.uri(space.path())).endsWith("/a file with spaces.parquet");
  }

  @Test
  void theNumberOfSparkJobsDoesNotGrowWithTheNumberOfFiles() throws Exception {
    int few = jobsToLoad("fewfiles", 3);
    int many = jobsToLoad("manyfiles", 12);

    assertThat(many).as("Spark jobs for 12 files, against %s for 3", few).isEqualTo(few);
  }

  /** The Spark jobs one load of a first batch of {@code files} parquet files runs. */
  private int jobsToLoad(String table, int files) throws Exception {
    TableProfile profile = orders(table, "");
    List<Landed> landed = new ArrayList<>();
    for (int i = 0; i < files; i++) {
      landed.add(file(table, "2024-01-0" + (1 + i % 2), "f" + i + ".parquet", 1, ORDERS, row(table + i, 1, i, "n")));
    }
    BatchManifest batch = fixture.claimBatch(profile, landed.toArray(Landed[]::new));
    int jobs = fixture.sparkJobs(() -> fixture.load(batch));
    assertThat(fixture.rows("SELECT count(*) FROM local.oneread." + table)).containsExactly("[" + files + "]");
    return jobs;
  }
}
