package io.files2iceberg.batcher.cli;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * The deployment file every command that takes profiles reads: {@code --deployment FILE} (an
 * option of the top command that every subcommand takes), else the environment's {@value #ENV},
 * else {@code deployment.conf} beside the profiles (empty here).
 */
public final class DeploymentFile {

  /** The environment variable that names the deployment file, as the listener reads it too. */
  static final String ENV = "FILES2ICEBERG_DEPLOYMENT";

  /** Set by the option of the command line being run; one command line runs at a time. */
  private static volatile Optional<Path> option = Optional.empty();

  private DeploymentFile() {}

  static void choose(Optional<Path> file) {
    option = file;
  }

  /** The deployment file named by the option or the environment. */
  static Optional<Path> chosen(Map<String, String> env) {
    return option.or(() -> Optional.ofNullable(env.get(ENV)).filter(v -> !v.isBlank()).map(Path::of));
  }

  public static Optional<Path> chosen() {
    return chosen(System.getenv());
  }
}
