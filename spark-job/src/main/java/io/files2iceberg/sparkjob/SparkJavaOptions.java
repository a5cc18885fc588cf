package io.files2iceberg.sparkjob;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The JVM options a child JVM needs to run Spark on Java 17 (Spark's module opens), for the local
 * launcher that starts the job as {@code java <options> -cp target/classes:<classpath.txt>
 * io.files2iceberg.sparkjob.BatchJob --manifest ...}. They are defined once, as the root pom's
 * {@code spark.java17.options}, which also runs this module's tests; the build writes them to the
 * resource {@value #RESOURCE}.
 */
public final class SparkJavaOptions {
  /** On the job's classpath, and at {@code spark-job/target/classes/} after a build. */
  public static final String RESOURCE = "files2iceberg/spark-java-options.txt";

  private SparkJavaOptions() {}

  /** The options from this module's resource. */
  public static List<String> load() {
    try (InputStream in = SparkJavaOptions.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("Resource " + RESOURCE + " is missing from the classpath");
      }
      return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read resource " + RESOURCE, e);
    }
  }

  /** Whitespace-separated options; a line starting with {@code #} is a comment. */
  public static List<String> parse(String text) {
    List<String> options = new ArrayList<>();
    for (String line : text.split("\\R")) {
      String trimmed = line.trim();
      if (trimmed.isEmpty() || trimmed.startsWith("#")) {
        continue;
      }
      for (String option : trimmed.split("\\s+")) {
        options.add(option);
      }
    }
    return List.copyOf(options);
  }
}
