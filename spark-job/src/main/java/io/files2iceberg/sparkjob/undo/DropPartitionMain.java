package io.files2iceberg.sparkjob.undo;

import java.io.PrintStream;
import org.apache.spark.sql.SparkSession;

/**
 * The table side of {@code files2iceberg drop-partition}: what the batcher launches, as it launches
 * {@code MaintainMain}, after it wrote its intent (with the change id) to the ledger. The command
 * line is {@link DropPartitionRequest}'s; {@link PartitionDrop} does the work.
 *
 * <p>stdout's only line, also written to {@code --result}, is {@code
 * {"files2iceberg-drop-partition":{...}}} ({@link DropPartitionOutcome}; {@code "outcome":"refused"}
 * with {@code reason}, or {@code "failed"} with {@code error}). Exit codes: 0 dropped, already
 * applied or planned (dry run); 1 failed (one stderr line {@code files2iceberg: table T
 * drop-partition failed: ...}); 2 refused or bad arguments (one stderr line {@code files2iceberg:
 * ...}); nothing was changed.
 */
public final class DropPartitionMain {
  private DropPartitionMain() {}

  public static void main(String[] args) {
    UndoMainRun.main(args, "drop-partition", DropPartitionRequest::parse, DropPartitionMain::run);
  }

  /**
   * Runs the command line on a session there is already (a warm driver's, a test's), with the
   * same exit codes and output as {@link #main}, which starts and stops a session of its own.
   */
  public static int run(SparkSession spark, String[] args, PrintStream out, PrintStream err) {
    return UndoMainRun.inSession(spark, args, "drop-partition", DropPartitionRequest::parse, DropPartitionMain::run, out, err);
  }

  /** Drops the partition and prints its result line; returns the exit code. */
  static int run(SparkSession spark, DropPartitionRequest request, PrintStream out, PrintStream err) {
    return UndoMainRun.run(spark, "files2iceberg-drop-partition", "drop-partition", request, () -> new PartitionDrop(spark).run(request)::describe,
        out, err);
  }
}
