package io.files2iceberg.sparkjob.extract;

import java.util.ArrayDeque;
import java.util.Deque;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * What one run of the job holds in the Spark session: cached datasets and temporary views. The
 * stages register them here; the job releases them all when the batch is done, whatever happened.
 */
public final class BatchScope implements AutoCloseable {
  private final SparkSession spark;
  private final Deque<Runnable> releases = new ArrayDeque<>();

  public BatchScope(SparkSession spark) {
    this.spark = spark;
  }

  /** Persists the dataset (memory, spilling to disk) until the batch is done. */
  public Dataset<Row> cache(Dataset<Row> rows) {
    Dataset<Row> cached = rows.persist(StorageLevel.MEMORY_AND_DISK());
    releases.push(() -> cached.unpersist(false));
    return cached;
  }

  /**
   * Cuts the dataset's lineage (a local checkpoint, memory then disk) without a pass of its own:
   * the first action over it computes and keeps its rows, and every later one reads them. What
   * follows sees fixed rows, and a plan without the nondeterministic row positions that MERGE
   * refuses in its source. The blocks go when the dataset is no longer referenced.
   */
  public Dataset<Row> materialize(Dataset<Row> rows) {
    return rows.localCheckpoint(false);
  }

  /** Registers the dataset as a temporary view of this session until the batch is done. */
  public void view(String name, Dataset<Row> rows) {
    rows.createOrReplaceTempView(name);
    releases.push(() -> spark.catalog().dropTempView(name));
  }

  @Override
  public void close() {
    while (!releases.isEmpty()) {
      releases.pop().run();
    }
  }
}
