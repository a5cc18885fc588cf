package io.files2iceberg.core.manifest;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.core.ledger.FailureCause;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;
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
    requireAttempt(attempt);
  }

  /** A result without a classified cause. */
  public AttemptResult(String table, String batchId, int attempt, int exitCode, JobExit exit,
      Optional<BatchLoadReport> report, Optional<String> error, long pid, Instant startedAt, Instant endedAt) {
    this(table, batchId, attempt, exitCode, exit, report, error, Optional.empty(), pid, startedAt, endedAt);
  }

  /** Refuses an attempt number below 1: a batch's first launch is attempt 1. */
  static void requireAttempt(int attempt) {
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt must be at least 1, is " + attempt);
    }
  }

  /**
   * {@code <batchId>-attempt<N>}: the one name of an attempt, which its result, log, pid file,
   * warm request and Spark job group are named after.
   */
  public static String stem(String batchId, int attempt) {
    requireAttempt(attempt);
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

  /** The result's document; {@code report} is {@link BatchLoadReport}'s own. */
  @JsonPropertyOrder({"format", "version", "table", "batchId", "attempt", "exitCode", "exit", "pid", "startedAt",
      "endedAt", "report", "error", "errorClass", "errorFile"})
  record Json(String format, Integer version, String table, String batchId, Integer attempt, Integer exitCode,
      String exit, Long pid, String startedAt, String endedAt, JsonNode report, String error, String errorClass,
      String errorFile) {}

  /** The result's document, indented: one property a line. */
  public String toJson() {
    return JsonCodec.pretty(new Json(FORMAT, CURRENT_VERSION, table, batchId, attempt, exitCode,
        exit.name().toLowerCase(Locale.ROOT).replace('_', '-'), pid, startedAt.toString(), endedAt.toString(),
        report.map(BatchLoadReport::toNode).orElse(null), error.orElse(null),
        cause.map(FailureCause::errorClass).orElse(null), cause.flatMap(FailureCause::file).orElse(null)));
  }

  /**
   * Reads a result.
   *
   * @param origin where the text came from, named in every error
   * @throws IllegalArgumentException naming the origin and the field at fault
   */
  public static AttemptResult fromJson(String json, String origin) {
    JsonCodec.Reading reading = new JsonCodec.Reading("attempt result", origin);
    Json read = reading.read(json, Json.class);
    if (!FORMAT.equals(read.format())) {
      throw reading.invalid("format", "expected \"" + FORMAT + "\", got " + quoted(read.format()));
    }
    if (read.version() == null || read.version() != CURRENT_VERSION) {
      throw reading.invalid("version", "this build reads version " + CURRENT_VERSION + ", the result is version "
          + read.version());
    }
    String exitCode = nonEmpty(reading, "exit", read.exit());
    JobExit exit;
    try {
      exit = JobExit.valueOf(exitCode.toUpperCase(Locale.ROOT).replace('-', '_'));
    } catch (IllegalArgumentException e) {
      throw reading.invalid("exit", "unknown exit \"" + exitCode + "\"");
    }
    Optional<FailureCause> cause = read.errorClass() == null || read.errorClass().isBlank()
        ? Optional.empty()
        : Optional.of(new FailureCause(read.errorClass(), Optional.ofNullable(read.errorFile())));
    try {
      return new AttemptResult(
          read.table() == null ? "" : read.table(),
          nonEmpty(reading, "batchId", read.batchId()),
          read.attempt() == null ? 0 : read.attempt(),
          read.exitCode() == null ? 0 : read.exitCode(),
          exit,
          read.report() == null || read.report().isNull()
              ? Optional.empty()
              : Optional.of(BatchLoadReport.readFrom(read.report())),
          Optional.ofNullable(read.error()),
          cause,
          read.pid() == null ? 0 : read.pid(),
          instant(reading, "startedAt", read.startedAt()),
          instant(reading, "endedAt", read.endedAt()));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Invalid attempt result " + origin + ": " + e.getMessage(), e);
    }
  }

  private static String nonEmpty(JsonCodec.Reading reading, String field, String value) {
    if (value == null || value.isBlank()) {
      throw reading.invalid(field, "expected a non-empty string, got " + quoted(value));
    }
    return value;
  }

  private static Instant instant(JsonCodec.Reading reading, String field, String value) {
    String text = nonEmpty(reading, field, value);
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw reading.invalid(field, "expected an ISO-8601 instant, got \"" + text + "\"");
    }
  }

  /** A string as the document holds it: {@code "text"}, or {@code null}. */
  private static String quoted(String value) {
    return value == null ? "null" : JsonCodec.MAPPER.getNodeFactory().textNode(value).toString();
  }
}
