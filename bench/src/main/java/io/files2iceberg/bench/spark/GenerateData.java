package io.files2iceberg.bench.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.pmod;
import static org.apache.spark.sql.functions.split;
import static org.apache.spark.sql.functions.timestamp_seconds;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.LocalDate;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Writes one set of rows as Parquet files into day folders {@code <out>/dt=<day>/<prefix>-<n>.parquet}:
 * ids {@code from + i * stride} for {@code i < count}, each in every version of {@code --versions}
 * (a key in two versions is two rows), over {@code --days} days from {@code --first-day} (by id),
 * {@code --files} files per day. Columns: id, version, dt (a date), amount, name, updated_at.
 */
public final class GenerateData {
  private GenerateData() {}

  public static void main(String[] args) throws IOException {
    Path out = Path.of(LocalSessions.arg(args, "--out"));
    long from = Long.parseLong(LocalSessions.arg(args, "--from"));
    long count = Long.parseLong(LocalSessions.arg(args, "--count"));
    long stride = Long.parseLong(LocalSessions.arg(args, "--stride"));
    String versions = LocalSessions.arg(args, "--versions");
    LocalDate firstDay = LocalDate.parse(LocalSessions.arg(args, "--first-day"));
    int days = Integer.parseInt(LocalSessions.arg(args, "--days"));
    int files = Integer.parseInt(LocalSessions.arg(args, "--files"));
    String prefix = LocalSessions.arg(args, "--prefix");
    Path scratch = out.resolveSibling(out.getFileName() + "-scratch");
    SparkSession spark = SparkSession.builder().appName("bench data").master("local[2]")
        .config("spark.ui.enabled", "false").getOrCreate();
    try {
      Dataset<Row> rows = spark.range(count)
          .select(col("id").multiply(stride).plus(from).as("id"))
          .withColumn("version", explode(split(lit(versions), ",")))
          .withColumn("version", col("version").cast("bigint"))
          .withColumn("day", pmod(col("id"), lit(days)))
          .withColumn("amount", pmod(col("id").multiply(7919).plus(col("version")), lit(100_000)).divide(100.0))
          .withColumn("name", concat(lit("user-"), pmod(col("id"), lit(1000)).cast("string")))
          .withColumn("updated_at", timestamp_seconds(lit(1_764_000_000L).plus(col("version").multiply(3600))));
      for (int d = 0; d < days; d++) {
        String day = firstDay.plusDays(d).toString();
        Path target = Files.createDirectories(out.resolve("dt=" + day));
        Path dayScratch = scratch.resolve(day + "-" + prefix);
        rows.where(col("day").equalTo(d)).drop("day").withColumn("dt", lit(day).cast("date"))
            .select("id", "version", "dt", "amount", "name", "updated_at")
            .repartition(files).write().mode("overwrite").parquet(dayScratch.toString());
        List<Path> parts;
        try (Stream<Path> listed = Files.list(dayScratch)) {
          parts = listed.filter(p -> p.getFileName().toString().startsWith("part-")
              && p.getFileName().toString().endsWith(".parquet")).sorted().toList();
        }
        for (int i = 0; i < parts.size(); i++) {
          Files.move(parts.get(i), target.resolve(prefix + "-" + i + ".parquet"), StandardCopyOption.REPLACE_EXISTING);
        }
        System.out.println("wrote " + parts.size() + " files into " + target);
      }
    } finally {
      spark.stop();
    }
  }
}
