package io.files2iceberg.sparkjob.extract;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The type changes that lose nothing and that an Iceberg table can take in place: integers to
 * wider integers (byte, short, int, bigint), float to double, and a decimal to more precision at
 * the same scale. Everything else (string to int, int to string, date to timestamp) is unsafe.
 * Types are compared without nullability.
 */
public final class SafeWidening {
  private SafeWidening() {}

  /** Whether the two types are the same, nullability aside. */
  public static boolean sameType(DataType a, DataType b) {
    return a.catalogString().equals(b.catalogString());
  }

  /** The type both widen to safely, if there is one. */
  public static Optional<DataType> common(DataType a, DataType b) {
    if (sameType(a, b)) {
      return Optional.of(a);
    }
    int ra = integralRank(a);
    int rb = integralRank(b);
    if (ra > 0 && rb > 0) {
      return Optional.of(ra >= rb ? a : b);
    }
    if (isFloating(a) && isFloating(b)) {
      return Optional.of(DataTypes.DoubleType);
    }
    if (a instanceof DecimalType da && b instanceof DecimalType db && da.scale() == db.scale()) {
      return Optional.of(da.precision() >= db.precision() ? a : b);
    }
    return Optional.empty();
  }

  /**
   * The type the files of one batch share: {@link #common}, or of two structs the one that is the
   * other with fields added (the other's rows read NULL in the added fields).
   */
  public static Optional<DataType> commonOfFiles(DataType a, DataType b) {
    Optional<DataType> common = common(a, b);
    if (common.isPresent()) {
      return common;
    }
    if (addsFields(a, b)) {
      return Optional.of(b);
    }
    return addsFields(b, a) ? Optional.of(a) : Optional.empty();
  }

  /** Whether values of {@code from} can be written to {@code to} safely. */
  public static boolean canWiden(DataType from, DataType to) {
    return common(from, to).map(c -> sameType(c, to)).orElse(false);
  }

  /**
   * Whether a file's struct {@code file} is the table's struct {@code table} with fields added:
   * every field of the table's is in the file's, of a type that is the same, narrower (written
   * widened), or itself a struct with fields added; and the file's has a field the table's lacks.
   * Such a struct column is a safe change: the new fields can be added inside it.
   */
  public static boolean addsFields(DataType table, DataType file) {
    return table instanceof StructType && file instanceof StructType && !newFields(table, file).isEmpty()
        && holdsEveryField((StructType) table, (StructType) file);
  }

  /**
   * The fields of the file's struct, at any depth, that the table's struct lacks, each with its
   * path below the struct ({@code c}, {@code inner.d}) and type; in the file's order.
   */
  public static Map<String, DataType> newFields(DataType table, DataType file) {
    Map<String, DataType> added = new LinkedHashMap<>();
    if (table instanceof StructType t && file instanceof StructType f) {
      collectNewFields(t, f, "", added);
    }
    return added;
  }

  private static void collectNewFields(StructType table, StructType file, String prefix, Map<String, DataType> added) {
    for (StructField field : file.fields()) {
      Optional<StructField> stored = field(table, field.name());
      if (stored.isEmpty()) {
        added.put(prefix + field.name(), field.dataType());
      } else if (stored.get().dataType() instanceof StructType t && field.dataType() instanceof StructType f) {
        collectNewFields(t, f, prefix + field.name() + ".", added);
      }
    }
  }

  private static boolean holdsEveryField(StructType table, StructType file) {
    for (StructField stored : table.fields()) {
      Optional<StructField> field = field(file, stored.name());
      if (field.isEmpty()) {
        return false;
      }
      DataType type = field.get().dataType();
      boolean fits = sameType(type, stored.dataType()) || canWiden(type, stored.dataType())
          || (stored.dataType() instanceof StructType t && type instanceof StructType f && holdsEveryField(t, f));
      if (!fits) {
        return false;
      }
    }
    return true;
  }

  private static Optional<StructField> field(StructType struct, String name) {
    for (StructField field : struct.fields()) {
      if (field.name().equals(name)) {
        return Optional.of(field);
      }
    }
    return Optional.empty();
  }

  private static int integralRank(DataType type) {
    if (type instanceof ByteType) {
      return 1;
    }
    if (type instanceof ShortType) {
      return 2;
    }
    if (type instanceof IntegerType) {
      return 3;
    }
    if (type instanceof LongType) {
      return 4;
    }
    return 0;
  }

  private static boolean isFloating(DataType type) {
    return type instanceof FloatType || type instanceof DoubleType;
  }
}
