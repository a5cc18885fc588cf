package io.files2iceberg.sparkjob.maintain;

import io.files2iceberg.core.logging.Causes;
import io.files2iceberg.sparkjob.BatchJob;
import io.files2iceberg.sparkjob.OwnSession;
import io.files2iceberg.sparkjob.RenderedSettings;
import java.io.PrintStream;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Iceberg table maintenance that keeps exactly-once intact: what {@code bin/files2iceberg
 * maintain} starts, as a child JVM locally or as a Dataproc Serverless batch. The command line is
 * {@link MaintainRequest}'s; the batcher decides from the ledger which batches to protect, this
 * main finds their markers in the table ({@link SnapshotProtection}), rewrites (compaction or sort,
 * delete files, manifests), expires and removes orphan files ({@link TableMaintenance}).
 *
 * <p>stdout's only line is the {@link MaintainOutcome} ({@code {"files2iceberg-maintain":...}}):
 * the {@link MaintainReport}, or the {@link SkippedTable} of a table not created yet; it is also
 * written to {@code --result} when given. Exit codes: 0 maintained or skipped; 1 failed (one stderr line
 * {@code files2iceberg: table T maintenance failed: ...}); 2 bad arguments.
 */
public final class MaintainMain {
  private static final Logger LOG = LoggerFactory.getLogger(MaintainMain.class);

  static final int EXIT_OK = 0;
  static final int EXIT_FAILED = 1;
  static final int EXIT_INVALID = 2;

  private MaintainMain() {}

  public static void main(String[] args) {
    MaintainRequest request;
    try {
      request = MaintainRequest.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("files2iceberg: invalid maintenance arguments: " + e.getMessage());
      System.exit(EXIT_INVALID);
      return;
    }
    SparkSession spark = BatchJob.newSession(request.profile(), request.deployment().job(), "files2iceberg maintain " + request.table());
    OwnSession.runAndExit(spark, session -> run(session, request, System.out, System.err));
  }

  /** Runs the maintenance and prints its report; returns the exit code. */
  static int run(SparkSession spark, MaintainRequest request, PrintStream out, PrintStream err) {
    SparkSession.setActiveSession(spark);
    try {
      String line = new TableMaintenance(spark).run(request).toLine();
      if (request.resultUri().isPresent()) {
        RenderedSettings.writeResult(request.resultUri().get(), line);
      }
      out.println(line);
      out.flush();
      return EXIT_OK;
    } catch (Exception e) { // Spark's AnalysisException is checked, yet thrown where Java cannot see it
      LOG.error("Table {}: maintenance failed", request.table(), e);
      err.println("files2iceberg: table " + request.table() + " maintenance failed: " + describe(e));
      return EXIT_FAILED;
    }
  }

  /** The messages along the cause chain, each once, on one line: the root cause is often what says why. */
  static String describe(Throwable error) {
    return Causes.chain(error);
  }
}
