package io.files2iceberg.core.profile;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Where and how rows are written.
 *
 * @param table the Iceberg table, {@code catalog.namespace.table}
 * @param saveMode without a primary key: append, or overwrite the batch's partitions
 * @param primaryKey the MERGE key; empty means no key
 * @param partitionBy Iceberg partition spec entries: columns or transforms such as {@code days(ts)}
 * @param precombineField among rows with one key, the highest value wins; requires a primary key
 * @param schemaEvolution what a column (or a field of a struct column) new in the files does to an
 *     existing table: added, the batch failed, rescued, or left out and counted
 * @param tableProperties Iceberg table properties set when the table is created, in declaration
 *     order
 * @param missingColumns what a MERGE update writes to a column the row's file does not have
 * @param writeMode how a MERGE changes stored rows: rewrite their data files, or write delete
 *     files beside them
 * @param mergeScope which of the table's rows a MERGE may match
 * @param cdc the column that marks a row as a delete of its key ({@code load.cdc}); empty: every
 *     row is an insert or an update
 * @param snapshotDeletes with {@code load.snapshot-deletes = true} (a keyed table fed whole
 *     snapshots, mode {@code last} or {@code full}): a batch MERGEs its snapshot and deletes the
 *     stored rows whose key it lacks; empty: the batch replaces the whole table
 * @param undoTagRetention {@code load.undo-tag-retention}: how long the tag a risky batch leaves on
 *     the snapshot before it is kept (its {@code max-ref-age}); zero: no tag
 * @param afterIngest {@code load.after-ingest}: what {@code maintain} does to a loaded file's
 *     landed object once it has been loaded longer than the retention: keep it, delete it or move it
 */
public record Load(
    TableId table,
    SaveMode saveMode,
    List<String> primaryKey,
    List<String> partitionBy,
    Optional<String> precombineField,
    SchemaEvolution schemaEvolution,
    Map<String, String> tableProperties,
    MissingColumns missingColumns,
    WriteMode writeMode,
    MergeScope mergeScope,
    Optional<Cdc> cdc,
    Optional<SnapshotDeletes> snapshotDeletes,
    Duration undoTagRetention,
    AfterIngest afterIngest) {

  /** {@code load.undo-tag-retention} unset: a risky batch's tag is kept 30 days. */
  public static final Duration DEFAULT_UNDO_TAG_RETENTION = Duration.ofDays(30);

  public Load {
    Objects.requireNonNull(schemaEvolution, "schemaEvolution");
    Objects.requireNonNull(writeMode, "writeMode");
    Objects.requireNonNull(mergeScope, "mergeScope");
    Objects.requireNonNull(cdc, "cdc");
    Objects.requireNonNull(snapshotDeletes, "snapshotDeletes");
    Objects.requireNonNull(undoTagRetention, "undoTagRetention");
    Objects.requireNonNull(afterIngest, "afterIngest");
    if (undoTagRetention.isNegative()) {
      throw new IllegalArgumentException("undoTagRetention must not be negative, was " + undoTagRetention);
    }
    primaryKey = List.copyOf(primaryKey);
    partitionBy = List.copyOf(partitionBy);
    tableProperties = Collections.unmodifiableMap(new LinkedHashMap<>(tableProperties));
  }

  /** Keeping every landed object ({@code load.after-ingest.action = keep}). */
  public Load(TableId table, SaveMode saveMode, List<String> primaryKey, List<String> partitionBy,
      Optional<String> precombineField, SchemaEvolution schemaEvolution, Map<String, String> tableProperties,
      MissingColumns missingColumns, WriteMode writeMode, MergeScope mergeScope, Optional<Cdc> cdc,
      Optional<SnapshotDeletes> snapshotDeletes, Duration undoTagRetention) {
    this(table, saveMode, primaryKey, partitionBy, precombineField, schemaEvolution, tableProperties, missingColumns,
        writeMode, mergeScope, cdc, snapshotDeletes, undoTagRetention, AfterIngest.KEEP);
  }

  /** With the default {@code load.undo-tag-retention}. */
  public Load(TableId table, SaveMode saveMode, List<String> primaryKey, List<String> partitionBy,
      Optional<String> precombineField, SchemaEvolution schemaEvolution, Map<String, String> tableProperties,
      MissingColumns missingColumns, WriteMode writeMode, MergeScope mergeScope, Optional<Cdc> cdc,
      Optional<SnapshotDeletes> snapshotDeletes) {
    this(table, saveMode, primaryKey, partitionBy, precombineField, schemaEvolution, tableProperties, missingColumns,
        writeMode, mergeScope, cdc, snapshotDeletes, DEFAULT_UNDO_TAG_RETENTION);
  }

  /** Without snapshot deletes. */
  public Load(TableId table, SaveMode saveMode, List<String> primaryKey, List<String> partitionBy,
      Optional<String> precombineField, SchemaEvolution schemaEvolution, Map<String, String> tableProperties,
      MissingColumns missingColumns, WriteMode writeMode, MergeScope mergeScope, Optional<Cdc> cdc) {
    this(table, saveMode, primaryKey, partitionBy, precombineField, schemaEvolution, tableProperties, missingColumns,
        writeMode, mergeScope, cdc, Optional.empty());
  }

  /** Without change-data deletes. */
  public Load(TableId table, SaveMode saveMode, List<String> primaryKey, List<String> partitionBy,
      Optional<String> precombineField, SchemaEvolution schemaEvolution, Map<String, String> tableProperties,
      MissingColumns missingColumns, WriteMode writeMode, MergeScope mergeScope) {
    this(table, saveMode, primaryKey, partitionBy, precombineField, schemaEvolution, tableProperties, missingColumns,
        writeMode, mergeScope, Optional.empty());
  }

  /** Copy-on-write, and the MERGE scope decided by the key. */
  public Load(TableId table, SaveMode saveMode, List<String> primaryKey, List<String> partitionBy,
      Optional<String> precombineField, SchemaEvolution schemaEvolution, Map<String, String> tableProperties,
      MissingColumns missingColumns) {
    this(table, saveMode, primaryKey, partitionBy, precombineField, schemaEvolution, tableProperties, missingColumns,
        WriteMode.COPY_ON_WRITE, MergeScope.AUTO);
  }

  /**
   * {@code load.schema-evolution}: what a column the existing table does not have (or a field a
   * struct column of the table does not have) does when a file brings it. A new table is created
   * with every column of its first batch, whatever the mode. Codes are what profiles spell.
   */
  public enum SchemaEvolution {
    /** The column (or nested field) is added to the table, optional, and loaded. */
    ADD_NEW_COLUMNS("add-new-columns"),
    /** The batch fails, naming the files and the columns; nothing of it is committed. */
    FAIL_ON_NEW_COLUMNS("fail-on-new-columns"),
    /** The table's schema stays; the column's values go to {@code transform.rescued-data-column}. */
    RESCUE("rescue"),
    /**
     * The table's schema stays; the column is not loaded, but counted per file and logged once per
     * file. With {@code transform.rescued-data-column}, its values go there, as with {@link #RESCUE}.
     */
    NONE("none");

    private final String code;

    SchemaEvolution(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }

    /**
     * The mode the boolean of old meant: {@code true} added new columns; {@code false} failed the
     * batch naming them, or rescued their values when the profile has a rescued data column.
     */
    public static SchemaEvolution ofBoolean(boolean evolves, boolean hasRescuedDataColumn) {
      if (evolves) {
        return ADD_NEW_COLUMNS;
      }
      return hasRescuedDataColumn ? RESCUE : FAIL_ON_NEW_COLUMNS;
    }
  }

  /**
   * How a MERGE changes the stored rows it updates (Iceberg's {@code write.merge.mode}, also set
   * as {@code write.update.mode} and {@code write.delete.mode}). Codes are what profiles spell.
   */
  public enum WriteMode {
    /** The data files holding updated rows are rewritten; reads stay plain. */
    COPY_ON_WRITE("copy-on-write"),
    /**
     * Updated rows are marked deleted in position delete files and written anew: a MERGE writes
     * only the batch's rows, and reads apply the deletes until {@code maintain} compacts them.
     */
    MERGE_ON_READ("merge-on-read");

    /** The Iceberg table properties that carry the mode. */
    public static final List<String> TABLE_PROPERTIES =
        List.of("write.merge.mode", "write.update.mode", "write.delete.mode");

    private final String code;

    WriteMode(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }
  }

  /** Which stored rows a MERGE may match, and so which data files it reads. Codes are what profiles spell. */
  public enum MergeScope {
    /**
     * {@code partitions} when the primary key holds every source column of the table's partition
     * spec (equal keys are then in one partition), else {@code table}.
     */
    AUTO("auto"),
    /**
     * The MERGE reads only the batch's partitions: declared for a key without the partition
     * columns whose rows never move between partitions.
     */
    PARTITIONS("partitions"),
    /** The MERGE matches the key against the whole table. */
    TABLE("table");

    private final String code;

    MergeScope(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }
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

  /**
   * Change-data deletes: which incoming rows delete their key instead of writing it. The column
   * is read from the files and is not written to the table.
   *
   * @param column the source column ({@code load.cdc.op-column} or {@code load.cdc.delete-flag})
   * @param deleteValues with an op column, the values that mark a delete; empty for a delete flag
   */
  public record Cdc(Style style, String column, List<String> deleteValues) {
    public Cdc {
      Objects.requireNonNull(style, "style");
      Objects.requireNonNull(column, "column");
      deleteValues = List.copyOf(deleteValues);
    }

    /** An operation column whose delete values mark a delete; the default delete value is {@code D}. */
    public static Cdc opColumn(String column, List<String> deleteValues) {
      return new Cdc(Style.OP_COLUMN, column, deleteValues);
    }

    /** A boolean column, true for a delete (Hudi's {@code _hoodie_is_deleted}). */
    public static Cdc deleteFlag(String column) {
      return new Cdc(Style.DELETE_FLAG, column, List.of());
    }

    /** The profile key that names the column. */
    public String key() {
      return style == Style.OP_COLUMN ? "load.cdc.op-column" : "load.cdc.delete-flag";
    }

    /** How a row says it is a delete. */
    public enum Style {
      OP_COLUMN,
      DELETE_FLAG
    }
  }

  /**
   * {@code load.snapshot-deletes}: each batch is the whole of the table's rows (within the MERGE's
   * scope), so a stored key the batch lacks was deleted upstream. The batch MERGEs its rows and
   * deletes those stored rows, unless they are more than {@code maxFraction} of the rows in scope:
   * then the batch fails and nothing is committed (an empty or truncated snapshot must not wipe a
   * table).
   *
   * @param maxFraction {@code load.snapshot-deletes-max-fraction}: the largest share, from 0 to 1,
   *     of the stored rows in scope that one batch may delete
   */
  public record SnapshotDeletes(double maxFraction) {
    /** The guard of a profile that sets none. */
    public static final double DEFAULT_MAX_FRACTION = 0.5;

    public SnapshotDeletes {
      if (!(maxFraction >= 0 && maxFraction <= 1)) {
        throw new IllegalArgumentException("maxFraction must be from 0 to 1, got " + maxFraction);
      }
    }

    /** Whether deleting {@code deleted} of {@code inScope} stored rows stays within the guard. */
    public boolean allows(long deleted, long inScope) {
      return deleted == 0 || (double) deleted / inScope <= maxFraction;
    }
  }

  /**
   * {@code load.after-ingest}: landing cleanup. {@code maintain} deletes or moves the landed object
   * of each file loaded (INGESTED) longer ago than {@code retention}, each with the file's
   * generation as precondition, so a rewritten object is never touched.
   *
   * @param action what is done to the object
   * @param moveTo with {@link Action#MOVE}, the folder the object is moved to, ending with {@code
   *     /} ({@code gs://bucket/prefix/} or {@code file:///folder/}); empty otherwise
   * @param retention how long after its load a file's object is left where it landed
   */
  public record AfterIngest(Action action, Optional<String> moveTo, Duration retention) {
    /** {@code load.after-ingest.retention} unset: 30 days, as Auto Loader's {@code cleanSource.retentionDuration}. */
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(30);
    /** With {@code delete}, the retention must be longer than this (Auto Loader's rule too). */
    public static final Duration MIN_DELETE_RETENTION = Duration.ofDays(7);
    /** Every landed object kept: the default. */
    public static final AfterIngest KEEP = new AfterIngest(Action.KEEP, Optional.empty(), DEFAULT_RETENTION);

    public AfterIngest {
      Objects.requireNonNull(action, "action");
      Objects.requireNonNull(moveTo, "moveTo");
      Objects.requireNonNull(retention, "retention");
      if ((action == Action.MOVE) != moveTo.isPresent()) {
        throw new IllegalArgumentException("a move has a move-to folder, and only a move: " + action + " " + moveTo);
      }
      if (moveTo.isPresent() && !moveTo.get().endsWith("/")) {
        throw new IllegalArgumentException("move-to is a folder ending with /, got " + moveTo.get());
      }
    }

    /** Whether {@code maintain} removes the table's landed objects. */
    public boolean cleans() {
      return action != Action.KEEP;
    }

    /** What is done to a loaded file's landed object. Codes are what profiles spell. */
    public enum Action {
      /** Left where it landed. */
      KEEP("keep"),
      /** Deleted; a reload that needs it is refused unless {@code --allow-missing}. */
      DELETE("delete"),
      /** Copied under {@code move-to}, then deleted where it landed; a reload reads the copy. */
      MOVE("move");

      private final String code;

      Action(String code) {
        this.code = code;
      }

      public String code() {
        return code;
      }
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
