package io.files2iceberg.sparkjob;

import io.files2iceberg.core.logging.LogFormat;
import java.net.URISyntaxException;
import java.net.URL;
import java.util.Map;
import org.apache.logging.log4j.core.config.Configurator;

/**
 * The job driver's log format: Spark's text, or JSON lines for Cloud Logging ({@value #JSON_CONFIG})
 * when {@value LogFormat#SPARK_PROPERTY} (a system property in the driver, as spark-submit sets
 * every {@code spark.*} property; the Dataproc launchers set it) or {@code FILES2ICEBERG_LOG_FORMAT}
 * says {@code JSON}. Executors keep Spark's logging.
 */
public final class JobLogging {
  /** The log4j2 configuration of the JSON format, on the job's classpath. */
  public static final String JSON_CONFIG = "files2iceberg/log4j2-json.properties";

  private JobLogging() {}

  /** Switches log4j2 to the JSON configuration when this process asks for JSON; else nothing. */
  public static void configure() {
    if (isJson(System.getenv(), System.getProperty(LogFormat.SPARK_PROPERTY))) {
      URL config = JobLogging.class.getClassLoader().getResource(JSON_CONFIG);
      if (config == null) {
        throw new IllegalStateException("Resource " + JSON_CONFIG + " is missing from the job's classpath");
      }
      try {
        Configurator.reconfigure(config.toURI());
      } catch (URISyntaxException e) {
        throw new IllegalStateException("Resource " + JSON_CONFIG + " has no URI: " + config, e);
      }
    }
  }

  /** Whether the Spark property, else the environment, asks for JSON. */
  static boolean isJson(Map<String, String> env, String sparkProperty) {
    return LogFormat.of(env, sparkProperty).equals("JSON")
        && (sparkProperty != null || env.containsKey(LogFormat.ENV));
  }
}
