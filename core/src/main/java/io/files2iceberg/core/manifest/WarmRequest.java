package io.files2iceberg.core.manifest;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.files2iceberg.core.Sha256;
import io.files2iceberg.core.profile.JobSettings;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One batch handed to a warm driver ({@code job.mode = warm}): the launch a batcher would otherwise
 * start as a job of its own. The batcher writes it once it holds the batch's lease and has marked
 * it RUNNING, so a driver never runs anything a batcher has not leased; the driver runs it exactly
 * as the per-batch job runs {@code --manifest <manifestUri> --attempt <attempt>} and writes the
 * same {@link AttemptResult} beside the manifest.
 *
 * <p>The driver's folder holds, for the batchers and the driver of one deployment:
 *
 * <pre>{@code
 * driver.lock                 held (a file lock) by the one live driver
 * driver.pid                  its pid and the settings it runs with ({@link #fingerprint})
 * start.lock                  held by a batcher while it starts a driver
 * requests/<name>             waiting: written by a batcher, in one step
 * running/<name>.<pid>        taken by the driver of that pid, in one rename
 * cancel/<name>               a batcher asks the driver to cancel the run's Spark job group
 * driver.log                  the driver's output
 * }</pre>
 *
 * On Cloud Storage ({@code job.mode = warm} with {@code job.dataproc-region}), where an object
 * cannot be renamed atomically nor locked, the folder holds instead:
 *
 * <pre>{@code
 * driver.json                 the holder ({@link WarmDriverHeartbeat}), written with generation preconditions
 * requests/<name>             waiting: written by a batcher, in one put
 * running/<name>              taken: created only where none exists, holding the taker's driver id;
 *                             the taker then deletes requests/<name>, and runs it only if that delete
 *                             found it (else the batcher withdrew it first)
 * cancel/<name>               as above
 * }</pre>
 *
 * where {@code <name>} is {@link #name()}, {@code <batchId>-attempt<N>.request}. A request moves
 * only forward: waiting, running, then (its result written first) gone; so a reader that looks in
 * that order and finds neither the request nor the result knows the request was lost.
 * {@link io.files2iceberg.core.warm.WarmFolder} is the one protocol over both layouts, for the
 * batchers and the driver alike.
 *
 * @param table the manifest's table, for logs
 * @param batchId the manifest's batch id
 * @param manifestUri where the driver reads the manifest
 * @param attempt the launch of the batch this run is
 * @param fingerprint the job settings the run needs the driver's Spark context to have been
 *     started with ({@link #fingerprint(JobSettings)}): a driver runs only requests of its own
 */
public record WarmRequest(String table, String batchId, String manifestUri, int attempt, String fingerprint) {

  public static final String FORMAT = "files2iceberg-warm-request";
  public static final String REQUESTS = "requests";
  public static final String RUNNING = "running";
  public static final String CANCEL = "cancel";
  public static final String DRIVER_LOCK = "driver.lock";
  public static final String DRIVER_PID = "driver.pid";
  public static final String START_LOCK = "start.lock";
  public static final String DRIVER_LOG = "driver.log";
  public static final String DRIVER_JSON = "driver.json";
  public static final String SUFFIX = ".request";


  public WarmRequest {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(batchId, "batchId");
    Objects.requireNonNull(manifestUri, "manifestUri");
    Objects.requireNonNull(fingerprint, "fingerprint");
    AttemptResult.requireAttempt(attempt);
  }

  /** The request of a manifest's attempt, with its deployment's job settings' {@link #fingerprint}. */
  public static WarmRequest of(BatchManifest manifest, String manifestUri, int attempt) {
    return new WarmRequest(manifest.table(), manifest.batchId(), manifestUri, attempt,
        fingerprint(manifest.deployment().job()));
  }

  /** {@code <batchId>-attempt<N>.request}: the file's name while waiting, the stem of its running name. */
  public String name() {
    return name(batchId, attempt);
  }

  /** The request name of a batch's attempt. */
  public static String name(String batchId, int attempt) {
    return AttemptResult.stem(batchId, attempt) + SUFFIX;
  }

  /** The name of a request the driver of {@code pid} has taken, in a local folder. */
  public static String runningName(String name, long pid) {
    return runningName(name, String.valueOf(pid));
  }

  /** The name of a request the driver of that id has taken, in a local folder. */
  public static String runningName(String name, String driverId) {
    return name + "." + driverId;
  }

  /** The Spark job group the driver runs the request in, which cancelling cancels. */
  public String jobGroup() {
    return AttemptResult.stem(batchId, attempt);
  }

  /**
   * What a Spark context must have been started with to run a deployment's batches: its master and
   * Spark properties, as 16 hex digits of their SHA-256. Catalogs are set per session; these are not.
   */
  public static String fingerprint(JobSettings job) {
    return fingerprint(job.master(), job.sparkProperties());
  }

  /** {@link #fingerprint(JobSettings)} of settings with this master and these Spark properties. */
  public static String fingerprint(String master, Map<String, String> sparkProperties) {
    StringBuilder text = new StringBuilder("master=").append(master).append('\n');
    for (Map.Entry<String, String> property : new TreeMap<>(sparkProperties).entrySet()) {
      text.append(property.getKey()).append('=').append(property.getValue()).append('\n');
    }
    return Sha256.hex(text.toString()).substring(0, 16);
  }

  /** The request's document, as a driver reads it. */
  @JsonPropertyOrder({"format", "table", "batchId", "manifest", "attempt", "fingerprint"})
  record Json(String format, String table, String batchId, String manifest, Integer attempt, String fingerprint)
      implements JsonCodec.Document {}

  /** The request on one line: {@code {"format":"files2iceberg-warm-request","table":...,"attempt":1,...}}. */
  public String toJson() {
    return JsonCodec.compact(new Json(FORMAT, table, batchId, manifestUri, attempt, fingerprint));
  }

  /**
   * Reads a request.
   *
   * @throws IllegalArgumentException naming {@code source} and the field when it is not one
   */
  public static WarmRequest fromJson(String json, String source) {
    JsonCodec.Reading reading = new JsonCodec.Reading("warm request", source);
    Json read = reading.read(json, Json.class, FORMAT);
    String table = reading.text("table", read.table());
    String batchId = reading.text("batchId", read.batchId());
    String manifest = reading.text("manifest", read.manifest());
    String fingerprint = reading.text("fingerprint", read.fingerprint());
    if (read.attempt() == null || read.attempt() < 1) {
      throw reading.invalid("attempt", "expected a number from 1, got "
          + (read.attempt() == null ? "" : read.attempt()));
    }
    return new WarmRequest(table, batchId, manifest, read.attempt(), fingerprint);
  }
}
