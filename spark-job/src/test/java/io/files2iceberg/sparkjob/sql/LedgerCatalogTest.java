package io.files2iceberg.sparkjob.sql;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.LedgerTable;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.profile.Home;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The read-only catalog {@code files2iceberg} over the JSON lines the CLI hands over: typed
 * columns, names that resolve beside the default Iceberg catalog, and every write refused naming
 * the table.
 */
class LedgerCatalogTest {
  @TempDir static Path root;
  static Home home;
  static SparkSession spark;
  static final Instant RECORDED = Instant.parse("2026-11-27T08:00:00.123456Z");
  static final Instant EVENT = Instant.parse("2026-11-27T07:59:00Z");
  /** Above 2^53: a double would round it. */
  static final long SNAPSHOT = 9_007_199_254_740_993L;

  @BeforeAll
  static void handOver() throws Exception {
    home = new Home(root.resolve("home"));
    Path folder = Files.createDirectories(root.resolve("ledger-tables"));
    write(folder, LedgerTable.FILES, List.of(
        file("f1", "local.demo.clicks", FileState.INGESTED, Optional.empty()),
        file("f2", "local.demo.clicks", FileState.QUARANTINED, Optional.of("not a safe change: amount STRING")),
        file("f3", "local.demo.views", FileState.QUARANTINED, Optional.of("corrupt"))));
    write(folder, LedgerTable.PARTITIONS, List.of(new PartitionRecord("local.demo.clicks", "2026-11-27",
        Optional.of("file:///landing/clicks/dt=2026-11-27/"), PartitionState.FAILED, true, Optional.of("b1"), 3,
        Optional.of("executor lost"), Optional.of(RECORDED), RECORDED)));
    write(folder, LedgerTable.BATCHES, List.of(new BatchRecord("b1", "local.demo.clicks", BatchState.COMMITTED,
        List.of("2026-11-27", "2026-11-28"), List.of("f1", "f2"), List.of("e1", "e2"), 1, 1, false, Optional.empty(),
        Optional.of(SNAPSHOT), Optional.of(new BatchMetrics(2, 20, 4, 0, 3, 1, 0, 0, 10, 20, 30, 61_000)),
        Optional.empty(), RECORDED, RECORDED.plusSeconds(90))));
    Map<String, String> properties = new HashMap<>(SqlMain.catalogProperties(home, Optional.empty()));
    properties.putAll(LedgerCatalog.sparkProperties(folder));
    spark = TestSessions.newSession(properties);
  }

  private static FileRecord file(String id, String table, FileState state, Optional<String> reason) {
    return new FileRecord(id, table, "2026-11-27", "", "landing/" + id + ".csv", 17, "file:///landing/" + id + ".csv",
        10, "evt-" + id, EVENT, Optional.empty(), state, Optional.of("b1"), reason, RECORDED,
        state == FileState.INGESTED ? Optional.of(SNAPSHOT) : Optional.empty(),
        state == FileState.INGESTED ? Optional.of(new FileRows(3, 1, 0)) : Optional.empty(),
        state == FileState.INGESTED ? Optional.of(RECORDED.plusSeconds(90)) : Optional.empty(), Optional.empty());
  }

  private static <R> void write(Path folder, LedgerTable<R> table, List<R> records) throws IOException {
    try (Writer writer = Files.newBufferedWriter(folder.resolve(table.fileName()));
        JsonGenerator json = new JsonFactory().createGenerator(writer)) {
      json.setRootValueSeparator(null);
      for (R record : records) {
        table.writeRow(json, record);
        json.flush();
        writer.write('\n');
      }
    }
  }

  private SqlRun run(String... args) {
    return SqlRun.of(spark, home, args);
  }

  @Test
  void theIssuesQueryRunsAsWrittenWithTheDefaultCatalogLocal() {
    SqlRun run = run("--json",
        "SELECT file_id, reason FROM files2iceberg.files WHERE table = 'local.demo.clicks' AND state = 'QUARANTINED'");

    assertThat(run.err()).isEmpty();
    assertThat(run.out().strip()).isEqualTo("{\"file_id\":\"f2\",\"reason\":\"not a safe change: amount STRING\"}");
  }

  @Test
  void columnsAreTypedTimesAsTimestampsIdsAsExactBigints() {
    SqlRun run = run("--json", "SELECT typeof(recorded_at) AS t, CAST(recorded_at AS STRING) AS recorded, "
        + "CAST(event_time AS STRING) AS event, "
        + "snapshot_id = " + SNAPSHOT + " AS exact, rows_read FROM files2iceberg.files WHERE file_id = 'f1'",
        "SELECT typeof(snapshot_id) AS t, partitions, files, rows_inserted, lag_millis, error FROM files2iceberg.batches",
        "SELECT partition, state, marker_seen, attempts, last_error FROM files2iceberg.partitions");

    assertThat(run.out().strip().split("\\R")).containsExactly(
        "{\"t\":\"timestamp\",\"recorded\":\"2026-11-27 08:00:00.123456\",\"event\":\"2026-11-27 07:59:00\","
            + "\"exact\":true,\"rows_read\":3}",
        "{\"t\":\"bigint\",\"partitions\":[\"2026-11-27\",\"2026-11-28\"],\"files\":2,\"rows_inserted\":3,"
            + "\"lag_millis\":61000}",
        "{\"partition\":\"2026-11-27\",\"state\":\"FAILED\",\"marker_seen\":true,\"attempts\":3,"
            + "\"last_error\":\"executor lost\"}");
  }

  @Test
  void showTablesListsTheThreeTables() {
    SqlRun run = run("--json", "SHOW TABLES IN files2iceberg");

    assertThat(run.out()).contains("\"tableName\":\"files\"").contains("\"tableName\":\"partitions\"")
        .contains("\"tableName\":\"batches\"");
  }

  @Test
  void everyWriteToALedgerTableFailsNamingIt() {
    String readOnly = " is read-only: the files2iceberg tables show the ledger (files2iceberg.files, "
        + "files2iceberg.partitions, files2iceberg.batches); the pipeline and the operator commands (retry, replay, "
        + "quarantine release) change it\n";
    Map<String, String> errors = new LinkedHashMap<>();
    errors.put("INSERT INTO files2iceberg.files SELECT * FROM files2iceberg.files",
        "Table files2iceberg.files does not support append in batch mode.\n");
    errors.put("DELETE FROM files2iceberg.files WHERE state = 'QUARANTINED'", "files2iceberg.files" + readOnly);
    errors.put("UPDATE files2iceberg.partitions SET state = 'READY'", "files2iceberg.partitions" + readOnly);
    errors.put("MERGE INTO files2iceberg.batches t USING (SELECT 'b1' AS batch_id) s ON t.batch_id = s.batch_id "
        + "WHEN MATCHED THEN DELETE", "files2iceberg.batches" + readOnly);
    errors.put("DROP TABLE files2iceberg.batches", "files2iceberg.batches" + readOnly);
    errors.put("CREATE TABLE files2iceberg.mine (a INT)", "files2iceberg.mine" + readOnly);
    errors.put("ALTER TABLE files2iceberg.files ADD COLUMN note STRING", "files2iceberg.files" + readOnly);
    errors.forEach((statement, error) -> {
      SqlRun run = run(statement);

      assertThat(run.code()).as(statement).isEqualTo(1);
      assertThat(run.err()).as(statement).isEqualTo("error: " + error);
    });
    assertThat(run("--json", "SELECT count(*) AS n FROM files2iceberg.files").out().strip()).isEqualTo("{\"n\":3}");
  }
}
