package io.files2iceberg.batcher.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code -c/--config}, required, for the commands that read the user's own profiles and nothing the
 * deployment names ({@code local}, {@code validate}).
 */
public final class ProfilesOption {
  @Option(
      names = {"-c", "--config"},
      required = true,
      paramLabel = "FILE|DIR",
      description = "A profile (.conf, .yaml, .yml) or a folder of profiles.")
  Path config;

  /** The profile file or folder. */
  public Path path() {
    return config;
  }
}
