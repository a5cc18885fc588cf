package io.files2iceberg.sparkjob.transform;

import static io.files2iceberg.sparkjob.extract.SqlNames.column;
import static io.files2iceberg.sparkjob.extract.SqlNames.quote;

import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.profile.Transform.BadRecordPolicy;
import io.files2iceberg.core.profile.Transform;
import io.files2iceberg.sparkjob.extract.DeclaredTypes;
import io.files2iceberg.sparkjob.extract.ExtractedBatch;
import io.files2iceberg.sparkjob.extract.InternalColumns;
import io.files2iceberg.sparkjob.extract.LoadBatch;
import io.files2iceberg.sparkjob.extract.SafeWidening;
import io.files2iceberg.sparkjob.extract.SchemaCheck;
import io.files2iceberg.sparkjob.extract.SourceColumn;
import io.files2iceberg.sparkjob.stage.BatchFailedException;
import io.files2iceberg.sparkjob.stage.Stage;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.ZoneId;
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
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampType;
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
 * to BIGINT ever sees it. Then every kept row is checked; a bad record is one where a cast failed
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

  @Override
  public TransformedBatch apply(ExtractedBatch extracted) {
    long start = System.nanoTime();
    LoadBatch batch = extracted.batch();
    Transform transform = batch.profile().transform();
    Dataset<Row> input = extracted.rows();

    Column pass = filter(input, transform);
    List<Target> targets = renameAndCast(extracted, transform, DeclaredTypes.hints(batch.profile()),
        batch.profile().extract().timeZone());
    List<Rescue> rescues = new ArrayList<>();
    List<BadRecordCheck> checks = badRecordChecks(extracted, targets, batch, rescues);
    Optional<String> rescuedColumn = transform.rescuedDataColumn();
    if (rescuedColumn.isPresent()) {
      targets.add(rescuedTarget(rescuedColumn.get(), input, targets, rescues));
    }

    Column badReason = firstMatching(checks, BadRecordCheck::reason);
    List<Column> select = new ArrayList<>();
    for (Target target : targets) {
      select.add(target.value().as(target.column().name()));
    }
    for (String internal : InternalColumns.ALL) {
      select.add(internal.equals(InternalColumns.ABSENT) ? absentTargets(transform, targets).as(internal)
          : column(internal));
    }
    select.add(pass.as(PASS));
    select.add(functions.when(pass, firstMatching(checks, BadRecordCheck::column)).as(BAD_COLUMN));
    select.add(functions.when(pass, firstMatching(checks, BadRecordCheck::value)).as(BAD_VALUE));
    select.add(functions.when(pass, badReason).as(BAD_REASON));
    select.add(functions.when(pass.and(badReason.isNotNull()), sourceRecord(extracted)).as(BAD_RECORD));
    Dataset<Row> staged = batch.scope().cache(input.select(select.toArray(Column[]::new)));

    // The one pass over the cached rows counts per file (a row per file, keyed by its manifest
    // order); the batch's counts are their sums.
    List<Row> perFile = staged.groupBy(column(InternalColumns.ORDER)).agg(
            functions.count(functions.lit(1)),
            functions.sum(functions.when(column(PASS), 0).otherwise(1)),
            functions.sum(functions.when(column(PASS).and(column(BAD_REASON).isNotNull()), 1).otherwise(0)),
            functions.sum(rescuedColumn.map(name -> functions.when(column(PASS).and(column(BAD_REASON).isNull())
                .and(column(name).isNotNull()), 1).otherwise(0)).orElse(functions.lit(0))))
        .collectAsList();
    long read = 0;
    long filtered = 0;
    long bad = 0;
    long rescued = 0;
    Map<String, FileRows> fileRows = new LinkedHashMap<>();
    // A file read with no row has no group: it read nothing.
    for (ManifestFile file : extracted.filesRead()) {
      fileRows.put(file.fileId(), new FileRows(0, 0, 0, extracted.ignoredColumns().getOrDefault(file.fileId(), 0)));
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
        String fileId = batch.filesToRead().get(counts.getInt(0)).fileId();
        fileRows.put(fileId, new FileRows(fileRead, fileBad, fileRescued,
            extracted.ignoredColumns().getOrDefault(fileId, 0)));
      }
    }
    Column isBad = column(PASS).and(column(BAD_REASON).isNotNull());
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

    List<Column> good = new ArrayList<>();
    for (Target target : targets) {
      good.add(column(target.column().name()));
    }
    for (String internal : InternalColumns.ALL) {
      good.add(column(internal));
    }
    Dataset<Row> rows = staged.filter(column(PASS).and(column(BAD_REASON).isNull()))
        .select(good.toArray(Column[]::new));
    Dataset<Row> rejected = staged.filter(isBad).select(
        functions.lit(batch.batchId()).as("batch_id"),
        column(InternalColumns.FILE).as("source_file"),
        column(BAD_COLUMN).as("column_name"),
        column(BAD_VALUE).as("value"),
        column(BAD_REASON).as("reason"),
        column(BAD_RECORD).as("record"),
        functions.lit(Timestamp.from(batch.startedAt())).as("rejected_at"));
    Duration readTime = extracted.openTime().plusNanos(System.nanoTime() - start);
    LOG.info("Table {} batch {}: {} row(s) read, {} filtered, {} bad record(s) ({}), {} to load, {} of them with"
        + " rescued data{}", batch.table(), batch.batchId(), read, filtered, bad, transform.onBadRecord().code(),
        read - filtered - bad, rescued, rescuedColumn.map(name -> " in " + name).orElse(" (no rescued data column)"));
    return new TransformedBatch(extracted, rows, targets.stream().map(Target::column).toList(), rejected,
        read, filtered, bad, readTime, fileRows);
  }

  private static long longOrZero(Row row, int i) {
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

  /**
   * The target columns, in source order, then the cast columns no file has. A hinted column
   * ({@code extract.schema-hints}, by source name) is cast as a cast column is, unless {@code
   * transform.cast.columns} names it too; a hint of a column no file has adds nothing.
   */
  private static List<Target> renameAndCast(ExtractedBatch extracted, Transform transform, Map<String, DataType> hints,
      Optional<ZoneId> zone) {
    Map<String, SourceColumn> current = new LinkedHashMap<>();
    Map<String, String> sourceOf = new LinkedHashMap<>();
    Optional<String> corrupt = extracted.corruptRecordColumn();
    for (SourceColumn column : extracted.columns()) {
      if (corrupt.isEmpty() || !corrupt.get().equals(column.name())) {
        current.put(column.name(), column);
        sourceOf.put(column.name(), column.name());
      }
    }
    for (Map.Entry<String, String> rename : transform.renameColumns().entrySet()) {
      String from = rename.getKey();
      String to = rename.getValue();
      if (!current.containsKey(from)) {
        LOG.info("Table {} batch {}: transform.rename-columns.{}: the batch has no column {}; skipped",
            extracted.batch().table(), extracted.batch().batchId(), from, from);
        continue;
      }
      if (!from.equals(to) && current.containsKey(to)) {
        throw new BatchFailedException("transform.rename-columns." + from + ": \"" + to
            + "\" is already a column of the batch");
      }
      Map<String, SourceColumn> renamed = new LinkedHashMap<>();
      Map<String, String> renamedSources = new LinkedHashMap<>();
      for (Map.Entry<String, SourceColumn> entry : current.entrySet()) {
        String name = entry.getKey().equals(from) ? to : entry.getKey();
        renamed.put(name, entry.getValue().withName(name));
        renamedSources.put(name, sourceOf.get(entry.getKey()));
      }
      current = renamed;
      sourceOf = renamedSources;
    }

    Map<String, DataType> casts = new LinkedHashMap<>();
    Map<String, String> origins = new LinkedHashMap<>();
    Map<String, SourceColumn> renamedColumns = current;
    hints.forEach((source, type) -> {
      String target = SchemaCheck.targetName(transform, source);
      if (renamedColumns.containsKey(target)) {
        casts.put(target, type);
        origins.put(target, "extract.schema-hints." + source);
      }
    });
    Map<String, DataType> declaredCasts = new LinkedHashMap<>();
    for (Map.Entry<String, String> cast : transform.castColumns().entrySet()) {
      declaredCasts.put(cast.getKey(), parseType(cast.getKey(), cast.getValue()));
      casts.put(cast.getKey(), declaredCasts.get(cast.getKey()));
      origins.put(cast.getKey(), "transform.cast.columns." + cast.getKey());
    }
    List<Target> targets = new ArrayList<>();
    for (Map.Entry<String, SourceColumn> entry : current.entrySet()) {
      String name = entry.getKey();
      SourceColumn column = entry.getValue();
      Column source = column(sourceOf.get(name));
      DataType castTo = casts.get(name);
      if (castTo == null || SafeWidening.sameType(castTo, column.type())) {
        targets.add(new Target(column, source, Optional.empty()));
      } else {
        Column cast = zone.isPresent() && castTo instanceof TimestampType && column.type() instanceof StringType
            ? textToTimestampIn(quote(sourceOf.get(name)), zone.get())
            : functions.expr("try_cast(" + quote(sourceOf.get(name)) + " AS " + castTo.sql() + ")");
        targets.add(new Target(new SourceColumn(name, castTo, origins.get(name)), cast, Optional.of(source)));
      }
    }
    for (Map.Entry<String, DataType> cast : declaredCasts.entrySet()) {
      if (!current.containsKey(cast.getKey())) {
        targets.add(new Target(new SourceColumn(cast.getKey(), cast.getValue(), "transform.cast.columns." + cast.getKey()),
            functions.lit(null).cast(cast.getValue()), Optional.empty(), false));
      }
    }
    return targets;
  }

  /**
   * A text column cast to {@code TIMESTAMP} in {@code extract.timezone} instead of the session's
   * zone: a zone-less text is that wall-clock time in {@code zone}, a text that names its offset
   * or zone keeps it. The wall-clock time goes through {@code TIMESTAMP_NTZ} and its text with
   * {@code Z}, so no step depends on the session's zone (the warm driver's session is shared by
   * tables of different zones). NULL where {@code try_cast} would give NULL.
   */
  static Column textToTimestampIn(String quotedColumn, ZoneId zone) {
    String wallClockUtc = "try_cast(concat(cast(try_cast(" + quotedColumn + " AS TIMESTAMP_NTZ) AS STRING), 'Z')"
        + " AS TIMESTAMP)";
    return functions.expr("CASE WHEN " + quotedColumn + " RLIKE '" + ZONED_TEXT + "' THEN try_cast(" + quotedColumn
        + " AS TIMESTAMP) ELSE to_utc_timestamp(" + wallClockUtc + ", '" + zone.getId() + "') END");
  }

  /** A time of day followed by an offset or a zone: {@code Z}, {@code +01:00}, {@code UTC}, {@code Europe/Paris}. */
  private static final String ZONED_TEXT =
      "[0-9]:[0-9]{2}(:[0-9]{2}([.][0-9]*)?)?[ ]*([zZ]|[+-][0-9]{1,2}(:?[0-9]{2}){0,2}|[A-Za-z][A-Za-z0-9_/+:-]*)[ ]*$";

  /**
   * {@link InternalColumns#ABSENT} in target names: each absent source column under the name
   * {@code transform.rename-columns} gives it (renames apply to a name one after the other, as to
   * the batch's columns), plus the cast columns no file has.
   */
  private static Column absentTargets(Transform transform, List<Target> targets) {
    Column absent = column(InternalColumns.ABSENT);
    Map<String, String> renamed = new LinkedHashMap<>();
    for (String source : transform.renameColumns().keySet()) {
      if (!SchemaCheck.targetName(transform, source).equals(source)) {
        renamed.put(source, SchemaCheck.targetName(transform, source));
      }
    }
    if (!renamed.isEmpty()) {
      absent = functions.transform(absent, name -> {
        Column mapped = null;
        for (Map.Entry<String, String> rename : renamed.entrySet()) {
          mapped = mapped == null ? functions.when(name.equalTo(rename.getKey()), rename.getValue())
              : mapped.when(name.equalTo(rename.getKey()), rename.getValue());
        }
        return mapped.otherwise(name);
      });
    }
    List<String> noFile = targets.stream().filter(t -> !t.inFiles()).map(t -> t.column().name()).toList();
    if (!noFile.isEmpty()) {
      absent = functions.concat(absent, InternalColumns.absent(noFile));
    }
    return absent.cast(InternalColumns.ABSENT_TYPE);
  }

  /**
   * The checks for bad records, first match wins: unparsable line, failed cast, NULL key. With a
   * rescued data column, a failed cast of a column that is no key goes to {@code rescues} instead.
   */
  private static List<BadRecordCheck> badRecordChecks(ExtractedBatch extracted, List<Target> targets, LoadBatch batch,
      List<Rescue> rescues) {
    List<BadRecordCheck> checks = new ArrayList<>();
    extracted.corruptRecordColumn().ifPresent(corrupt -> checks.add(new BadRecordCheck(
        column(corrupt).isNotNull(), functions.lit(corrupt), column(corrupt),
        functions.lit("malformed " + batch.profile().extract().format().code() + " record"))));
    boolean rescuing = batch.profile().transform().rescuedDataColumn().isPresent();
    for (Target target : targets) {
      String name = target.column().name();
      target.castFrom().ifPresent(source -> {
        Column failed = source.isNotNull().and(target.value().isNull());
        if (rescuing && !batch.profile().load().primaryKey().contains(name) && !name.equals(SchemaCheck.FILE_PATH)) {
          rescues.add(new Rescue(name, failed, source.cast("string")));
        } else {
          checks.add(new BadRecordCheck(failed, functions.lit(name), source.cast("string"),
              functions.lit("cannot cast to " + target.column().type().sql())));
        }
      });
    }
    if (extracted.filesRead().isEmpty()) {
      // Nothing was readable (every file quarantined): no rows, and no columns to check keys against.
      return checks;
    }
    Map<String, Target> byName = new LinkedHashMap<>();
    for (Target target : targets) {
      byName.put(target.column().name(), target);
    }
    List<String> keys = batch.profile().load().primaryKey();
    for (int i = 0; i < keys.size(); i++) {
      Target key = requireColumn(byName, keys.get(i), "load.primary-key[" + i + "]");
      checks.add(new BadRecordCheck(key.value().isNull(), functions.lit(keys.get(i)), functions.lit(null).cast("string"),
          functions.lit("primary key column " + keys.get(i) + " is null")));
    }
    batch.profile().load().precombineField()
        .ifPresent(field -> requireColumn(byName, field, "load.iceberg.precombine-field"));
    return checks;
  }

  /**
   * The rescued data column: the values extract set aside ({@link InternalColumns#RESCUED}) and the
   * failed casts, by target name, with {@code _file_path}; NULL when the row has nothing to rescue.
   */
  private static Target rescuedTarget(String name, Dataset<Row> input, List<Target> targets, List<Rescue> rescues) {
    for (Target target : targets) {
      if (target.column().name().equals(name)) {
        throw new BatchFailedException("transform.rescued-data-column: \"" + name + "\" is also a column of the batch"
            + " (from " + target.column().origin() + "); choose another name");
      }
    }
    Column values = List.of(input.columns()).contains(InternalColumns.RESCUED) ? column(InternalColumns.RESCUED)
        : functions.map().cast(InternalColumns.RESCUED_TYPE);
    if (!rescues.isEmpty()) {
      List<Column> entries = new ArrayList<>();
      for (Rescue rescue : rescues) {
        entries.add(functions.lit(rescue.column()));
        entries.add(functions.when(rescue.failed(), rescue.value()));
      }
      values = functions.map_concat(values, functions.map(entries.toArray(Column[]::new)).cast(InternalColumns.RESCUED_TYPE));
    }
    Column kept = functions.map_filter(values, (key, value) -> value.isNotNull());
    Column json = functions.when(functions.size(kept).gt(0), functions.to_json(functions.map_concat(kept,
        functions.map(functions.lit(SchemaCheck.FILE_PATH), column(InternalColumns.FILE)))));
    return new Target(SourceColumn.rescuedData(name), json, Optional.empty());
  }

  private static Target requireColumn(Map<String, Target> byName, String name, String key) {
    Target target = byName.get(name);
    if (target == null) {
      throw new BatchFailedException(key + ": column \"" + name + "\" is not among the batch's columns "
          + byName.keySet() + " (after transform.rename-columns)");
    }
    return target;
  }

  private static Column firstMatching(List<BadRecordCheck> checks, java.util.function.Function<BadRecordCheck, Column> part) {
    if (checks.isEmpty()) {
      return functions.lit(null).cast("string");
    }
    Column result = null;
    for (BadRecordCheck check : checks) {
      result = result == null ? functions.when(check.condition(), part.apply(check))
          : result.when(check.condition(), part.apply(check));
    }
    return result;
  }

  /** The row as the files had it (source names, before casts), as JSON: what a reject keeps. */
  private static Column sourceRecord(ExtractedBatch extracted) {
    List<Column> fields = new ArrayList<>();
    for (SourceColumn column : extracted.columns()) {
      fields.add(column(column.name()));
    }
    return functions.to_json(functions.struct(fields.toArray(Column[]::new)));
  }

  private static DataType parseType(String column, String type) {
    try {
      return DataType.fromDDL(type);
    } catch (Exception e) {
      throw new BatchFailedException("transform.cast.columns." + column + ": \"" + type
          + "\" is not a Spark SQL type: " + firstLine(e.getMessage()), e);
    }
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  /**
   * A target column and how it is computed from the source columns.
   *
   * @param inFiles false for a cast column that no file of the batch has
   */
  private record Target(SourceColumn column, Column value, Optional<Column> castFrom, boolean inFiles) {
    Target(SourceColumn column, Column value, Optional<Column> castFrom) {
      this(column, value, castFrom, true);
    }
  }

  /** A failed cast that is rescued: the target column, when it failed, the source value as text. */
  private record Rescue(String column, Column failed, Column value) {}

  /** When a row is bad, which column, which value and why. */
  private record BadRecordCheck(Column condition, Column column, Column value, Column reason) {}
}
