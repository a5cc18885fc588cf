package io.files2iceberg.batcher.engine.launch;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * spark-job's build as {@link LocalSparkLauncher} runs it: the {@code java} command with Spark's
 * Java 17 options ({@value #JAVA_OPTIONS_RESOURCE}), the caller's JVM options and the job's
 * classpath, which executors in JVMs of their own are given too.
 *
 * @param java {@code java}, its options, {@code -cp} and the classpath, without a main class
 * @param classpath the job's classpath
 */
record SparkJobBuild(List<String> java, String classpath) {
  static final String JAVA_OPTIONS_RESOURCE = "files2iceberg/spark-java-options.txt";
  static final String BUILD_FOLDER_RESOURCE = "files2iceberg/build-folder.txt";
  static final String CLASSPATH_FILE = "classpath.txt";
  static final String LEDGER_CLASSPATH_FILE = "ledger-classpath.txt";
  private static final String BUILD_HINT = "build the job first: mvn -pl spark-job -am package -DskipTests";

  SparkJobBuild {
    java = List.copyOf(java);
  }

  /**
   * Reads the build in spark-job's {@code target} folder (absolute and normalised).
   *
   * @throws LaunchException (not retryable) when the job has not been built
   */
  static SparkJobBuild read(Path sparkJobTarget, List<String> jvmOptions) {
    Path classes = sparkJobTarget.resolve("classes");
    Path optionsFile = classes.resolve(JAVA_OPTIONS_RESOURCE);
    List<Path> required = List.of(sparkJobTarget.resolve(CLASSPATH_FILE),
        sparkJobTarget.resolve(LEDGER_CLASSPATH_FILE), optionsFile, classes.resolve(BUILD_FOLDER_RESOURCE));
    for (Path file : required) {
      if (!Files.isRegularFile(file)) {
        throw new LaunchException("The Spark job is not built: " + file + " is missing; " + BUILD_HINT, false);
      }
    }
    List<String> built = new ArrayList<>();
    String classpathText;
    built.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    try {
      built.addAll(parseOptions(Files.readString(optionsFile)));
      built.addAll(jvmOptions);
      classpathText = classpath(sparkJobTarget, classes);
      built.add("-cp");
      built.add(classpathText);
    } catch (IOException e) {
      throw new LaunchException("Cannot read the Spark job's build in " + sparkJobTarget + ": " + e, false, e);
    }
    return new SparkJobBuild(built, classpathText);
  }

  /**
   * The job's classpath: its classes, {@value #CLASSPATH_FILE} (Spark and every library) and
   * {@value #LEDGER_CLASSPATH_FILE} (the Firestore ledger's shaded jar, for {@code ledger.type =
   * firestore}). The build writes absolute paths; an entry inside the checkout that built it (this
   * project's own modules, such as core's jar) is taken from the checkout this target folder is in,
   * so a copied or moved checkout runs its own jars, not the original's.
   *
   * @throws LaunchException (not retryable) naming the first entry that does not exist
   */
  private static String classpath(Path sparkJobTarget, Path classes) throws IOException {
    Path builtIn = Path.of(lastLine(classes.resolve(BUILD_FOLDER_RESOURCE))).getParent();
    Path checkout = sparkJobTarget.getParent() == null ? null : sparkJobTarget.getParent().getParent();
    List<String> entries = new ArrayList<>();
    entries.add(classes.toString());
    for (String file : List.of(CLASSPATH_FILE, LEDGER_CLASSPATH_FILE)) {
      for (String entry : Files.readString(sparkJobTarget.resolve(file)).trim().split(File.pathSeparator)) {
        if (entry.isBlank()) {
          continue;
        }
        Path path = Path.of(entry);
        if (builtIn != null && checkout != null && path.startsWith(builtIn)) {
          path = checkout.resolve(builtIn.relativize(path));
        }
        if (!Files.exists(path)) {
          throw new LaunchException("The Spark job's build is incomplete: " + path + " (in " + sparkJobTarget.resolve(file)
              + ") does not exist; " + BUILD_HINT, false);
        }
        entries.add(path.toString());
      }
    }
    return String.join(File.pathSeparator, entries);
  }

  /** The last line of a generated file that is neither blank nor a {@code #} comment. */
  private static String lastLine(Path file) throws IOException {
    String last = null;
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      if (!line.isBlank() && !line.strip().startsWith("#")) {
        last = line.strip();
      }
    }
    if (last == null) {
      throw new LaunchException("The Spark job's build is incomplete: " + file + " is empty; " + BUILD_HINT, false);
    }
    return last;
  }

  static List<String> parseOptions(String text) {
    List<String> options = new ArrayList<>();
    for (String line : text.split("\\R")) {
      String trimmed = line.trim();
      if (!trimmed.isEmpty() && !trimmed.startsWith("#")) {
        options.addAll(List.of(trimmed.split("\\s+")));
      }
    }
    return options;
  }
}
