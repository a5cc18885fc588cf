package io.files2iceberg.batcher.cli;

import java.io.PrintWriter;
import java.util.List;

/**
 * A problem with the command line found once a command has opened the ledger and the profiles (a
 * {@code --table} no profile loads, a {@code --from} the table's partitioning cannot read), thrown
 * before anything changed: {@link OperatorRun} prints it as {@link ConfigProblems} prints every
 * problem, {@code error: 1 problem(s) in the command line:} and the problem, and exits {@link
 * ExitCode#INVALID}.
 */
public final class CommandLineProblem extends RuntimeException {
  /** Where {@link ConfigProblems#print} says the problem is. */
  static final String WHERE = "the command line";

  public CommandLineProblem(String problem) {
    super(problem);
  }

  /** Prints the problem as {@link ConfigProblems#print} does; returns {@link ExitCode#INVALID}. */
  public static int print(PrintWriter err, String problem) {
    ConfigProblems.print(err, WHERE, List.of(problem));
    return ExitCode.INVALID;
  }
}
