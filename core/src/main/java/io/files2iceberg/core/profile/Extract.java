package io.files2iceberg.core.profile;

import java.util.Map;

/**
 * Where the files are and how to read and group them.
 *
 * @param path a {@code gs://} or {@code file://} glob; {@code *}, {@code ?}, {@code {a,b}} and
 *     {@code **} are supported
 * @param format the files' format
 * @param options reader options handed to Spark as they are (for example csv {@code header})
 * @param recursiveFileLookup Spark's {@code recursiveFileLookup} reader option
 * @param batchFile how objects become partitions
 * @param keepCheckpoints committed batches kept in the ledger per table; older ones are pruned
 * @param saveCheckpoint false runs as a backfill that does not move the ledger's bookmarks
 * @param maxBatchSize the most files one batch reads
 */
public record Extract(
    String path,
    Format format,
    Map<String, String> options,
    boolean recursiveFileLookup,
    BatchFile batchFile,
    int keepCheckpoints,
    boolean saveCheckpoint,
    int maxBatchSize) {

  public Extract {
    options = Map.copyOf(options);
  }

  /** The formats the job can read. Codes are what profiles spell. */
  public enum Format {
    PARQUET("parquet"),
    ORC("orc"),
    AVRO("avro"),
    JSON("json"),
    CSV("csv");

    private final String code;

    Format(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }
  }
}
