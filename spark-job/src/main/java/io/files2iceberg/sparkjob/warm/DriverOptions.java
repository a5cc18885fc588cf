package io.files2iceberg.sparkjob.warm;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A {@link WarmDriver}'s command line, as {@link #USAGE} describes it.
 *
 * @param folder the driver's folder: a local path or a {@code gs://} URI
 * @param idleTimeout how long it serves without a run
 * @param master {@code job.master}
 * @param driverId the Dataproc batch or job id; by default the pid
 * @param conf {@code job.spark-properties}, in their order on the line
 */
record DriverOptions(String folder, Duration idleTimeout, String master, String driverId, Map<String, String> conf) {

  static final String USAGE =
      "usage: WarmDriver --folder <driver folder> --idle-timeout <ISO-8601 duration> --master <master>"
          + " [--conf <key>=<value>]... [--driver-id <id>]";

  /** The options; empty when an option is unknown, lacks its value or a required one is missing. */
  static Optional<DriverOptions> parse(String[] args) {
    String folder = null;
    Duration idle = null;
    String master = null;
    String driverId = String.valueOf(ProcessHandle.current().pid());
    Map<String, String> conf = new LinkedHashMap<>();
    if (args.length % 2 != 0) {
      return Optional.empty();
    }
    for (int i = 0; i < args.length; i += 2) {
      String value = args[i + 1];
      switch (args[i]) {
        case "--folder" -> folder = value;
        case "--idle-timeout" -> {
          try {
            idle = Duration.parse(value);
          } catch (DateTimeParseException e) {
            return Optional.empty();
          }
        }
        case "--master" -> master = value;
        case "--driver-id" -> driverId = value;
        case "--conf" -> {
          int equals = value.indexOf('=');
          if (equals <= 0) {
            return Optional.empty();
          }
          conf.put(value.substring(0, equals), value.substring(equals + 1));
        }
        default -> {
          return Optional.empty();
        }
      }
    }
    if (folder == null || idle == null || master == null) {
      return Optional.empty();
    }
    return Optional.of(new DriverOptions(folder, idle, master, driverId, conf));
  }
}
