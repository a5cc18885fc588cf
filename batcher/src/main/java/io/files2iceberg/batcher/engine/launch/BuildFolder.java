package io.files2iceberg.batcher.engine.launch;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Where the build of one of this project's modules is, for the commands that start it as a child
 * JVM (spark-job's for {@link LocalSparkLauncher}, listener's for the embedded pipeline): a system
 * property, else an environment variable, else {@code <module>/target} of the first folder at or
 * above the working directory that holds {@code <module>/pom.xml} (a checkout).
 */
public final class BuildFolder {
  private BuildFolder() {}

  /** The module's {@code target} folder, or empty when neither names it and no checkout holds it. */
  public static Optional<Path> locate(String module, String property, String envVariable, Map<String, String> env,
      Path workingDir) {
    String fromProperty = System.getProperty(property);
    if (fromProperty != null && !fromProperty.isBlank()) {
      return Optional.of(Path.of(fromProperty));
    }
    String fromEnv = env.get(envVariable);
    if (fromEnv != null && !fromEnv.isBlank()) {
      return Optional.of(Path.of(fromEnv));
    }
    for (Path dir = workingDir.toAbsolutePath().normalize(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve(module).resolve("pom.xml"))) {
        return Optional.of(dir.resolve(module).resolve("target"));
      }
    }
    return Optional.empty();
  }
}
