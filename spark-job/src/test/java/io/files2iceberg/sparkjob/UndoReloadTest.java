package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.profile.ProfileJson;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.JobFixture.Landed;
import io.files2iceberg.sparkjob.undo.RollbackMain;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.util.List;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Undo with real batches of the job: a batch that deleted a key (a tombstone) and rejected a bad
 * record is rolled back with {@link RollbackMain}, then its files are loaded again under a new
 * batch id, as the batcher does once it puts them back: the table, its rejected rows and its
 * tombstones end as they were after the first load, each row once.
 */
class UndoReloadTest {
  @TempDir static Path home;
  static JobFixture fixture;

  @BeforeAll
  static void startSession() {
    fixture = JobFixture.embedded(home);
  }

  private static TableProfile changes(String table) {
    return fixture.profile(table, """
        extract {
          path = "file://%s/dt=*/*.parquet"
          batch-file {
            partition-type = date
            pattern = ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+"
            date-format = yyyy-MM-dd
          }
        }
        transform { cast.columns { val = INT }, on-bad-record = reject }
        load {
          iceberg.table = "local.undo.%s"
          primary-key = [id]
          partition-by = [dt]
          iceberg.precombine-field = ts
          cdc { op-column = op, delete-values = ["D"] }
        }
        """.formatted(fixture.landing(table), table));
  }

  private static Landed file(String table, String name, Object[]... rows) {
    List<org.apache.spark.sql.Row> list = java.util.Arrays.stream(rows).map(RowFactory::create).toList();
    return Landed.of(fixture.writeFile("parquet", table + "/dt=2024-01-01/" + name, CdcDeletesTest.CHANGES, list), "2024-01-01");
  }

  private static Timestamp at(String time) {
    return Timestamp.valueOf("2024-01-01 " + time);
  }

  @Test
  void aRolledBackBatchLoadedAgainLeavesItsRowsRejectsAndTombstonesOnce() throws Exception {
    String table = "reload";
    String name = "local.undo." + table;
    TableProfile profile = changes(table);
    Landed inserts = file(table, "a.parquet", new Object[] {"a", "I", at("01:00:00"), "1"},
        new Object[] {"b", "I", at("01:00:00"), "2"});
    Landed deletes = file(table, "b.parquet", new Object[] {"a", "D", at("02:00:00"), null},
        new Object[] {"c", "I", at("02:00:00"), "x"});
    long first = fixture.load(fixture.unrecordedBatch(profile, "first", inserts)).snapshotId();
    fixture.load(fixture.unrecordedBatch(profile, "second", deletes));
    List<String> rows = fixture.rows("SELECT id, val FROM " + name + " ORDER BY id");
    List<String> rejected = fixture.rows("SELECT batch_id, record FROM " + name + "__rejected");
    List<String> tombstones = fixture.rows("SELECT id, ts FROM " + name + "__deletes");

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = RollbackMain.run(fixture.spark, new String[] {"--profile", ProfileJson.toJson(profile), "--table", name,
        "--to-snapshot", Long.toString(first)}, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));

    assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isEqualTo(0);
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("\"batchIds\":[\"second\"]");
    fixture.spark.sql("REFRESH TABLE " + name);
    assertThat(fixture.rows("SELECT id, val FROM " + name + " ORDER BY id")).containsExactly("[a,1]", "[b,2]");
    assertThat(fixture.rows("SELECT count(*) FROM " + name + "__rejected")).containsExactly("[0]");
    assertThat(fixture.rows("SELECT count(*) FROM " + name + "__deletes")).containsExactly("[0]");

    fixture.load(fixture.unrecordedBatch(profile, "second-again", deletes));

    assertThat(fixture.rows("SELECT id, val FROM " + name + " ORDER BY id")).isEqualTo(rows);
    assertThat(fixture.rows("SELECT batch_id, record FROM " + name + "__rejected"))
        .containsExactly(rejected.get(0).replace("[second,", "[second-again,"));
    assertThat(fixture.rows("SELECT id, ts FROM " + name + "__deletes")).isEqualTo(tombstones);
  }
}
