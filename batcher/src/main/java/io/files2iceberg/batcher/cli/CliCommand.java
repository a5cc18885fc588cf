package io.files2iceberg.batcher.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command of {@code files2iceberg} that runs and returns its exit code. picocli injects its spec
 * (into this superclass's field too), through which it prints on the writers the caller set on the
 * command line ({@code CommandLine.setOut}/{@code setErr}) rather than on {@code System.out}.
 */
public abstract class CliCommand implements Callable<Integer> {
  @Spec private CommandSpec spec;

  /** This command as picocli parsed it. */
  protected final CommandSpec spec() {
    return spec;
  }

  /** Where the command's output goes. */
  protected final PrintWriter out() {
    return spec.commandLine().getOut();
  }

  /** Where the command's errors and progress go. */
  protected final PrintWriter err() {
    return spec.commandLine().getErr();
  }

  /** A usage error: picocli prints it with the usage hint and exits 2. */
  protected final CommandLine.ParameterException usageError(String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }
}
