package io.files2iceberg.core.logging;

import java.util.Locale;
import java.util.Map;

/**
 * Which of the two log formats a process writes: {@code JSON} (one {@link CloudLoggingLayout} object
 * per line, what Cloud Logging reads) or {@code TEXT} (for people). {@value #ENV} (an environment
 * variable, or the system property {@value #PROPERTY}) says which, {@code JSON} or {@code TEXT};
 * without it, JSON on Cloud Run (a service sets {@code K_SERVICE}, a job {@code CLOUD_RUN_JOB}) and
 * text anywhere else, such as a terminal.
 *
 * <p>The batcher's logback.xml asks {@link LogFormatDefiner}; the Spark job reads {@value
 * #SPARK_PROPERTY}, which the Dataproc launchers set to {@code JSON}.
 */
public final class LogFormat {
  /** The environment variable that chooses the format. */
  public static final String ENV = "FILES2ICEBERG_LOG_FORMAT";
  /** The system property that chooses the format (wins over the environment variable). */
  public static final String PROPERTY = "files2iceberg.log-format";
  /** The Spark property that chooses the job driver's format ({@code JSON} or {@code TEXT}). */
  public static final String SPARK_PROPERTY = "spark.files2iceberg.log-format";

  private LogFormat() {}

  /** The format of this process. */
  public static String current() {
    return of(System.getenv(), System.getProperty(PROPERTY));
  }

  /**
   * The format for a process with this environment and {@value #PROPERTY}; an unknown value is
   * text, with the value named on stderr (logging is not configured yet).
   */
  public static String of(Map<String, String> env, String property) {
    String chosen = property != null && !property.isBlank() ? property : env.get(ENV);
    if (chosen != null && !chosen.isBlank()) {
      String format = chosen.strip().toUpperCase(Locale.ROOT);
      if (format.equals("JSON") || format.equals("TEXT")) {
        return format;
      }
      System.err.println("warning: " + ENV + "=" + chosen + " is neither JSON nor TEXT; logging text");
      return "TEXT";
    }
    return env.containsKey("K_SERVICE") || env.containsKey("CLOUD_RUN_JOB") ? "JSON" : "TEXT";
  }
}
