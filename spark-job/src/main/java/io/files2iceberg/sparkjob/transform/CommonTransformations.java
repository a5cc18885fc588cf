package io.files2iceberg.sparkjob.transform;

import static io.files2iceberg.sparkjob.extract.SqlNames.column;

import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.profile.Transform.BadRecordPolicy;
import io.files2iceberg.core.profile.Transform;
import io.files2iceberg.sparkjob.extract.DeclaredTypes;
import io.files2iceberg.sparkjob.extract.ExtractedBatch;
import io.files2iceberg.sparkjob.extract.InternalColumns;
import io.files2iceberg.sparkjob.extract.LoadBatch;
import io.files2iceberg.sparkjob.extract.SourceColumn;
import io.files2iceberg.sparkjob.stage.BatchFailedException;
import io.files2iceberg.sparkjob.stage.Stage;
import io.files2iceberg.sparkjob.transform.BadRecords.BadRecordCheck;
import io.files2iceberg.sparkjob.transform.BadRecords.Rescue;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The profile's transforms, in this order (docs/spark-job.md documents it):
 *
 * <ol>
 *   <li>{@code transform.filter}: Spark SQL predicates on the <em>source</em> column names; a row is
 *       kept when all hold (a NULL result drops it). Filtered rows are counted, not loaded.
 *   <li>{@code transform.rename-columns}: source name to target name, one after the other in the
 *       order given; a rename of a column the batch does not have is skipped.
 *   <li>{@code transform.cast.columns}: target name to Spark SQL type. A cast column no file has is
 *       added as NULL of that type.
 * </ol>
 *
 * <p>So with the example profile a {@code user_id} of {@code ''} is filtered out before the cast
 * to BIGINT ever sees it ({@link RenameAndCast}). Then every kept row is checked ({@link
 * BadRecords}); a bad record is one where a cast failed
 * (the value is not NULL, the cast result is), where a primary key column is NULL, or (json, csv)
 * a line the reader could not parse. With {@code transform.on-bad-record = fail} (the default) the
 * batch fails naming the file, the column and the value; with {@code reject} the bad records go to
 * the rejected dataset with their reason and source file. Nothing is dropped silently.
 *
 * <p>With {@code transform.rescued-data-column}, a failed cast is no bad record: the value is NULL in
 * its column and kept, as text, in the rescued data column, a JSON object of target column names
 * to values that also holds {@code _file_path}, the row's object URI; so do the values of the
 * columns the table cannot take ({@link InternalColumns#RESCUED}, from extract). A row with nothing
 * to rescue has NULL there. A primary key column's failed cast stays a bad record (its NULL key
 * could never load), as do a malformed line and a NULL key.
 *
 * <p>Then the rows left (kept, no bad record, no {@code load.cdc} delete) are checked against
 * {@code quality.expectations} ({@link Expectations}): each check is a column of the same
 * projection, and the aggregates are decided per partition from sums of the same per-file
 * aggregate. A row a check (or its partition's aggregate) rejects joins the rejected rows, named by
 * its expectation; one it drops is not loaded and is not counted as filtered.
 *
 * <p>{@link InternalColumns#ABSENT} follows the renames: it names the columns a row's file lacks
 * by their target names, and also lists the cast columns no file has.
 *
 * <p>Casts use {@code try_cast}, so the outcome does not depend on {@code spark.sql.ansi.enabled}.
 * The rows are read once: the result is cached and counted in a single pass.
 */
public final class CommonTransformations implements Stage<ExtractedBatch, TransformedBatch> {
  private static final Logger LOG = LoggerFactory.getLogger(CommonTransformations.class);

  private static final String PASS = InternalColumns.PREFIX + "pass";
  private static final String BAD_COLUMN = InternalColumns.PREFIX + "bad_column";
  private static final String BAD_VALUE = InternalColumns.PREFIX + "bad_value";
  private static final String BAD_REASON = InternalColumns.PREFIX + "bad_reason";
  private static final String BAD_RECORD = InternalColumns.PREFIX + "bad_record";
  /** The prefix of the source columns' copies, which the rejected rows' record is made of. */
  private static final String SOURCE = InternalColumns.PREFIX + "source_";

  @Override
  public TransformedBatch apply(ExtractedBatch extracted) {
    long start = System.nanoTime();
    LoadBatch batch = extracted.batch();
    Transform transform = batch.profile().transform();
    Dataset<Row> input = extracted.rows();

    Column pass = filter(input, transform);
    List<TargetColumn> targets = RenameAndCast.targets(extracted, transform, DeclaredTypes.hints(batch.profile()),
        batch.profile().extract().timeZone());
    List<Rescue> rescues = new ArrayList<>();
    List<BadRecordCheck> checks = BadRecords.checks(extracted, targets, batch, rescues);
    Optional<String> rescuedColumn = transform.rescuedDataColumn();
    if (rescuedColumn.isPresent()) {
      targets.add(BadRecords.rescuedTarget(rescuedColumn.get(), input, targets, rescues));
    }

    Column badReason = BadRecords.firstMatching(checks, BadRecordCheck::reason);
    List<Column> select = new ArrayList<>();
    for (TargetColumn target : targets) {
      select.add(target.value().as(target.column().name()));
    }
    for (String internal : InternalColumns.ALL) {
      select.add(internal.equals(InternalColumns.ABSENT) ? RenameAndCast.absentTargets(transform, targets).as(internal)
          : column(internal));
    }
    select.add(pass.as(PASS));
    select.add(functions.when(pass, BadRecords.firstMatching(checks, BadRecordCheck::column)).as(BAD_COLUMN));
    select.add(functions.when(pass, BadRecords.firstMatching(checks, BadRecordCheck::value)).as(BAD_VALUE));
    select.add(functions.when(pass, badReason).as(BAD_REASON));
    // The source columns ride along under internal names until the rows a reject keeps are known.
    List<String> sources = new ArrayList<>();
    for (SourceColumn source : extracted.columns()) {
      select.add(column(source.name()).as(SOURCE + sources.size()));
      sources.add(source.name());
    }
    Dataset<Row> projected = input.select(select.toArray(Column[]::new));

    // The expectations are columns of the same projection: the rows are still read once.
    Expectations expectations = Expectations.of(batch, projected);
    Column isBad = column(PASS).and(column(BAD_REASON).isNotNull());
    Column applies = column(PASS).and(column(BAD_REASON).isNull());
    Dataset<Row> evaluated = expectations.evaluated(projected, applies);
    Column rejectedRow = isBad.or(Expectations.rejectedByCheck());
    if (expectations.mayRejectPartitions()) {
      // Which partitions an aggregate rejects is known after the pass: keep every row's record.
      rejectedRow = rejectedRow.or(applies);
    }
    List<Column> kept = new ArrayList<>();
    for (String name : evaluated.columns()) {
      if (!name.startsWith(SOURCE)) {
        kept.add(column(name));
      }
    }
    kept.add(functions.when(rejectedRow, BadRecords.sourceRecord(sources, SOURCE)).as(BAD_RECORD));
    Dataset<Row> staged = batch.scope().cache(evaluated.select(kept.toArray(Column[]::new)));

    // The one pass over the cached rows counts per file (a row per file, keyed by its manifest
    // order); the batch's counts are their sums.
    List<Column> sums = new ArrayList<>(List.of(
        functions.sum(functions.when(column(PASS), 0).otherwise(1)),
        functions.sum(functions.when(isBad, 1).otherwise(0)),
        functions.sum(rescuedColumn.map(name -> functions.when(applies.and(column(name).isNotNull()), 1).otherwise(0))
            .orElse(functions.lit(0)))));
    sums.addAll(expectations.perFileSums(applies));
    List<Row> perFile = staged.groupBy(column(InternalColumns.ORDER))
        .agg(functions.count(functions.lit(1)), sums.toArray(Column[]::new))
        .collectAsList();
    long read = 0;
    long filtered = 0;
    long bad = 0;
    long rescued = 0;
    // A file read with no row has no group: it read nothing.
    Map<Integer, ManifestFile> files = new LinkedHashMap<>();
    Map<Integer, FileRows> counted = new LinkedHashMap<>();
    Map<Integer, Expectations.FileCounts> checked = new LinkedHashMap<>();
    List<ManifestFile> toRead = batch.filesToRead();
    for (ManifestFile file : extracted.filesRead()) {
      int order = toRead.indexOf(file);
      files.put(order, file);
      counted.put(order, new FileRows(0, 0, 0, extracted.ignoredColumns().getOrDefault(file.fileId(), 0)));
      checked.put(order, expectations.noRows());
    }
    for (Row counts : perFile) {
      long fileRead = counts.getLong(1);
      long fileBad = longOrZero(counts, 3);
      long fileRescued = longOrZero(counts, 4);
      read += fileRead;
      filtered += longOrZero(counts, 2);
      bad += fileBad;
      rescued += fileRescued;
      if (!counts.isNullAt(0)) {
        int order = counts.getInt(0);
        String fileId = toRead.get(order).fileId();
        files.putIfAbsent(order, toRead.get(order));
        counted.put(order, new FileRows(fileRead, fileBad, fileRescued,
            extracted.ignoredColumns().getOrDefault(fileId, 0)));
        checked.put(order, expectations.fileCounts(counts, 5));
      }
    }
    if (bad > 0 && transform.onBadRecord() == BadRecordPolicy.FAIL) {
      Row first = staged.filter(isBad)
          .orderBy(column(InternalColumns.ORDER), column(InternalColumns.ROW))
          .select(column(InternalColumns.FILE), column(BAD_COLUMN), column(BAD_VALUE), column(BAD_REASON))
          .first();
      throw new BatchFailedException("file " + first.getString(0) + ": column " + first.getString(1) + ": "
          + first.getString(3) + (first.isNullAt(2) ? "" : " (value '" + first.getString(2) + "')")
          + "; " + bad + " bad record(s) in the batch; transform.on-bad-record = reject would route them to "
          + batch.table() + "__rejected");
    }
    Expectations.Verdict verdict = expectations.decide(staged, files, checked);
    QualityOutcome quality = verdict.outcome();
    Map<String, FileRows> fileRows = new LinkedHashMap<>();
    counted.forEach((order, rows) -> {
      long[] held = verdict.heldRows().getOrDefault(order, new long[2]);
      fileRows.put(files.get(order).fileId(), new FileRows(rows.read(), rows.rejected() + held[0], rows.rescued(),
          rows.ignoredColumns(), verdict.failedByFile().getOrDefault(order, Map.of())));
    });

    List<Column> good = new ArrayList<>();
    for (TargetColumn target : targets) {
      good.add(column(target.column().name()));
    }
    for (String internal : InternalColumns.ALL) {
      good.add(column(internal));
    }
    Column loads = applies.and(Expectations.loads());
    Dataset<Row> rows = staged.filter(loads.and(functions.not(verdict.isPartitionHeld())))
        .select(good.toArray(Column[]::new));
    // Bad records too: with snapshot deletes, a key whose row did not load is in the snapshot all the same.
    Dataset<Row> heldBack = staged.filter(isBad.or(applies.and(functions.not(Expectations.loads())
            .or(verdict.isPartitionHeld()))))
        .select(good.toArray(Column[]::new));
    Column partitionRejected = loads.and(verdict.isPartitionRejected());
    Dataset<Row> rejected = staged.filter(isBad.or(Expectations.rejectedByCheck()).or(partitionRejected))
        .select(
            functions.lit(batch.batchId()).as("batch_id"),
            column(InternalColumns.FILE).as("source_file"),
            functions.when(partitionRejected, verdict.ofPartitionReject(h -> h.by().column().orElse(null)))
                .otherwise(column(BAD_COLUMN)).as("column_name"),
            column(BAD_VALUE).as("value"),
            functions.coalesce(column(BAD_REASON), expectations.checkReason(),
                verdict.ofPartitionReject(Expectations.Held::reason)).as("reason"),
            column(BAD_RECORD).as("record"),
            functions.lit(Timestamp.from(batch.startedAt())).as("rejected_at"),
            functions.when(isBad, functions.lit(null).cast("string")).otherwise(functions.coalesce(
                column(Expectations.REJECTED_BY), verdict.ofPartitionReject(h -> h.by().name())))
                .as(TransformedBatch.REJECTED_BY_EXPECTATION));
    Duration readTime = extracted.openTime().plusNanos(System.nanoTime() - start);
    long rowsRejected = bad + quality.rejected();
    LOG.info("Table {} batch {}: {} row(s) read, {} filtered, {} bad record(s) ({}), {} to load, {} of them with"
        + " rescued data{}; {}", batch.table(), batch.batchId(), read, filtered, bad, transform.onBadRecord().code(),
        read - filtered - rowsRejected - quality.dropped(), rescued,
        rescuedColumn.map(name -> " in " + name).orElse(" (no rescued data column)"), Expectations.logText(quality));
    return new TransformedBatch(extracted, rows, targets.stream().map(TargetColumn::column).toList(), rejected,
        read, filtered, rowsRejected, readTime, fileRows, quality, heldBack);
  }

  /** A sum of the per-file aggregate: NULL (no row summed) is 0. */
  static long longOrZero(Row row, int i) {
    return row.isNullAt(i) ? 0 : row.getLong(i);
  }

  /** All of {@code transform.filter}, as one condition on the source columns; NULL counts as false. */
  private static Column filter(Dataset<Row> input, Transform transform) {
    Column pass = functions.lit(true);
    List<String> filters = transform.filter();
    for (int i = 0; i < filters.size(); i++) {
      String predicate = filters.get(i);
      Column condition;
      DataType type;
      try {
        condition = functions.expr(predicate);
        type = input.select(condition).schema().fields()[0].dataType();
      } catch (Exception e) {
        throw new BatchFailedException("transform.filter[" + i + "] \"" + predicate + "\" does not apply to the"
            + " batch's columns " + List.of(input.columns()).stream().filter(c -> !InternalColumns.isInternal(c))
                .toList() + ": " + firstLine(e.getMessage()), e);
      }
      if (!(type instanceof BooleanType)) {
        throw new BatchFailedException("transform.filter[" + i + "] \"" + predicate + "\" is of type "
            + type.simpleString() + ", not a condition");
      }
      pass = pass.and(condition);
    }
    return functions.coalesce(pass, functions.lit(false));
  }

  static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
