package io.files2iceberg.core.profile;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where and how rows are written.
 *
 * @param table the Iceberg table, {@code catalog.namespace.table}
 * @param saveMode without a primary key: append, or overwrite the batch's partitions
 * @param primaryKey the MERGE key; empty means no key
 * @param partitionBy Iceberg partition spec entries: columns or transforms such as {@code days(ts)}
 * @param precombineField among rows with one key, the highest value wins; requires a primary key
 * @param schemaEvolution columns new in the files are added to the table and types are safely
 *     widened; false fails the batch, naming the new columns
 * @param tableProperties Iceberg table properties set when the table is created, in declaration
 *     order
 * @param missingColumns what a MERGE update writes to a column the row's file does not have
 */
public record Load(
    TableId table,
    SaveMode saveMode,
    List<String> primaryKey,
    List<String> partitionBy,
    Optional<String> precombineField,
    boolean schemaEvolution,
    Map<String, String> tableProperties,
    MissingColumns missingColumns) {

  public Load {
    primaryKey = List.copyOf(primaryKey);
    partitionBy = List.copyOf(partitionBy);
    tableProperties = Collections.unmodifiableMap(new LinkedHashMap<>(tableProperties));
  }

  /** How rows without a key are written. Codes are what profiles spell. */
  public enum SaveMode {
    APPEND("Append"),
    OVERWRITE("Overwrite");

    private final String code;

    SaveMode(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }
  }

  /**
   * What a MERGE update writes to a table column that the incoming row's file does not have (or
   * that no file of the batch has). An insert writes NULL there either way, and a NULL that a file
   * does hold is always written. Codes are what profiles spell.
   */
  public enum MissingColumns {
    /** The stored value stays. */
    KEEP("keep"),
    /** The stored value becomes NULL: the update replaces the whole row. */
    NULL("null");

    private final String code;

    MissingColumns(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }
  }

  /** A three-part Iceberg table name. */
  public record TableId(String catalog, String namespace, String name) {
    public String qualifiedName() {
      return catalog + "." + namespace + "." + name;
    }

    @Override
    public String toString() {
      return qualifiedName();
    }
  }
}
