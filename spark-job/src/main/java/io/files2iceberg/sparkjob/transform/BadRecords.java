package io.files2iceberg.sparkjob.transform;

import static io.files2iceberg.sparkjob.extract.SqlNames.column;

import io.files2iceberg.sparkjob.extract.ExtractedBatch;
import io.files2iceberg.sparkjob.extract.InternalColumns;
import io.files2iceberg.sparkjob.extract.LoadBatch;
import io.files2iceberg.sparkjob.extract.SchemaCheck;
import io.files2iceberg.sparkjob.extract.SourceColumn;
import io.files2iceberg.sparkjob.stage.BatchFailedException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;

/**
 * What makes a row a bad record, and what of it is rescued instead: the checks in the order they
 * apply (first match wins), the rescued data column, and the source record a reject keeps.
 */
final class BadRecords {
  private BadRecords() {}

  /**
   * The checks for bad records, first match wins: unparsable line, failed cast, NULL key. With a
   * rescued data column, a failed cast of a column that is no key goes to {@code rescues} instead.
   */
  static List<BadRecordCheck> checks(ExtractedBatch extracted, List<TargetColumn> targets, LoadBatch batch,
      List<Rescue> rescues) {
    List<BadRecordCheck> checks = new ArrayList<>();
    extracted.corruptRecordColumn().ifPresent(corrupt -> checks.add(new BadRecordCheck(
        column(corrupt).isNotNull(), functions.lit(corrupt), column(corrupt),
        functions.lit("malformed " + batch.profile().extract().format().code() + " record"))));
    boolean rescuing = batch.profile().transform().rescuedDataColumn().isPresent();
    for (TargetColumn target : targets) {
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
    Map<String, TargetColumn> byName = new LinkedHashMap<>();
    for (TargetColumn target : targets) {
      byName.put(target.column().name(), target);
    }
    List<String> keys = batch.profile().load().primaryKey();
    for (int i = 0; i < keys.size(); i++) {
      TargetColumn key = requireColumn(byName, keys.get(i), "load.primary-key[" + i + "]");
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
  static TargetColumn rescuedTarget(String name, Dataset<Row> input, List<TargetColumn> targets, List<Rescue> rescues) {
    for (TargetColumn target : targets) {
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
    return new TargetColumn(SourceColumn.rescuedData(name), json, Optional.empty());
  }

  private static TargetColumn requireColumn(Map<String, TargetColumn> byName, String name, String key) {
    TargetColumn target = byName.get(name);
    if (target == null) {
      throw new BatchFailedException(key + ": column \"" + name + "\" is not among the batch's columns "
          + byName.keySet() + " (after transform.rename-columns)");
    }
    return target;
  }

  static Column firstMatching(List<BadRecordCheck> checks, Function<BadRecordCheck, Column> part) {
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

  /**
   * The row as the files had it (source names, before casts), as JSON: what a reject keeps.
   *
   * @param sources the source columns' names, in order; column {@code i} is read from {@code
   *     prefix + i}
   */
  static Column sourceRecord(List<String> sources, String prefix) {
    List<Column> fields = new ArrayList<>();
    for (int i = 0; i < sources.size(); i++) {
      fields.add(column(prefix + i).as(sources.get(i)));
    }
    return functions.to_json(functions.struct(fields.toArray(Column[]::new)));
  }

  /** A failed cast that is rescued: the target column, when it failed, the source value as text. */
  record Rescue(String column, Column failed, Column value) {}

  /** When a row is bad, which column, which value and why. */
  record BadRecordCheck(Column condition, Column column, Column value, Column reason) {}
}
