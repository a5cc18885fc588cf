package io.files2iceberg.listener.handle;

/**
 * What handling one message came to; the only thing a transport needs to reply: acknowledge it
 * ({@link #isAck()}: a 2xx push response, a pull ack) or have Pub/Sub redeliver it (a 503, a pull
 * nack).
 *
 * <p>Every acknowledging outcome is reported only after the ledger write it stands for has
 * committed, so an acknowledged message is never lost.
 */
public enum Outcome {
  /** A data file was recorded (a new file, or a new generation of a known name). */
  RECORDED,
  /**
   * Nothing changed: the file was already recorded with this generation (a redelivery), or a
   * success marker arrived for a partition already INGESTED with no file pending.
   */
  DUPLICATE,
  /** A success marker made its partition READY (after recording the files the listing found). */
  PARTITION_READY,
  /**
   * Not for the pipeline and acknowledged without a ledger write: an event type other than
   * OBJECT_FINALIZE, an object that matches no profile, or one the matcher ignores.
   */
  IGNORED,
  /** A message that can never succeed was recorded in the ledger's quarantine, with its reason. */
  QUARANTINED,
  /** A transient failure (the ledger or the storage listing): nothing acknowledged, redeliver. */
  RETRY;

  /** Whether the transport acknowledges the message; false means redeliver it. */
  public boolean isAck() {
    return switch (this) {
      case RECORDED, DUPLICATE, PARTITION_READY, IGNORED, QUARANTINED -> true;
      case RETRY -> false;
    };
  }
}
