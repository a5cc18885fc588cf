package io.files2iceberg.sparkjob.extract;

import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.profile.TableProfile;
import java.time.Instant;
import java.util.Objects;
import org.apache.spark.sql.SparkSession;

/**
 * Command: load one batch. The job's input, and the context every stage after it carries along.
 *
 * @param startedAt when this run began: the batch's ingestion time and the start of its read
 * @param scope what the run caches in the session, released when the batch is done
 */
public record LoadBatch(SparkSession spark, BatchManifest manifest, Instant startedAt, BatchScope scope) {

  public LoadBatch {
    Objects.requireNonNull(spark, "spark");
    Objects.requireNonNull(manifest, "manifest");
    Objects.requireNonNull(startedAt, "startedAt");
    Objects.requireNonNull(scope, "scope");
  }

  public String table() {
    return manifest.table();
  }

  public String batchId() {
    return manifest.batchId();
  }

  public TableProfile profile() {
    return manifest.profile();
  }
}
