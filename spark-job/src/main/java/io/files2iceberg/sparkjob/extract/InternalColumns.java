package io.files2iceberg.sparkjob.extract;

import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * Columns the job adds to every row for its own use; they are never written to a table. A source
 * column with the {@value #PREFIX} prefix is an error.
 */
public final class InternalColumns {
  public static final String PREFIX = "_f2i_";
  /** The URI of the row's file. */
  public static final String FILE = PREFIX + "file";
  /** The object generation of the row's file. */
  public static final String GENERATION = PREFIX + "generation";
  /** The file's position in the manifest: the last tie-breaker after the generation. */
  public static final String ORDER = PREFIX + "order";
  /** Increases with the row's position within its file. */
  public static final String ROW = PREFIX + "row";
  /**
   * The batch's columns that the row's file does not have, by the names the current stage uses
   * (source names after extract, target names after the transforms, which also add the cast
   * columns no file has): an {@code array<string>}, the same for every row of a file. A MERGE
   * update keeps the stored value of these columns ({@code load.missing-columns = keep}).
   */
  public static final String ABSENT = PREFIX + "absent";

  public static final List<String> ALL = List.of(FILE, GENERATION, ORDER, ROW, ABSENT);

  /**
   * After extract only, and only with {@code transform.rescued-data-column}: the values of the
   * row's columns that the table cannot take ({@link SchemaCheck}), target name to value as text,
   * a {@code map<string,string>}; the transforms fold it into the rescued data column. Not in
   * {@link #ALL}: no later stage sees it.
   */
  public static final String RESCUED = PREFIX + "rescued";

  /** The type of {@link #RESCUED}. */
  public static final DataType RESCUED_TYPE = DataTypes.createMapType(DataTypes.StringType, DataTypes.StringType, true);

  /** The type of {@link #ABSENT}. */
  public static final DataType ABSENT_TYPE = DataTypes.createArrayType(DataTypes.StringType, false);

  private InternalColumns() {}

  public static boolean isInternal(String column) {
    return column.startsWith(PREFIX);
  }

  /** A literal value of {@link #ABSENT}: these column names. */
  public static Column absent(List<String> columns) {
    return functions.array(columns.stream().map(functions::lit).toArray(Column[]::new)).cast(ABSENT_TYPE);
  }
}
