package io.files2iceberg.sparkjob.extract;

import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.profile.Extract.LineageColumn;
import io.files2iceberg.core.profile.Load;
import io.files2iceberg.core.profile.Load.SchemaEvolution;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.core.profile.Transform;
import io.files2iceberg.sparkjob.stage.BatchFailedException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Decides which files of a batch cannot be aligned with the others, before their rows are put
 * together. Columns are compared by their target names ({@code transform.rename-columns} applied);
 * the partition column and the lineage columns, which the job adds to every file, and the json/csv
 * corrupt-record column do not count. A file is a misfit ({@link MisfitReasons}) when:
 *
 * <ul>
 *   <li>it lacks a {@code load.primary-key} column, the {@code load.iceberg.precombine-field} or
 *       the {@code load.cdc} column.
 *       When no file of the batch has that column and the table does not either, the profile is
 *       wrong rather than the files, and no file is a misfit for it (the transforms then fail the
 *       batch naming the key);
 *   <li>a column's type cannot widen safely ({@link SafeWidening}) to the table's type for it, when
 *       the table has the column (a {@code transform.cast.columns} column is exempt: the cast
 *       decides its type), else to the type the earlier accepted files of the batch give it;
 *   <li>without a primary key, it shares no column with the table (when the table exists), else
 *       with the columns the profile declares (cast columns, rename targets), else with the first
 *       accepted file of the batch.
 * </ul>
 *
 * <p>A file without columns (an empty json file) is never a misfit: it has no rows.
 *
 * <p>So the odd one is decided against what came first: the table's schema, then the profile, then
 * the manifest order. Files are checked in manifest order, and a misfit does not shape the types
 * of the files after it.
 *
 * <p>A struct column whose file struct is the table's with fields added (at any depth, {@link
 * SafeWidening#addsFields}) is no misfit: its new fields are new columns, as a top-level column
 * the existing table lacks is. What a new column does follows {@code load.schema-evolution}:
 * {@code add-new-columns} loads it (the table gets it); {@code fail-on-new-columns} fails the
 * batch naming every file and its new columns, before anything is written; {@code rescue}, and
 * {@code none} with a rescued data column, rescue its values; {@code none} without one reads the
 * file as if it lacked the column (a struct as the table's struct), and counts and names it for
 * the file ({@link Checked#ignored}).
 *
 * <p>With {@code transform.rescued-data-column}, a column the table cannot take is rescued instead
 * of making its file a misfit: the file is read as if it lacked the column, and its values go to
 * the rescued data column. Such a column is one whose type cannot widen safely to the table's (or
 * to the earlier files' type for a column the table does not have), or a new column as above. A
 * key column, the precombine field and a column whose type the profile declares (a cast or a
 * schema hint) are never rescued (they decide as without the setting), nor a column named
 * {@value #FILE_PATH}, the rescued JSON's own field. A file column named like the rescued data
 * column fails the batch: its values could not be told from the rescued ones.
 */
public final class SchemaCheck {
  /** The field of the rescued JSON that names the row's file. */
  public static final String FILE_PATH = "_file_path";

  private final TableProfile profile;
  private final String tableName;
  private final Optional<StructType> table;
  private final Optional<String> corruptRecordColumn;
  private final MisfitReasons reasons;

  /**
   * @param table the existing table's schema, if the table exists
   * @param corruptRecordColumn json and csv: the reader's column for unparsable lines
   */
  public SchemaCheck(TableProfile profile, String tableName, Optional<StructType> table,
      Optional<String> corruptRecordColumn) {
    this.profile = Objects.requireNonNull(profile, "profile");
    this.tableName = Objects.requireNonNull(tableName, "tableName");
    this.table = Objects.requireNonNull(table, "table");
    this.corruptRecordColumn = Objects.requireNonNull(corruptRecordColumn, "corruptRecordColumn");
    this.reasons = new MisfitReasons(profile, tableName, this::isAdded);
  }

  /** A file to read, with the schema its reader gives it. */
  public record FileSchema(ManifestFile file, StructType schema) {}

  /** A file that cannot be aligned, and why: the reason names the file and the column. */
  public record Misfit(ManifestFile file, String reason) {}

  /**
   * The outcome of the check.
   *
   * @param misfits the files that cannot be aligned, in manifest order
   * @param rescued by file id, for the files that fit: the source column name to its target name,
   *     for each column whose values go to the rescued data column; none without that setting
   * @param ignored by file id: the file's new columns that are not loaded ({@code
   *     load.schema-evolution = none} without a rescued data column), a struct's field as {@code
   *     meta.c}, each with its type
   * @param narrowed by file id: the source name of each struct column read as the table's struct,
   *     without the fields it adds (which are ignored or rescued), to that struct
   * @param rescuedFields by file id: the rescued fields of struct columns, the key they are rescued
   *     under ({@code meta.c}, by target name) to the source column and the field's path in it
   */
  public record Checked(List<Misfit> misfits, Map<String, Map<String, String>> rescued,
      Map<String, Map<String, DataType>> ignored, Map<String, Map<String, StructType>> narrowed,
      Map<String, Map<String, List<String>>> rescuedFields) {
    public Checked {
      misfits = List.copyOf(misfits);
      rescued = Map.copyOf(rescued);
      ignored = Map.copyOf(ignored);
      narrowed = Map.copyOf(narrowed);
      rescuedFields = Map.copyOf(rescuedFields);
    }

    /** The file's rescued columns, source name to target name. */
    public Map<String, String> rescuedOf(ManifestFile file) {
      return rescued.getOrDefault(file.fileId(), Map.of());
    }

    /** The file's new columns that are not loaded, with their types. */
    public Map<String, DataType> ignoredOf(ManifestFile file) {
      return ignored.getOrDefault(file.fileId(), Map.of());
    }

    /** The file's struct columns read as the table's struct. */
    public Map<String, StructType> narrowedOf(ManifestFile file) {
      return narrowed.getOrDefault(file.fileId(), Map.of());
    }

    /** The file's rescued struct fields: rescued key to source column and field path. */
    public Map<String, List<String>> rescuedFieldsOf(ManifestFile file) {
      return rescuedFields.getOrDefault(file.fileId(), Map.of());
    }
  }

  /** The misfits among the files, in manifest order. */
  public List<Misfit> misfits(List<FileSchema> files) {
    return check(files).misfits();
  }

  /** The misfits among the files and, with a rescued data column, each fitting file's rescued columns. */
  public Checked check(List<FileSchema> files) {
    List<Map<String, StructField>> fields = files.stream().map(f -> targetColumns(f.schema())).toList();
    List<Map<String, DataType>> columns = fields.stream().map(SchemaCheck::types).toList();
    Optional<String> rescuedColumn = profile.transform().rescuedDataColumn();
    rescuedColumn.ifPresent(name -> requireNoFileColumn(name, files, fields));
    Map<String, DataType> tableTypes = new LinkedHashMap<>();
    table.ifPresent(schema -> {
      for (StructField field : schema.fields()) {
        if (!isAdded(field.name())) {
          tableTypes.put(field.name(), field.dataType());
        }
      }
    });
    Map<String, String> required = new LinkedHashMap<>();
    Load load = profile.load();
    for (int i = 0; i < load.primaryKey().size(); i++) {
      required.putIfAbsent(load.primaryKey().get(i), "load.primary-key[" + i + "]");
    }
    load.precombineField().ifPresent(field -> required.putIfAbsent(field, "load.iceberg.precombine-field"));
    load.cdc().ifPresent(cdc -> required.putIfAbsent(cdc.column(), cdc.key()));
    required.keySet().removeIf(this::isAdded);
    required.keySet().removeIf(column -> !tableTypes.containsKey(column)
        && columns.stream().noneMatch(c -> c.containsKey(column)));

    List<Misfit> misfits = new ArrayList<>();
    Map<String, Map<String, String>> rescued = new LinkedHashMap<>();
    Map<String, Map<String, DataType>> ignored = new LinkedHashMap<>();
    Map<String, Map<String, StructType>> narrowed = new LinkedHashMap<>();
    Map<String, Map<String, List<String>>> rescuedFields = new LinkedHashMap<>();
    Map<ManifestFile, Map<String, DataType>> refused = new LinkedHashMap<>();
    SchemaEvolution mode = load.schemaEvolution();
    Map<String, DataType> batchTypes = new LinkedHashMap<>();
    Map<String, String> batchOrigins = new LinkedHashMap<>();
    Optional<FileSchema> first = Optional.empty();
    Map<String, DataType> firstColumns = Map.of();
    for (int i = 0; i < files.size(); i++) {
      FileSchema file = files.get(i);
      Map<String, DataType> all = columns.get(i);
      if (all.isEmpty()) {
        continue; // no columns (an empty json file): no rows to misplace, nothing to compare
      }
      Map<String, String> rescuedHere = new LinkedHashMap<>();
      if (rescuedColumn.isPresent()) {
        for (Map.Entry<String, DataType> column : all.entrySet()) {
          String name = column.getKey();
          if (!required.containsKey(name) && isRescued(name, column.getValue(), tableTypes, batchTypes)) {
            rescuedHere.put(fields.get(i).get(name).name(), name);
          }
        }
      }
      Map<String, DataType> own = new LinkedHashMap<>(all);
      own.keySet().removeAll(rescuedHere.values());
      // The columns new to an existing table, top-level and inside its struct columns.
      Map<String, DataType> newHere = new LinkedHashMap<>();
      Map<String, StructType> narrowedHere = new LinkedHashMap<>();
      Map<String, List<String>> rescuedFieldsHere = new LinkedHashMap<>();
      if (table.isPresent()) {
        for (Map.Entry<String, DataType> column : own.entrySet()) {
          String name = column.getKey();
          DataType stored = tableTypes.get(name);
          if (stored == null && !required.containsKey(name)) {
            newHere.put(name, column.getValue());
          } else if (stored != null && SafeWidening.addsFields(stored, column.getValue())) {
            String source = fields.get(i).get(name).name();
            SafeWidening.newFields(stored, column.getValue()).forEach((path, type) -> {
              newHere.put(name + "." + path, type);
              if (mode != SchemaEvolution.ADD_NEW_COLUMNS && mode != SchemaEvolution.FAIL_ON_NEW_COLUMNS) {
                narrowedHere.put(source, (StructType) stored);
                if (rescuedColumn.isPresent()) {
                  List<String> fieldPath = new ArrayList<>(List.of(source));
                  fieldPath.addAll(List.of(path.split("\\.")));
                  rescuedFieldsHere.put(name + "." + path, fieldPath);
                }
              }
            });
          }
        }
      }
      Map<String, DataType> ignoredHere = new LinkedHashMap<>();
      if (mode == SchemaEvolution.FAIL_ON_NEW_COLUMNS && !newHere.isEmpty()) {
        refused.put(file.file(), newHere);
      } else if (mode == SchemaEvolution.NONE && rescuedColumn.isEmpty()) {
        ignoredHere.putAll(newHere);
        own.keySet().removeAll(newHere.keySet());
      }
      narrowedHere.forEach((source, struct) -> own.put(targetName(profile.transform(), source), struct));
      Optional<String> reason = reasons.missingRequired(file, own, required)
          .or(() -> reasons.unsafeType(file, own, tableTypes, batchTypes, batchOrigins));
      if (reason.isEmpty() && load.primaryKey().isEmpty()) {
        reason = reasons.sharesNothing(file, all, tableTypes, first, firstColumns);
      }
      if (reason.isPresent()) {
        misfits.add(new Misfit(file.file(), reason.get()));
        continue;
      }
      if (!rescuedHere.isEmpty()) {
        rescued.put(file.file().fileId(), rescuedHere);
      }
      if (!ignoredHere.isEmpty()) {
        ignored.put(file.file().fileId(), ignoredHere);
      }
      if (!narrowedHere.isEmpty()) {
        narrowed.put(file.file().fileId(), narrowedHere);
      }
      if (!rescuedFieldsHere.isEmpty()) {
        rescuedFields.put(file.file().fileId(), rescuedFieldsHere);
      }
      String uri = file.file().uri();
      own.forEach((name, type) -> {
        DataType seen = batchTypes.get(name);
        DataType merged = seen == null ? type : SafeWidening.commonOfFiles(seen, type).orElse(seen);
        if (seen == null || !SafeWidening.sameType(merged, seen)) {
          batchTypes.put(name, merged);
          batchOrigins.put(name, uri);
        }
      });
      if (first.isEmpty()) {
        first = Optional.of(file);
        firstColumns = all;
      }
    }
    if (!refused.isEmpty()) {
      throw new BatchFailedException(refused.entrySet().stream()
          .map(f -> "file " + f.getKey().uri() + " has column(s) that table " + tableName + " does not have: "
              + f.getValue().entrySet().stream().map(c -> c.getKey() + " " + c.getValue().simpleString())
                  .collect(Collectors.joining(", ")))
          .collect(Collectors.joining("; ")) + "; load.schema-evolution = fail-on-new-columns refuses them: set"
          + " load.schema-evolution to add-new-columns (or rescue, or none), or add the columns to the table");
    }
    return new Checked(misfits, rescued, ignored, narrowed, rescuedFields);
  }

  /**
   * Whether a file's column (not a key) goes to the rescued data column: a type the table's, or
   * else the earlier files', cannot take, or a column the table lacks and may not get.
   */
  private boolean isRescued(String name, DataType type, Map<String, DataType> tableTypes,
      Map<String, DataType> batchTypes) {
    if (DeclaredTypes.targets(profile).contains(name) || name.equals(FILE_PATH)) {
      return false;
    }
    DataType stored = tableTypes.get(name);
    if (stored != null) {
      return SafeWidening.common(stored, type).isEmpty() && !SafeWidening.addsFields(stored, type);
    }
    SchemaEvolution mode = profile.load().schemaEvolution();
    if (table.isPresent() && (mode == SchemaEvolution.RESCUE || mode == SchemaEvolution.NONE)) {
      return true;
    }
    return batchTypes.containsKey(name) && SafeWidening.common(batchTypes.get(name), type).isEmpty();
  }

  private void requireNoFileColumn(String rescuedColumn, List<FileSchema> files, List<Map<String, StructField>> fields) {
    for (int i = 0; i < files.size(); i++) {
      StructField field = fields.get(i).get(rescuedColumn);
      if (field != null) {
        throw new BatchFailedException("transform.rescued-data-column: \"" + rescuedColumn + "\" is also a column of file "
            + files.get(i).file().uri() + " (type " + field.dataType().simpleString() + "); rename that column with"
            + " transform.rename-columns or choose another name");
      }
    }
  }

  private static Map<String, DataType> types(Map<String, StructField> fields) {
    Map<String, DataType> types = new LinkedHashMap<>();
    fields.forEach((name, field) -> types.put(name, field.dataType()));
    return types;
  }

  /**
   * The file's columns by target name (each with its source field), in file order, without the
   * ones the job adds or reserves.
   */
  private Map<String, StructField> targetColumns(StructType schema) {
    Map<String, StructField> columns = new LinkedHashMap<>();
    for (StructField field : schema.fields()) {
      if (corruptRecordColumn.map(field.name()::equals).orElse(false) || isAdded(field.name())) {
        continue;
      }
      String target = targetName(profile.transform(), field.name());
      if (!isAdded(target)) {
        columns.put(target, field);
      }
    }
    return columns;
  }

  /** The partition column and the lineage columns: every file has them, the job adds them. */
  private boolean isAdded(String column) {
    return column.equals(profile.extract().batchFile().partitionColumn())
        || profile.extract().lineageColumns().stream().map(LineageColumn::code).anyMatch(column::equals);
  }


  /**
   * The name {@code transform.rename-columns} gives a source column: the renames apply to it one
   * after the other, in the order given, as they do to the batch's columns.
   */
  public static String targetName(Transform transform, String source) {
    String name = source;
    for (Map.Entry<String, String> rename : transform.renameColumns().entrySet()) {
      if (name.equals(rename.getKey())) {
        name = rename.getValue();
      }
    }
    return name;
  }
}
