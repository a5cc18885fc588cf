package io.files2iceberg.core.manifest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.core.ledger.FailureCause;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.Optional;

/**
 * What one attempt of the job on a batch did, as the job itself records it: a file beside the
 * batch's manifest, {@link #locationBeside}. The job writes it last, in one atomic step (a temp
 * file renamed locally, one object put on {@code gs://}), so that a reader sees either nothing or
 * the whole result. It is the record of an attempt that outlives its batcher: the launchers read
 * it when the job ends, and recovery reads the latest attempt's before launching the batch again.
 * A job that died before writing it (killed, out of memory) leaves none; its exit code and log
 * are all there is.
 *
 * <pre>{@code
 * {"format":"files2iceberg-attempt-result","version":1,"table":"local.demo.clicks",
 *  "batchId":"20261130T120000-1a2b3c4d","attempt":1,"exitCode":0,"exit":"loaded","pid":4242,
 *  "startedAt":"2026-11-30T12:00:01Z","endedAt":"2026-11-30T12:00:31Z",
 *  "report":{...the metrics line's object, see BatchLoadReport...},"error":null,
 *  "errorClass":null,"errorFile":null}
 * }</pre>
 *
 * @param table the manifest's table; empty when the manifest could not be read
 * @param batchId the manifest's batch id, or its file name's stem when it could not be read
 * @param attempt the launch of the batch this run was ({@code --attempt})
 * @param exitCode the process exit code the job returned with this result
 * @param report what the job loaded or finalized, when it got that far ({@link JobExit#LOADED},
 *     and {@link JobExit#CHECKPOINT_FAILED})
 * @param error the job's classified {@code files2iceberg:} line when it did not load the batch
 * @param cause with {@code error}, when the job classified an exception: its error class and the
 *     file at fault ({@code errorClass}, {@code errorFile}; absent in results of earlier builds)
 * @param pid the process id of the job's driver
 */
public record AttemptResult(
    String table,
    String batchId,
    int attempt,
    int exitCode,
    JobExit exit,
    Optional<BatchLoadReport> report,
    Optional<String> error,
    Optional<FailureCause> cause,
    long pid,
    Instant startedAt,
    Instant endedAt) {

  public static final String FORMAT = "files2iceberg-attempt-result";
  public static final int CURRENT_VERSION = 1;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String MANIFEST_SUFFIX = ".json";

  public AttemptResult {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(batchId, "batchId");
    Objects.requireNonNull(exit, "exit");
    Objects.requireNonNull(report, "report");
    Objects.requireNonNull(error, "error");
    Objects.requireNonNull(cause, "cause");
    Objects.requireNonNull(startedAt, "startedAt");
    Objects.requireNonNull(endedAt, "endedAt");
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt must be at least 1, is " + attempt);
    }
  }

  /** A result without a classified cause. */
  public AttemptResult(String table, String batchId, int attempt, int exitCode, JobExit exit,
      Optional<BatchLoadReport> report, Optional<String> error, long pid, Instant startedAt, Instant endedAt) {
    this(table, batchId, attempt, exitCode, exit, report, error, Optional.empty(), pid, startedAt, endedAt);
  }

  /**
   * {@code <batchId>-attempt<N>}: the one name of an attempt, which its result, log, pid file,
   * warm request and Spark job group are named after.
   */
  public static String stem(String batchId, int attempt) {
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt must be at least 1, is " + attempt);
    }
    return batchId + "-attempt" + attempt;
  }

  /**
   * Where the job writes the result of an attempt: beside the manifest, {@code
   * <folder>/<batchId>-attempt<N>.result.json} for a manifest {@code <folder>/<batchId>.json}
   * (a local path, {@code file:} or {@code gs://} URI; the result is of the same kind).
   */
  public static String locationBeside(String manifestUri, int attempt) {
    Objects.requireNonNull(manifestUri, "manifestUri");
    String stem = manifestUri.endsWith(MANIFEST_SUFFIX)
        ? manifestUri.substring(0, manifestUri.length() - MANIFEST_SUFFIX.length())
        : manifestUri;
    return stem(stem, attempt) + ".result.json";
  }

  /** The batch id a manifest's location names: its file name without {@code .json}. */
  public static String batchIdOf(String manifestUri) {
    String name = manifestUri.substring(manifestUri.lastIndexOf('/') + 1);
    return name.endsWith(MANIFEST_SUFFIX) ? name.substring(0, name.length() - MANIFEST_SUFFIX.length()) : name;
  }

  /** Whether the table holds the batch after this attempt (loaded, or committed with a failed checkpoint). */
  public boolean isInTable() {
    return report.isPresent() && (exit == JobExit.LOADED || exit == JobExit.CHECKPOINT_FAILED);
  }

  /** One line: the job's error, else what it committed. */
  public String detail() {
    if (error.isPresent()) {
      return error.get();
    }
    if (report.isPresent()) {
      BatchLoadReport r = report.get();
      return (r.alreadyCommitted() ? "already committed in snapshot " : "committed snapshot ") + r.snapshotId()
          + ", checkpoint " + r.checkpoint().code();
    }
    return "the job exited with code " + exitCode;
  }

  public String toJson() {
    ObjectNode root = JSON.createObjectNode();
    root.put("format", FORMAT);
    root.put("version", CURRENT_VERSION);
    root.put("table", table);
    root.put("batchId", batchId);
    root.put("attempt", attempt);
    root.put("exitCode", exitCode);
    root.put("exit", exit.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
    root.put("pid", pid);
    root.put("startedAt", startedAt.toString());
    root.put("endedAt", endedAt.toString());
    if (report.isPresent()) {
      report.get().writeTo(root.putObject("report"));
    } else {
      root.putNull("report");
    }
    if (error.isPresent()) {
      root.put("error", error.get());
    } else {
      root.putNull("error");
    }
    if (cause.isPresent()) {
      root.put("errorClass", cause.get().errorClass());
      if (cause.get().file().isPresent()) {
        root.put("errorFile", cause.get().file().get());
      } else {
        root.putNull("errorFile");
      }
    } else {
      root.putNull("errorClass");
      root.putNull("errorFile");
    }
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write the result of batch " + batchId + " attempt " + attempt, e);
    }
  }

  /**
   * Reads a result.
   *
   * @param origin where the text came from, named in every error
   * @throws IllegalArgumentException naming the origin and the field at fault
   */
  public static AttemptResult fromJson(String json, String origin) {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("Invalid attempt result " + origin + ": not JSON: " + e.getOriginalMessage(),
          e);
    }
    if (root == null || !root.isObject()) {
      throw invalid(origin, "the document", "expected a JSON object");
    }
    if (!FORMAT.equals(root.path("format").asText())) {
      throw invalid(origin, "format", "expected \"" + FORMAT + "\", got " + root.get("format"));
    }
    if (root.path("version").asInt() != CURRENT_VERSION) {
      throw invalid(origin, "version", "this build reads version " + CURRENT_VERSION + ", the result is version "
          + root.get("version"));
    }
    String exitCode = text(root, origin, "exit");
    JobExit exit;
    try {
      exit = JobExit.valueOf(exitCode.toUpperCase(java.util.Locale.ROOT).replace('-', '_'));
    } catch (IllegalArgumentException e) {
      throw invalid(origin, "exit", "unknown exit \"" + exitCode + "\"");
    }
    JsonNode report = root.get("report");
    JsonNode error = root.get("error");
    JsonNode errorClass = root.get("errorClass");
    JsonNode errorFile = root.get("errorFile");
    Optional<FailureCause> cause = errorClass == null || errorClass.isNull() || errorClass.asText().isBlank()
        ? Optional.empty()
        : Optional.of(new FailureCause(errorClass.asText(),
            errorFile == null || errorFile.isNull() ? Optional.empty() : Optional.of(errorFile.asText())));
    try {
      return new AttemptResult(
          root.path("table").asText(),
          text(root, origin, "batchId"),
          root.path("attempt").asInt(),
          root.path("exitCode").asInt(),
          exit,
          report == null || report.isNull() ? Optional.empty() : Optional.of(BatchLoadReport.readFrom(report)),
          error == null || error.isNull() ? Optional.empty() : Optional.of(error.asText()),
          cause,
          root.path("pid").asLong(),
          instant(root, origin, "startedAt"),
          instant(root, origin, "endedAt"));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Invalid attempt result " + origin + ": " + e.getMessage(), e);
    }
  }

  private static String text(JsonNode root, String origin, String field) {
    JsonNode value = root.get(field);
    if (value == null || !value.isTextual() || value.asText().isBlank()) {
      throw invalid(origin, field, "expected a non-empty string, got " + value);
    }
    return value.asText();
  }

  private static Instant instant(JsonNode root, String origin, String field) {
    String text = text(root, origin, field);
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw invalid(origin, field, "expected an ISO-8601 instant, got \"" + text + "\"");
    }
  }

  private static IllegalArgumentException invalid(String origin, String field, String reason) {
    return new IllegalArgumentException("Invalid attempt result " + origin + ": " + field + ": " + reason);
  }
}
