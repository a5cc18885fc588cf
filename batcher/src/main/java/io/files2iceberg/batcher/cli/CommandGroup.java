package io.files2iceberg.batcher.cli;

import io.files2iceberg.core.profile.Home;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command that groups subcommands ({@code batch}, {@code quarantine}): run without one, it is a
 * usage error naming them ({@link ErrorOutput#missingCommand}). Its {@code --home}, given before
 * the subcommand ({@code batch --home DIR run-once}), is the subcommands' unless they are given
 * their own.
 */
public abstract class CommandGroup implements Runnable {
  @Mixin HomeOption home;

  @Spec CommandSpec spec;

  /** The home a subcommand runs in: its own {@code --home}, else the group's, else the default. */
  public Home home(HomeOption own) {
    return own.resolve(home);
  }

  @Override
  public final void run() {
    throw ErrorOutput.missingCommand(spec);
  }
}
