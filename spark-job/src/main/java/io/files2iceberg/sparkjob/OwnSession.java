package io.files2iceberg.sparkjob;

import java.util.function.ToIntFunction;
import org.apache.spark.sql.SparkSession;

/**
 * The end of a command-line main that runs on a Spark session of its own (maintain, sql): the
 * session is stopped however the run ends, then the JVM exits with the run's code.
 */
public final class OwnSession {
  private OwnSession() {}

  /** Runs {@code run} on {@code spark}, stops the session, and exits with the code {@code run} returned. */
  public static void runAndExit(SparkSession spark, ToIntFunction<SparkSession> run) {
    int code;
    try {
      code = run.applyAsInt(spark);
    } finally {
      spark.stop();
    }
    System.exit(code);
  }
}
