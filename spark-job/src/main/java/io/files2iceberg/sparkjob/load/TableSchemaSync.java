package io.files2iceberg.sparkjob.load;

import io.files2iceberg.core.profile.Load.SchemaEvolution;
import io.files2iceberg.sparkjob.extract.SafeWidening;
import io.files2iceberg.sparkjob.extract.SourceColumn;
import io.files2iceberg.sparkjob.stage.BatchFailedException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.iceberg.types.Type;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;

/**
 * Brings the table's schema up to the batch's columns, through the Iceberg API, before any row is
 * written; only changes that keep every stored value readable are made:
 *
 * <ul>
 *   <li>a column new in the batch is added (optional, so existing rows read NULL) with {@code
 *       load.schema-evolution = add-new-columns}, and so is a field new inside a struct column
 *       (inside its struct). In the other modes extract has already failed the batch, rescued the
 *       column or left it out ({@link io.files2iceberg.sparkjob.extract.SchemaCheck}); a new column
 *       that still reaches here (a cast column no file has) fails the batch naming it. The {@code
 *       transform.rescued-data-column} column is added in every mode;
 *   <li>a column the batch has wider than the table (int in the table, bigint in the files) is
 *       widened ({@link SafeWidening});
 *   <li>a column the batch has narrower than the table is left alone; its values are widened as
 *       they are written;
 *   <li>any other difference fails the batch naming the column, where the batch's type comes from
 *       (the file) and both types. Nothing is changed then.
 * </ul>
 *
 * <p>All changes are checked first and committed together, in one schema update. Table columns
 * the batch does not have are left alone (rows get NULL).
 */
final class TableSchemaSync {
  private TableSchemaSync() {}

  /** What was changed, for the log: {@code added x string}, {@code widened y int -> bigint}. */
  static List<String> sync(Table table, List<SourceColumn> columns, SchemaEvolution schemaEvolution) {
    Map<String, DataType> tableTypes = new LinkedHashMap<>();
    for (StructField field : SparkSchemaUtil.convert(table.schema()).fields()) {
      tableTypes.put(field.name(), field.dataType());
    }
    List<SourceColumn> added = new ArrayList<>();
    List<SourceColumn> widened = new ArrayList<>();
    Map<String, DataType> addedFields = new LinkedHashMap<>();
    for (SourceColumn column : columns) {
      DataType current = tableTypes.get(column.name());
      if (current == null) {
        added.add(column);
      } else if (SafeWidening.sameType(current, column.type()) || SafeWidening.canWiden(column.type(), current)) {
        continue;
      } else if (SafeWidening.addsFields(current, column.type())) {
        SafeWidening.newFields(current, column.type())
            .forEach((path, type) -> addedFields.put(column.name() + "." + path, type));
      } else if (SafeWidening.canWiden(current, column.type())) {
        widened.add(column);
      } else {
        throw new BatchFailedException("column " + column.name() + ": " + describe(column) + " has type "
            + column.type().simpleString() + " but table " + table.name() + " has type " + current.simpleString()
            + ", which is not a safe change (safe: int -> bigint, float -> double, decimal to more precision)");
      }
    }
    // The rescued data column is the profile's, not the files': the table takes it regardless.
    List<String> refused = added.stream().filter(c -> !c.isRescuedData())
        .map(c -> c.name() + " " + c.type().simpleString() + " (from " + c.origin() + ")").collect(
            java.util.stream.Collectors.toCollection(ArrayList::new));
    addedFields.forEach((path, type) -> refused.add(path + " " + type.simpleString()));
    if (!refused.isEmpty() && schemaEvolution != SchemaEvolution.ADD_NEW_COLUMNS) {
      throw new BatchFailedException("the batch has column(s) that table " + table.name() + " does not have: "
          + refused + "; load.schema-evolution = " + schemaEvolution.code() + ", so they are not added");
    }
    List<String> changes = new ArrayList<>();
    if (added.isEmpty() && widened.isEmpty() && addedFields.isEmpty()) {
      return changes;
    }
    UpdateSchema update = table.updateSchema();
    for (SourceColumn column : added) {
      update.addColumn(null, column.name(), SparkSchemaUtil.convert(column.type()));
      changes.add("added " + column.name() + " " + column.type().simpleString());
    }
    // A new field goes inside its struct: the parent is the path before its last dot.
    addedFields.forEach((path, type) -> {
      int dot = path.lastIndexOf('.');
      update.addColumn(path.substring(0, dot), path.substring(dot + 1), SparkSchemaUtil.convert(type));
      changes.add("added " + path + " " + type.simpleString());
    });
    for (SourceColumn column : widened) {
      Type type = SparkSchemaUtil.convert(column.type());
      update.updateColumn(column.name(), type.asPrimitiveType());
      changes.add("widened " + column.name() + " " + tableTypes.get(column.name()).simpleString() + " -> "
          + column.type().simpleString());
    }
    update.commit();
    return changes;
  }

  private static String describe(SourceColumn column) {
    String origin = column.origin();
    return origin.contains("://") || origin.startsWith("/") ? "file " + origin : origin;
  }
}
