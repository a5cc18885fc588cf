package io.files2iceberg.sparkjob.undo;

import io.files2iceberg.sparkjob.BatchJob;
import io.files2iceberg.sparkjob.OwnSession;
import java.io.PrintStream;
import org.apache.spark.sql.SparkSession;

/**
 * The table side of {@code files2iceberg rollback}: what the batcher launches, as it launches
 * {@code MaintainMain} (a child JVM locally, a Dataproc Serverless batch), after it wrote its intent
 * to the ledger and before it puts the undone batches' files back. The command line is {@link
 * RollbackRequest}'s; {@link TableRollback} does the work.
 *
 * <p>stdout's only line, also written to {@code --result}, is {@code {"files2iceberg-rollback":{...}}}
 * ({@link RollbackOutcome}; {@code "outcome":"refused"} with {@code reason}, or {@code "failed"}
 * with {@code error}). Exit codes: 0 rolled back, already rolled back, planned (dry run) or
 * nothing to undo; 1 failed (one stderr line {@code files2iceberg: table T rollback failed: ...});
 * 2 refused or bad arguments (one stderr line {@code files2iceberg: ...}); nothing was changed.
 */
public final class RollbackMain {
  private RollbackMain() {}

  public static void main(String[] args) {
    RollbackRequest request;
    try {
      request = RollbackRequest.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("files2iceberg: invalid rollback arguments: " + e.getMessage());
      System.exit(UndoMainRun.EXIT_REFUSED);
      return;
    }
    SparkSession spark = BatchJob.newSession(request.profile(), request.deployment().job(),
        "files2iceberg rollback " + request.table());
    OwnSession.runAndExit(spark, session -> run(session, request, System.out, System.err));
  }

  /** Runs the rollback and prints its result line; returns the exit code. */
  static int run(SparkSession spark, RollbackRequest request, PrintStream out, PrintStream err) {
    SparkSession.setActiveSession(spark);
    return UndoMainRun.run(new UndoMainRun.Run("files2iceberg-rollback", "rollback", request.table(),
        request.dryRun(), request.resultUri()), () -> new TableRollback(spark).run(request)::describe, out, err);
  }
}
