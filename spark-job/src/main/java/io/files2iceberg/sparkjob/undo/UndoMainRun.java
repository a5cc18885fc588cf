package io.files2iceberg.sparkjob.undo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.core.logging.Causes;
import io.files2iceberg.sparkjob.BatchJob;
import io.files2iceberg.sparkjob.OwnSession;
import io.files2iceberg.sparkjob.ResultLine;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How {@link RollbackMain} and {@link DropPartitionMain} end, as {@code MaintainMain} does: the
 * result line {@code {"<key>":{"table":...,"dryRun":...,"outcome":...}}} on stdout and in {@code
 * --result}; exit 0 done (or nothing to do), 2 refused (one stderr line {@code files2iceberg: ...},
 * and the result line with {@code "outcome":"refused"} and {@code reason}), 1 failed (one stderr
 * line, and, when it can still be written, the result line with {@code "outcome":"failed"} and
 * {@code error}): the table may or may not have changed, running it again finishes the job.
 */
final class UndoMainRun {
  private static final Logger LOG = LoggerFactory.getLogger(UndoMainRun.class);

  static final int EXIT_OK = 0;
  static final int EXIT_FAILED = 1;
  static final int EXIT_REFUSED = 2;

  static final String OUTCOME = "outcome";

  /**
   * What a run is.
   *
   * @param key the result line's one key, {@code files2iceberg-rollback} or {@code files2iceberg-drop-partition}
   * @param action what the failure line calls the run: {@code rollback}, {@code drop-partition}
   */
  record Run(String key, String action, String table, boolean dryRun, Optional<String> resultUri) {}

  private UndoMainRun() {}

  /** What a main reads once its request is parsed: the run on its session, printing to stdout and stderr. */
  interface Launched<R extends UndoRequest> {
    int run(SparkSession spark, R request, PrintStream out, PrintStream err);
  }

  /**
   * A main's body: parses the command line (exit 2 and one stderr line when it cannot), starts a
   * session on the profile's catalog with the deployment's Spark properties, runs, stops the
   * session and exits with the run's code.
   */
  static <R extends UndoRequest> void main(String[] args, String action, Function<String[], R> parse,
      Launched<R> launched) {
    Optional<R> request = parsed(args, action, parse, System.err);
    if (request.isEmpty()) {
      System.exit(EXIT_REFUSED);
      return;
    }
    SparkSession spark = BatchJob.newSession(request.get().profile(), request.get().deployment().job(),
        "files2iceberg " + action + " " + request.get().table());
    OwnSession.runAndExit(spark, session -> launched.run(session, request.get(), System.out, System.err));
  }

  /** Parses the command line and runs on a session there is already; exit 2 when it cannot be parsed. */
  static <R extends UndoRequest> int inSession(SparkSession spark, String[] args, String action,
      Function<String[], R> parse, Launched<R> launched, PrintStream out, PrintStream err) {
    Optional<R> request = parsed(args, action, parse, err);
    return request.isEmpty() ? EXIT_REFUSED : launched.run(spark, request.get(), out, err);
  }

  /** The request, or empty after the stderr line saying what is wrong with the command line. */
  private static <R> Optional<R> parsed(String[] args, String action, Function<String[], R> parse, PrintStream err) {
    try {
      return Optional.of(parse.apply(args));
    } catch (IllegalArgumentException e) {
      err.println("files2iceberg: invalid " + action + " arguments: " + e.getMessage());
      return Optional.empty();
    }
  }

  /**
   * Runs {@code work}, which adds its outcome's fields to the result line {@code {"<key>":{...}}},
   * on the active session, and returns the exit code.
   */
  static int run(SparkSession spark, String key, String action, UndoRequest request,
      Callable<Consumer<ObjectNode>> work, PrintStream out, PrintStream err) {
    SparkSession.setActiveSession(spark);
    return run(new Run(key, action, request.table(), request.dryRun(), request.resultUri()), work, out, err);
  }

  private static int run(Run run, Callable<Consumer<ObjectNode>> work, PrintStream out, PrintStream err) {
    Consumer<ObjectNode> outcome;
    try {
      outcome = work.call();
    } catch (UndoRefusedException e) {
      LOG.warn("Table {}: {} refused: {}", run.table(), run.action(), e.getMessage());
      err.println("files2iceberg: " + e.getMessage());
      emitQuietly(run, body -> body.put(OUTCOME, "refused").put("reason", e.getMessage()), out);
      return EXIT_REFUSED;
    } catch (Exception e) { // Spark's AnalysisException is checked, yet thrown where Java cannot see it
      LOG.error("Table {}: {} failed", run.table(), run.action(), e);
      String message = "table " + run.table() + " " + run.action() + " failed: " + Causes.chain(e);
      err.println("files2iceberg: " + message);
      emitQuietly(run, body -> body.put(OUTCOME, "failed").put("error", message), out);
      return EXIT_FAILED;
    }
    try {
      emit(run, outcome, out);
      return EXIT_OK;
    } catch (IOException | RuntimeException e) {
      LOG.error("Table {}: {} done, but its result cannot be written to {}", run.table(), run.action(),
          run.resultUri().orElse("stdout"), e);
      err.println("files2iceberg: table " + run.table() + " " + run.action() + " done, but its result cannot be"
          + " written to " + run.resultUri().orElse("stdout") + ": " + Causes.chain(e) + "; running it again says so");
      return EXIT_FAILED;
    }
  }

  /** The result line: {@code table}, {@code dryRun}, then what the outcome says. */
  static String line(Run run, Consumer<ObjectNode> outcome) {
    ObjectMapper json = new ObjectMapper();
    ObjectNode root = json.createObjectNode();
    ObjectNode body = root.putObject(run.key());
    body.put("table", run.table());
    body.put("dryRun", run.dryRun());
    outcome.accept(body);
    try {
      return json.writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("cannot render the " + run.action() + " result of " + run.table(), e);
    }
  }

  private static void emit(Run run, Consumer<ObjectNode> outcome, PrintStream out) throws IOException {
    String line = line(run, outcome);
    if (run.resultUri().isPresent()) {
      ResultLine.write(run.resultUri().get(), line);
    }
    out.println(line);
    out.flush();
  }

  /** A refusal or failure is reported on stderr whatever happens to its result line. */
  private static void emitQuietly(Run run, Consumer<ObjectNode> outcome, PrintStream out) {
    try {
      emit(run, outcome, out);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Table {}: the {} result cannot be written to {}", run.table(), run.action(),
          run.resultUri().orElse("stdout"), e);
    }
  }
}
