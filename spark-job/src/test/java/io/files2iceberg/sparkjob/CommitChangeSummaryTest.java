package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.JobFixture.Landed;
import io.files2iceberg.sparkjob.change.ChangeSummary;
import io.files2iceberg.sparkjob.change.ChangeSummary.RowCounts;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a batch's commit says about itself ({@link ChangeSummary}), read back through Iceberg's API:
 * the partitions it changed and the counts of its report; and the tag a risky batch leaves on the
 * snapshot before it, which snapshot expiry keeps.
 */
class CommitChangeSummaryTest {
  @TempDir static Path home;
  static JobFixture fixture;

  static final StructType CUSTOMERS = new StructType()
      .add("id", DataTypes.IntegerType)
      .add("name", DataTypes.StringType);
  static final StructType CUSTOMERS_WITH_TIER = CUSTOMERS.add("tier", DataTypes.StringType);

  @BeforeAll
  static void startSession() {
    fixture = JobFixture.embedded(home);
  }

  /** A table landed as {@code <table>/dt=<day>/<file>}, partitioned by day; {@code load} adds load keys. */
  static TableProfile customers(String table, String mode, String load) {
    return fixture.dailyParquet(table, mode, "local.feed." + table, load, "");
  }

  static Landed file(String table, String day, String name, StructType schema, Row... rows) {
    return Landed.of(fixture.writeFile("parquet", table + "/dt=" + day + "/" + name, schema, List.of(rows)), day);
  }

  static Row customer(int id, String name) {
    return RowFactory.create(id, name);
  }

  static Table table(String table) {
    return fixture.icebergTable("local.feed." + table);
  }

  static Map<String, String> summary(String table, long snapshotId) {
    return table(table).snapshot(snapshotId).summary();
  }

  static RowCounts counts(BatchLoadReport report) {
    return new RowCounts(report.metrics().rowsInserted(), report.metrics().rowsUpdated(),
        report.metrics().rowsDeleted());
  }

  static Optional<SnapshotRef> tagBefore(String table, String batchId) {
    return Optional.ofNullable(table(table).refs().get(ChangeSummary.tagBefore(batchId)));
  }

  static List<String> tags(String table) {
    return table(table).refs().entrySet().stream().filter(e -> e.getValue().isTag()).map(Map.Entry::getKey).toList();
  }

  @Test
  void batchOverTwoPartitionsNamesBothWithTheCountsOfItsReport() {
    TableProfile profile = customers("keyed", "incremental", "primary-key = [id]\npartition-by = [dt]");
    BatchLoadReport first = fixture.load(fixture.claimBatch(profile,
        file("keyed", "2024-01-01", "a.parquet", CUSTOMERS, customer(1, "ann"), customer(2, "bob")),
        file("keyed", "2024-01-02", "a.parquet", CUSTOMERS, customer(3, "cid"))));

    Map<String, String> summary = summary("keyed", first.snapshotId());
    assertThat(summary).containsEntry(ChangeSummary.PARTITIONS_COUNT, "2")
        .doesNotContainKey(ChangeSummary.PARTITIONS_TRUNCATED);
    assertThat(ChangeSummary.listedPartitions(summary)).contains(List.of("2024-01-01", "2024-01-02"));
    assertThat(ChangeSummary.rows(summary)).contains(new RowCounts(3, 0, 0)).contains(counts(first));

    // The next batch updates one stored row and inserts one, in one partition.
    BatchLoadReport second = fixture.load(fixture.claimBatch(profile,
        file("keyed", "2024-01-02", "b.parquet", CUSTOMERS, customer(3, "cyd"), customer(4, "dee"))));

    Map<String, String> next = summary("keyed", second.snapshotId());
    assertThat(ChangeSummary.listedPartitions(next)).contains(List.of("2024-01-02"));
    assertThat(next).containsEntry(ChangeSummary.PARTITIONS_COUNT, "1");
    assertThat(ChangeSummary.rows(next)).contains(new RowCounts(1, 1, 0)).contains(counts(second));
  }

  @Test
  void mergeOnReadCommitCountsWhatItsReportCounts() {
    TableProfile profile = customers("mor", "incremental", "primary-key = [id]\nwrite-mode = merge-on-read");
    fixture.load(fixture.claimBatch(profile,
        file("mor", "2024-01-01", "a.parquet", CUSTOMERS, customer(1, "ann"), customer(2, "bob"))));
    BatchLoadReport second = fixture.load(fixture.claimBatch(profile,
        file("mor", "2024-01-01", "b.parquet", CUSTOMERS, customer(2, "bea"), customer(3, "cid"))));

    assertThat(ChangeSummary.rows(summary("mor", second.snapshotId()))).contains(new RowCounts(1, 1, 0))
        .contains(counts(second));
  }

  @Test
  void appendWritesItsCountsIntoTheSummary() {
    TableProfile profile = customers("appended", "incremental", "");
    BatchLoadReport report = fixture.load(fixture.claimBatch(profile,
        file("appended", "2024-01-01", "a.parquet", CUSTOMERS, customer(1, "ann"), customer(2, "bob"))));

    assertThat(summary("appended", report.snapshotId()))
        .containsEntry(ChangeSummary.ROWS_INSERTED, "2")
        .containsEntry(ChangeSummary.ROWS_UPDATED, "0")
        .containsEntry(ChangeSummary.ROWS_DELETED, "0")
        .containsEntry(ChangeSummary.PARTITIONS, "[\"2024-01-01\"]");
    assertThat(report.metrics().rowsInserted()).isEqualTo(2);
    assertThat(tags("appended")).as("an ordinary batch is not tagged").isEmpty();
  }

  @Test
  void batchThatAddsAColumnTagsTheSnapshotBeforeItForThirtyDays() {
    TableProfile profile = customers("widened", "incremental", "primary-key = [id]");
    BatchLoadReport first = fixture.load(fixture.claimBatch(profile,
        file("widened", "2024-01-01", "a.parquet", CUSTOMERS, customer(1, "ann"))));
    BatchLoadReport ordinary = fixture.load(fixture.claimBatch(profile,
        file("widened", "2024-01-01", "b.parquet", CUSTOMERS, customer(2, "bob"))));
    assertThat(tags("widened")).as("ordinary batches are not tagged").isEmpty();

    BatchLoadReport widening = fixture.load(fixture.claimBatch(profile,
        file("widened", "2024-01-02", "a.parquet", CUSTOMERS_WITH_TIER, RowFactory.create(3, "cid", "gold"))));

    SnapshotRef tag = tagBefore("widened", widening.batchId()).orElseThrow();
    assertThat(tag.isTag()).isTrue();
    assertThat(tag.snapshotId()).isEqualTo(ordinary.snapshotId()).isNotEqualTo(first.snapshotId());
    assertThat(tag.maxRefAgeMs()).isEqualTo(Duration.ofDays(30).toMillis());
    assertThat(tags("widened")).containsExactly(ChangeSummary.tagBefore(widening.batchId()));
  }

  @Test
  void snapshotDeletesTagTheSnapshotBeforeWithTheProfilesRetentionAndExpiryKeepsIt() {
    TableProfile profile = customers("snapshots", "full",
        "primary-key = [id]\nsnapshot-deletes = true\nundo-tag-retention = 7d");
    Landed monday = file("snapshots", "2024-01-01", "a.parquet", CUSTOMERS, customer(1, "ann"), customer(2, "bob"),
        customer(3, "cid"));
    BatchLoadReport first = fixture.load(fixture.unrecordedBatch(profile, "snapshots-1", monday));
    assertThat(tagBefore("snapshots", "snapshots-1")).as("the first batch has no snapshot before it").isEmpty();

    BatchLoadReport second = fixture.load(fixture.unrecordedBatch(profile, "snapshots-2",
        file("snapshots", "2024-01-02", "a.parquet", CUSTOMERS, customer(1, "ann"), customer(2, "bob"))));
    assertThat(second.metrics().rowsDeleted()).isEqualTo(1);
    assertThat(ChangeSummary.rows(summary("snapshots", second.snapshotId()))).contains(counts(second));
    SnapshotRef tag = tagBefore("snapshots", "snapshots-2").orElseThrow();
    assertThat(tag.snapshotId()).isEqualTo(first.snapshotId());
    assertThat(tag.maxRefAgeMs()).isEqualTo(Duration.ofDays(7).toMillis());

    // Expiry of every snapshot but the current one keeps the tagged one: a ref holds it. (Batch 3
    // tags the second snapshot, whose tag goes, so that expiry has one to take.)
    fixture.load(fixture.unrecordedBatch(profile, "snapshots-3",
        file("snapshots", "2024-01-03", "a.parquet", CUSTOMERS, customer(1, "ann"), customer(2, "bob"))));
    assertThat(tagBefore("snapshots", "snapshots-3").orElseThrow().snapshotId()).isEqualTo(second.snapshotId());
    table("snapshots").manageSnapshots().removeTag(ChangeSummary.tagBefore("snapshots-3")).commit();
    fixture.spark.sql("CALL local.system.expire_snapshots(table => 'feed.snapshots', older_than => TIMESTAMP '"
        + Timestamp.from(Instant.now().plusSeconds(60)) + "', retain_last => 1)").collectAsList();

    List<Long> kept = new ArrayList<>();
    table("snapshots").snapshots().forEach(s -> kept.add(s.snapshotId()));
    assertThat(kept).contains(first.snapshotId()).doesNotContain(second.snapshotId());
  }

  @Test
  void fullOverwriteTagsTheSnapshotBeforeAndARetryFindsItsTagThere() {
    TableProfile profile = customers("overwritten", "full", "");
    BatchLoadReport first = fixture.load(fixture.unrecordedBatch(profile, "overwritten-1",
        file("overwritten", "2024-01-01", "a.parquet", CUSTOMERS, customer(1, "ann"))));
    // An earlier attempt of batch 2 tagged the snapshot, then died before its commit.
    Table table = table("overwritten");
    table.manageSnapshots().createTag(ChangeSummary.tagBefore("overwritten-2"), first.snapshotId())
        .setMaxRefAgeMs(ChangeSummary.tagBefore("overwritten-2"), Duration.ofDays(30).toMillis()).commit();

    BatchLoadReport retried = fixture.load(fixture.unrecordedBatch(profile, "overwritten-2",
        file("overwritten", "2024-01-02", "a.parquet", CUSTOMERS, customer(2, "bob"))));

    assertThat(tagBefore("overwritten", "overwritten-2").orElseThrow().snapshotId()).isEqualTo(first.snapshotId());
    assertThat(retried.metrics().rowsInserted()).isEqualTo(1);
    assertThat(fixture.rows("SELECT id FROM local.feed.overwritten")).containsExactly("[2]");

    BatchLoadReport third = fixture.load(fixture.unrecordedBatch(profile, "overwritten-3",
        file("overwritten", "2024-01-03", "a.parquet", CUSTOMERS, customer(3, "cid"))));
    assertThat(tagBefore("overwritten", "overwritten-3").orElseThrow().snapshotId())
        .isEqualTo(retried.snapshotId()).isNotEqualTo(third.snapshotId());
  }

  @Test
  void zeroRetentionLeavesNoTag() {
    TableProfile profile = customers("untagged", "full", "undo-tag-retention = 0");
    fixture.load(fixture.unrecordedBatch(profile, "untagged-1",
        file("untagged", "2024-01-01", "a.parquet", CUSTOMERS, customer(1, "ann"))));
    fixture.load(fixture.unrecordedBatch(profile, "untagged-2",
        file("untagged", "2024-01-02", "a.parquet", CUSTOMERS, customer(2, "bob"))));

    assertThat(tags("untagged")).isEmpty();
  }
}
