package io.files2iceberg.sparkjob.transform;

import static io.files2iceberg.sparkjob.extract.SqlNames.column;
import static io.files2iceberg.sparkjob.extract.SqlNames.quote;

import io.files2iceberg.core.profile.Transform;
import io.files2iceberg.sparkjob.extract.ExtractedBatch;
import io.files2iceberg.sparkjob.extract.InternalColumns;
import io.files2iceberg.sparkjob.extract.SafeWidening;
import io.files2iceberg.sparkjob.extract.SchemaCheck;
import io.files2iceberg.sparkjob.extract.SourceColumn;
import io.files2iceberg.sparkjob.stage.BatchFailedException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The batch's target columns: {@code transform.rename-columns}, then {@code transform.cast.columns}
 * and the schema hints, each column's value computed from the source columns.
 */
final class RenameAndCast {
  /** The transform stage's logger: these lines are the stage's. */
  private static final Logger LOG = LoggerFactory.getLogger(CommonTransformations.class);

  private RenameAndCast() {}

  /**
   * The target columns, in source order, then the cast columns no file has. A hinted column
   * ({@code extract.schema-hints}, by source name) is cast as a cast column is, unless {@code
   * transform.cast.columns} names it too; a hint of a column no file has adds nothing.
   */
  static List<TargetColumn> targets(ExtractedBatch extracted, Transform transform, Map<String, DataType> hints,
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
    List<TargetColumn> targets = new ArrayList<>();
    for (Map.Entry<String, SourceColumn> entry : current.entrySet()) {
      String name = entry.getKey();
      SourceColumn column = entry.getValue();
      Column source = column(sourceOf.get(name));
      DataType castTo = casts.get(name);
      if (castTo == null || SafeWidening.sameType(castTo, column.type())) {
        targets.add(new TargetColumn(column, source, Optional.empty()));
      } else {
        Column cast = zone.isPresent() && castTo instanceof TimestampType && column.type() instanceof StringType
            ? textToTimestampIn(quote(sourceOf.get(name)), zone.get())
            : functions.expr("try_cast(" + quote(sourceOf.get(name)) + " AS " + castTo.sql() + ")");
        targets.add(new TargetColumn(new SourceColumn(name, castTo, origins.get(name)), cast, Optional.of(source)));
      }
    }
    for (Map.Entry<String, DataType> cast : declaredCasts.entrySet()) {
      if (!current.containsKey(cast.getKey())) {
        targets.add(new TargetColumn(new SourceColumn(cast.getKey(), cast.getValue(), "transform.cast.columns." + cast.getKey()),
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
  static Column absentTargets(Transform transform, List<TargetColumn> targets) {
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

  private static DataType parseType(String column, String type) {
    try {
      return DataType.fromDDL(type);
    } catch (Exception e) {
      throw new BatchFailedException("transform.cast.columns." + column + ": \"" + type
          + "\" is not a Spark SQL type: " + CommonTransformations.firstLine(e.getMessage()), e);
    }
  }
}
