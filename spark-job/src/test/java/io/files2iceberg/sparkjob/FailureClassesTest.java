package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.manifest.AttemptResult;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.JobExit;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.JobFixture.Landed;
import io.files2iceberg.sparkjob.extract.LiveGenerations;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.spark.SparkException;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every failure of the job is classified where it becomes an outcome: Spark's checked exceptions
 * too. Deterministic causes reject the batch (not retried), transient ones fail it (retried), and
 * the result names the error class and the file at fault.
 */
class FailureClassesTest {
  @TempDir static Path home;
  static JobFixture fixture;

  static final StructType ORDERS = new StructType()
      .add("id", DataTypes.StringType)
      .add("amount", DataTypes.StringType);

  @BeforeAll
  static void startSession() {
    fixture = JobFixture.embedded(home);
  }

  /** An append (no key: the cheapest write) of the files under {@code landing/<table>}. */
  static TableProfile orders(String table, String extra) {
    return fixture.profile(table, """
        extract {
          path = "file://%s/*/*"
          format = parquet
        }
        load.iceberg.table = "local.failures.%s"
        %s
        """.formatted(fixture.landing(table), table, extra));
  }

  static Landed orders(String table, String name, int rows) {
    List<Row> values = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      values.add(RowFactory.create(name + "-" + i, "amount of row " + i + " of file " + name));
    }
    return Landed.of(fixture.writeFile("parquet", table + "/p1/" + name + ".parquet", ORDERS, values,
        Map.of("compression", "uncompressed")), "p1");
  }

  @Test
  void anAnalysisExceptionRejectsTheBatchWithSparksErrorClass() {
    TableProfile profile = orders("analysis", "transform.filter = [\"no_such_column > 0\"]");
    BatchManifest batch = fixture.claimBatch(profile, orders("analysis", "a", 2));

    AttemptResult result = fixture.runAttempt(fixture.writeManifest(batch), LiveGenerations.byScheme());

    assertThat(result.exit()).isEqualTo(JobExit.REJECTED);
    assertThat(result.cause().orElseThrow().errorClass()).startsWith("UNRESOLVED_COLUMN");
    assertThat(result.error().orElseThrow()).startsWith("files2iceberg: table local.failures.analysis batch "
        + batch.batchId() + " rejected: ").contains("no_such_column");
  }

  @Test
  void aCheckedSparkExceptionFromAnActionIsClassifiedAndItsResultWritten() {
    TableProfile profile = orders("action",
        "transform.filter = [\"CASE WHEN id = 'a-1' THEN raise_error('refused by the test') IS NULL ELSE true END\"]");
    BatchManifest batch = fixture.claimBatch(profile, orders("action", "a", 3));

    AttemptResult result = fixture.runAttempt(fixture.writeManifest(batch), LiveGenerations.byScheme());

    assertThat(result.exit()).isEqualTo(JobExit.FAILED);
    // Spark 3.5 raises a plain RuntimeException in the task; the driver gets the checked SparkException over it.
    assertThat(result.cause().orElseThrow().errorClass()).isEqualTo(RuntimeException.class.getName());
    assertThat(result.error().orElseThrow()).contains("refused by the test");
    assertThat(fixture.stderr).startsWith("files2iceberg: table local.failures.action batch " + batch.batchId()
        + " failed: ");
  }

  @Test
  void anInjectedExecutorLossFailsTheBatchForARetry() {
    TableProfile profile = orders("executor", "");
    BatchManifest batch = fixture.claimBatch(profile, orders("executor", "a", 2));
    LiveGenerations losingAnExecutor = object -> {
      throw sneaky(new SparkException("Job aborted due to stage failure: Task 0 in stage 3.0 failed 4 times, most"
          + " recent failure: Lost task 0.3 in stage 3.0 (TID 7) (10.0.0.5 executor 2): ExecutorLostFailure"
          + " (executor 2 exited caused by one of the running tasks) Reason: Container lost"));
    };

    AttemptResult result = fixture.runAttempt(fixture.writeManifest(batch), losingAnExecutor);

    assertThat(result.exit()).isEqualTo(JobExit.FAILED);
    assertThat(result.exit().isRetryable()).isTrue();
    assertThat(result.cause().orElseThrow().errorClass()).isEqualTo("ExecutorLostFailure");
    assertThat(result.cause().orElseThrow().file()).isEmpty();
    assertThat(result.error().orElseThrow()).contains("ExecutorLostFailure");
  }

  @Test
  void aCorruptDataPageBehindAValidFooterRejectsTheBatchNamingTheFile() throws IOException {
    TableProfile profile = orders("page", "");
    Landed good = orders("page", "a-good", 50);
    Landed corrupt = corruptFirstPage(orders("page", "b-corrupt", 50));
    BatchManifest batch = fixture.claimBatch(profile, good, corrupt);

    AttemptResult result = fixture.runAttempt(fixture.writeManifest(batch), LiveGenerations.byScheme());

    assertThat(result.exit()).as("stderr: %s", fixture.stderr).isEqualTo(JobExit.REJECTED);
    assertThat(result.cause().orElseThrow().file()).contains(uriOf(batch, corrupt));
    assertThat(fixture.spark.catalog().tableExists("local.failures.page")).isFalse();
  }

  @Test
  void withQuarantineACorruptDataPageQuarantinesThatFileAloneAndTheOthersLoad() throws IOException {
    TableProfile profile = orders("pageq", "extract.quarantine-bad-files = true");
    Landed good = orders("pageq", "a-good", 3);
    Landed corrupt = corruptFirstPage(orders("pageq", "b-corrupt", 50));
    Landed other = orders("pageq", "c-good", 2);
    BatchManifest batch = fixture.claimBatch(profile, good, corrupt, other);

    AttemptResult result = fixture.runAttempt(fixture.writeManifest(batch), LiveGenerations.byScheme());

    assertThat(result.exit()).as("stderr: %s", fixture.stderr).isEqualTo(JobExit.LOADED);
    assertThat(fixture.rows("SELECT id FROM local.failures.pageq ORDER BY id"))
        .containsExactly("[a-good-0]", "[a-good-1]", "[a-good-2]", "[c-good-0]", "[c-good-1]");
    try (Ledger ledger = fixture.openLedger()) {
      assertThat(ledger.batch(batch.batchId()).orElseThrow().state()).isEqualTo(BatchState.COMMITTED);
      FileRecord stored = ledger.file(fileId(batch, corrupt)).orElseThrow();
      assertThat(stored.state()).isEqualTo(FileState.QUARANTINED);
      assertThat(ledger.file(fileId(batch, good)).orElseThrow().state()).isEqualTo(FileState.INGESTED);
      assertThat(ledger.file(fileId(batch, other)).orElseThrow().state()).isEqualTo(FileState.INGESTED);
    }
  }

  /** Overwrites the header of the first column's first data page; the footer stays valid. */
  static Landed corruptFirstPage(Landed landed) throws IOException {
    ParquetMetadata footer = ParquetFileReader.readFooter(new Configuration(),
        new org.apache.hadoop.fs.Path(landed.path().toUri()));
    ColumnChunkMetaData column = footer.getBlocks().get(0).getColumns().get(0);
    try (RandomAccessFile file = new RandomAccessFile(landed.path().toFile(), "rw")) {
      file.seek(column.getStartingPos());
      byte[] garbage = new byte[12];
      java.util.Arrays.fill(garbage, (byte) 0xFF);
      file.write(garbage);
    }
    return landed;
  }

  static String uriOf(BatchManifest batch, Landed landed) {
    return batch.files().stream().filter(f -> f.uri().equals(JobFixture.uri(landed.path()))).findFirst()
        .map(ManifestFile::uri).orElseThrow();
  }

  static String fileId(BatchManifest batch, Landed landed) {
    return batch.files().stream().filter(f -> f.uri().equals(JobFixture.uri(landed.path()))).findFirst()
        .map(ManifestFile::fileId).orElseThrow();
  }

  @SuppressWarnings("unchecked")
  static <E extends Throwable> RuntimeException sneaky(Throwable error) throws E {
    throw (E) error;
  }
}
