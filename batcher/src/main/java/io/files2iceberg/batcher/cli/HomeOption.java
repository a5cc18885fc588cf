package io.files2iceberg.batcher.cli;

import io.files2iceberg.core.profile.Home;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/** {@code --home}: the folder holding all embedded-mode state. Every subcommand takes it. */
public final class HomeOption {
  @Option(
      names = "--home",
      paramLabel = "DIR",
      description = "Folder for embedded-mode state (ledger.db, catalog.db, warehouse/). "
          + "Default: $FILES2ICEBERG_HOME, else .files2iceberg in the working directory.")
  public Path home;

  public Home resolve() {
    return Home.resolve(Optional.ofNullable(home), System.getenv());
  }

  /**
   * A subcommand's {@code --home} when given, else its command group's ({@code batch --home DIR
   * run-once}), else the default.
   */
  public Home resolve(HomeOption group) {
    return (home != null ? this : group).resolve();
  }
}
