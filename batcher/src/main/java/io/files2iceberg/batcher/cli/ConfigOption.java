package io.files2iceberg.batcher.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code -c/--config}: a profile or a folder of profiles (the deployment file beside them names the
 * ledger). What the profiles are for differs by command, so a command's wording, where it is not the
 * one below, is its entry {@code files2iceberg.<command>.config} in {@code OptionText.properties}.
 */
public final class ConfigOption {
  @Option(names = {"-c", "--config"}, paramLabel = "FILE|DIR", descriptionKey = "config",
      description = "Profiles naming the ledger.")
  Path config;

  /** {@code --config}, or null when it was not given. */
  public Path path() {
    return config;
  }

  /** {@code -c/--config}, required: the commands that cannot run without profiles. */
  public static final class Required {
    @Option(names = {"-c", "--config"}, required = true, paramLabel = "FILE|DIR", descriptionKey = "config",
        description = "A profile (.conf, .yaml, .yml) or a folder of profiles.")
    Path config;

    /** The profile file or folder. */
    public Path path() {
      return config;
    }
  }
}
