package io.files2iceberg.bench.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.row_number;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;

/**
 * The baseline: what a data engineer writes by hand for the same batch. Read the batch's files,
 * keep the latest version of each key, MERGE into the table with the batch id in the commit.
 *
 * <pre>
 * HandWrittenMerge --home DIR --table local.bench.events --batch-id ID --files-from FILE
 * </pre>
 */
public final class HandWrittenMerge {
  private HandWrittenMerge() {}

  public static void main(String[] args) throws Exception {
    Path home = Path.of(LocalSessions.arg(args, "--home"));
    String table = LocalSessions.arg(args, "--table");
    String batchId = LocalSessions.arg(args, "--batch-id");
    String[] files = Files.readAllLines(Path.of(LocalSessions.arg(args, "--files-from"))).toArray(String[]::new);
    SparkSession spark = LocalSessions.open(home, "hand-written merge");
    try {
      Dataset<Row> batch = spark.read().parquet(files);
      Dataset<Row> latest = batch
          .withColumn("_rn", row_number().over(Window.partitionBy("id").orderBy(col("version").desc())))
          .where(col("_rn").equalTo(1))
          .drop("_rn");
      latest.createOrReplaceTempView("batch");
      CommitMetadata.withCommitProperties(Map.of("files2iceberg.batch-id", batchId), () -> {
        spark.sql("MERGE INTO " + table + " t USING batch s ON t.id = s.id"
            + " WHEN MATCHED AND s.version > t.version THEN UPDATE SET *"
            + " WHEN NOT MATCHED THEN INSERT *");
        return 0;
      }, RuntimeException.class);
    } finally {
      spark.stop();
    }
  }
}
