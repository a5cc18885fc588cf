package io.files2iceberg.sparkjob.change;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.core.logging.Causes;
import io.files2iceberg.sparkjob.BatchJob;
import io.files2iceberg.sparkjob.OwnSession;
import io.files2iceberg.sparkjob.ResultLine;
import io.files2iceberg.sparkjob.catalog.IcebergTables;
import io.files2iceberg.sparkjob.change.ChangeFeed.Feed;
import io.files2iceberg.sparkjob.change.ChangeFeed.UnknownStartException;
import java.io.PrintStream;
import java.util.Optional;
import org.apache.iceberg.Table;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The table's change feed ({@link ChangeFeed}): what {@code bin/files2iceberg changes} starts, as a
 * child JVM locally or as a Dataproc Serverless batch. The command line is {@link ChangesRequest}'s.
 *
 * <p>stdout's only line is the result, {@code {"files2iceberg-changes":{"table","start",
 * "currentSnapshotId","changes":[...],"other"}}}, each change as docs/reference/json/changes.schema.json
 * describes it; or {@code {"files2iceberg-changes":{"table","start","refused"}}} when the start is
 * unknown. It is also written to {@code --result} when given. Exit codes: 0 listed; 1 failed (one
 * stderr line {@code files2iceberg: table T change feed failed: ...}); 2 bad arguments, a table that
 * does not exist, or a start snapshot that is unknown or expired.
 */
public final class ChangesMain {
  private static final Logger LOG = LoggerFactory.getLogger(ChangesMain.class);

  /** The key of the result line. */
  public static final String RESULT_KEY = "files2iceberg-changes";
  static final int EXIT_OK = 0;
  static final int EXIT_FAILED = 1;
  static final int EXIT_INVALID = 2;

  private ChangesMain() {}

  public static void main(String[] args) {
    ChangesRequest request;
    try {
      request = ChangesRequest.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("files2iceberg: invalid change feed arguments: " + e.getMessage());
      System.exit(EXIT_INVALID);
      return;
    }
    SparkSession spark = BatchJob.newSession(request.profile(), request.deployment().job(),
        "files2iceberg changes " + request.table());
    OwnSession.runAndExit(spark, session -> run(session, request, System.out, System.err));
  }

  /** Lists the changes and prints the result line; returns the exit code. */
  static int run(SparkSession spark, ChangesRequest request, PrintStream out, PrintStream err) {
    SparkSession.setActiveSession(spark);
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    body.put("table", request.table());
    body.put("start", request.start().toString());
    int exit;
    try {
      Optional<Table> table = IcebergTables.find(spark, request.table());
      if (table.isEmpty()) {
        body.put("refused", "table " + request.table() + " does not exist yet: no batch has loaded it");
        exit = EXIT_INVALID;
      } else {
        Feed feed = ChangeFeed.read(table.get(), request.table(), request.start());
        if (feed.current().isPresent()) {
          body.put("currentSnapshotId", Long.toString(feed.current().get()));
        } else {
          body.putNull("currentSnapshotId");
        }
        ArrayNode changes = body.putArray("changes");
        feed.changes().forEach(change -> changes.add(change.toJson(request.table())));
        body.put("other", feed.other());
        exit = EXIT_OK;
      }
    } catch (UnknownStartException e) {
      body.put("refused", e.getMessage());
      exit = EXIT_INVALID;
    } catch (Exception e) { // Spark's AnalysisException is checked, yet thrown where Java cannot see it
      LOG.error("Table {}: change feed failed", request.table(), e);
      err.println("files2iceberg: table " + request.table() + " change feed failed: " + Causes.chain(e));
      return EXIT_FAILED;
    }
    ObjectNode result = JsonNodeFactory.instance.objectNode();
    result.set(RESULT_KEY, body);
    String line = result.toString();
    try {
      if (request.resultUri().isPresent()) {
        ResultLine.write(request.resultUri().get(), line);
      }
    } catch (Exception e) {
      err.println("files2iceberg: table " + request.table() + " change feed failed: cannot write "
          + request.resultUri().get() + ": " + Causes.chain(e));
      return EXIT_FAILED;
    }
    if (body.has("refused")) {
      err.println("files2iceberg: " + body.get("refused").asText());
    }
    out.println(line);
    out.flush();
    return exit;
  }
}
