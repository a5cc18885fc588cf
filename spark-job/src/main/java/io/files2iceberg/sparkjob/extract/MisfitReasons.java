package io.files2iceberg.sparkjob.extract;

import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.extract.SchemaCheck.FileSchema;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.spark.sql.types.DataType;

/**
 * Why a file does not fit the batch ({@link SchemaCheck}): a column the profile needs is missing,
 * a type cannot widen safely, or it shares no column with what came first. Each reason names the
 * file and the column.
 */
final class MisfitReasons {
  private static final String SAFE = "(safe: int -> bigint, float -> double, decimal to more precision)";

  private final TableProfile profile;
  private final String tableName;
  private final Predicate<String> isAdded;

  /** @param isAdded whether a column is one the job adds to every file (partition, lineage) */
  MisfitReasons(TableProfile profile, String tableName, Predicate<String> isAdded) {
    this.profile = Objects.requireNonNull(profile, "profile");
    this.tableName = Objects.requireNonNull(tableName, "tableName");
    this.isAdded = Objects.requireNonNull(isAdded, "isAdded");
  }

  Optional<String> missingRequired(FileSchema file, Map<String, DataType> own, Map<String, String> required) {
    for (Map.Entry<String, String> column : required.entrySet()) {
      if (!own.containsKey(column.getKey())) {
        return Optional.of("file " + file.file().uri() + " has no column " + column.getKey() + ", which "
            + column.getValue() + " needs (after transform.rename-columns its columns are " + own.keySet() + ")");
      }
    }
    return Optional.empty();
  }

  Optional<String> unsafeType(FileSchema file, Map<String, DataType> own, Map<String, DataType> tableTypes,
      Map<String, DataType> batchTypes, Map<String, String> batchOrigins) {
    Set<String> casts = DeclaredTypes.targets(profile);
    for (Map.Entry<String, DataType> column : own.entrySet()) {
      String name = column.getKey();
      DataType type = column.getValue();
      DataType stored = tableTypes.get(name);
      if (stored != null && !casts.contains(name)) {
        if (SafeWidening.common(stored, type).isEmpty() && !SafeWidening.addsFields(stored, type)) {
          return Optional.of("column " + name + ": file " + file.file().uri() + " has type " + type.simpleString()
              + " but table " + tableName + " has type " + stored.simpleString() + ", which is not a safe change "
              + SAFE);
        }
      } else if (batchTypes.containsKey(name) && SafeWidening.commonOfFiles(batchTypes.get(name), type).isEmpty()) {
        return Optional.of("column " + name + ": file " + file.file().uri() + " has type " + type.simpleString()
            + " but file " + batchOrigins.get(name) + " has type " + batchTypes.get(name).simpleString()
            + ", and neither widens safely to the other");
      }
    }
    return Optional.empty();
  }

  Optional<String> sharesNothing(FileSchema file, Map<String, DataType> own, Map<String, DataType> tableTypes,
      Optional<FileSchema> first, Map<String, DataType> firstColumns) {
    String prefix = "file " + file.file().uri() + " shares no column with ";
    if (!tableTypes.isEmpty()) {
      return disjoint(own.keySet(), tableTypes.keySet())
          ? Optional.of(prefix + "table " + tableName + ": its columns are " + own.keySet() + ", the table's "
              + tableTypes.keySet())
          : Optional.empty();
    }
    Set<String> declared = declaredColumns();
    if (!declared.isEmpty()) {
      return disjoint(own.keySet(), declared)
          ? Optional.of(prefix + "the columns the profile declares: its columns are " + own.keySet()
              + ", the profile's " + declared)
          : Optional.empty();
    }
    if (first.isPresent() && disjoint(own.keySet(), firstColumns.keySet())) {
      return Optional.of(prefix + "file " + first.get().file().uri() + ", the first of the batch (there is no table"
          + " yet and the profile declares no column): its columns are " + own.keySet() + ", that file's "
          + firstColumns.keySet());
    }
    return Optional.empty();
  }

  /** The columns the profile names as the table's: cast columns and rename targets. */
  private Set<String> declaredColumns() {
    Set<String> declared = new LinkedHashSet<>(profile.transform().castColumns().keySet());
    declared.addAll(profile.transform().renameColumns().values());
    declared.removeIf(isAdded);
    return declared;
  }

  private static boolean disjoint(Set<String> a, Set<String> b) {
    return a.stream().noneMatch(b::contains);
  }
}
