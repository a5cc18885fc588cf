package io.files2iceberg.bench.spark;

import java.nio.file.Path;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Prints the table's contents in one JSON line, so both sides of a benchmark can be checked to
 * leave the same table: {@code {"rows":N,"ids":N,"versions":N,"amount":X}}.
 */
public final class TableCheck {
  private TableCheck() {}

  public static void main(String[] args) {
    Path home = Path.of(LocalSessions.arg(args, "--home"));
    String table = LocalSessions.arg(args, "--table");
    SparkSession spark = LocalSessions.open(home, "bench check");
    try {
      Row row = spark.sql("SELECT count(*), count(DISTINCT id), sum(version), round(sum(amount), 2) FROM " + table)
          .first();
      System.out.println("{\"rows\":" + row.getLong(0) + ",\"ids\":" + row.getLong(1) + ",\"versions\":"
          + row.getLong(2) + ",\"amount\":" + row.get(3) + "}");
    } finally {
      spark.stop();
    }
  }
}
