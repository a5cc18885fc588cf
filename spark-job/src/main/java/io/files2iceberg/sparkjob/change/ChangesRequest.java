package io.files2iceberg.sparkjob.change;

import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.MainArguments;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link ChangesMain} is asked to do, parsed once from its command line:
 *
 * <pre>{@code
 * ChangesMain --profile JSON [--deployment JSON] (--since-snapshot ID | --since ISO-INSTANT) [--result URI]
 * }</pre>
 *
 * @param profile the table's resolved profile, as {@code ProfileJson} renders it (its catalog)
 * @param deployment the deployment, as {@code DeploymentLoader.render} renders it (its job's Spark
 *     properties); the defaults when not given
 * @param start where the feed starts
 * @param resultUri where the result line is also written (a Dataproc driver's stdout is not
 *     returned to the caller)
 */
record ChangesRequest(TableProfile profile, Deployment deployment, FeedStart start, Optional<String> resultUri) {
  ChangesRequest {
    Objects.requireNonNull(profile, "profile");
    Objects.requireNonNull(deployment, "deployment");
    Objects.requireNonNull(start, "start");
    Objects.requireNonNull(resultUri, "resultUri");
  }

  String table() {
    return profile.table();
  }

  /**
   * Parses the command line.
   *
   * @throws IllegalArgumentException naming the option at fault
   */
  static ChangesRequest parse(String[] args) {
    FeedStart start = null;
    MainArguments shared = MainArguments.ofProfile(args);
    while (shared.hasOwnOption()) {
      String option = shared.nextOption();
      switch (option) {
        case "--since-snapshot" -> start = once(start, new FeedStart.AfterSnapshot(snapshotId(shared.value(option))));
        case "--since" -> start = once(start, new FeedStart.AfterTime(instant(shared.value(option))));
        default -> throw new IllegalArgumentException("unknown option " + option);
      }
    }
    TableProfile profile = shared.profile();
    if (start == null) {
      throw new IllegalArgumentException("--since-snapshot or --since is required");
    }
    return new ChangesRequest(profile, shared.deployment(), start, shared.resultUri());
  }

  private static FeedStart once(FeedStart given, FeedStart start) {
    if (given != null) {
      throw new IllegalArgumentException("--since-snapshot and --since exclude each other; give one");
    }
    return start;
  }

  private static long snapshotId(String text) {
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--since-snapshot \"" + text + "\" is not a snapshot id (a whole number)");
    }
  }

  private static Instant instant(String text) {
    try {
      return Instant.parse(text.trim());
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("--since \"" + text + "\" is not an ISO instant such as 2026-11-30T12:00:00Z");
    }
  }
}
