package io.files2iceberg.core.logging;

import java.util.Map;
import java.util.TreeMap;

/**
 * The MDC keys that name what a log line is about, and the Cloud Logging label each becomes in the
 * JSON formats ({@code logging.googleapis.com/labels}): the listener's, the batcher's and the job's.
 */
public final class LogLabels {
  /** MDC key of the table a line is about. */
  public static final String MDC_TABLE = "table";
  /** MDC key of the partition token a line is about. */
  public static final String MDC_PARTITION = "partition";
  /** MDC key of the batch a line is about. */
  public static final String MDC_BATCH_ID = "batchId";
  /** MDC key of the object URI a line is about. */
  public static final String MDC_OBJECT_URI = "objectUri";
  /** MDC key of the Pub/Sub message a line is about. */
  public static final String MDC_MESSAGE_ID = "messageId";

  /** Each MDC key that becomes a label, with its label, sorted by key. */
  public static final Map<String, String> LABELS = new TreeMap<>(Map.of(
      MDC_TABLE, "table",
      MDC_PARTITION, "partition",
      MDC_BATCH_ID, "batch_id",
      MDC_OBJECT_URI, "object_uri",
      MDC_MESSAGE_ID, "message_id"));

  private LogLabels() {}
}
