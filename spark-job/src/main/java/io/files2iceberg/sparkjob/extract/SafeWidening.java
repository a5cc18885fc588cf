package io.files2iceberg.sparkjob.extract;

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

  /** Whether values of {@code from} can be written to {@code to} safely. */
  public static boolean canWiden(DataType from, DataType to) {
    return common(from, to).map(c -> sameType(c, to)).orElse(false);
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
