package io.files2iceberg.sparkjob.undo;

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
    UndoMainRun.main(args, "rollback", RollbackRequest::parse, RollbackMain::run);
  }

  /**
   * Runs the command line on a session there is already (a warm driver's, a test's), with the
   * same exit codes and output as {@link #main}, which starts and stops a session of its own.
   */
  public static int run(SparkSession spark, String[] args, PrintStream out, PrintStream err) {
    return UndoMainRun.inSession(spark, args, "rollback", RollbackRequest::parse, RollbackMain::run, out, err);
  }

  /** Runs the rollback and prints its result line; returns the exit code. */
  static int run(SparkSession spark, RollbackRequest request, PrintStream out, PrintStream err) {
    return UndoMainRun.run(spark, "files2iceberg-rollback", "rollback", request, () -> new TableRollback(spark).run(request)::describe,
        out, err);
  }
}
