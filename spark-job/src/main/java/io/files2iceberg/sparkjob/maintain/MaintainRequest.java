package io.files2iceberg.sparkjob.maintain;

import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.RenderedSettings;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link MaintainMain} is asked to do, parsed once from its command line:
 *
 * <pre>{@code
 * MaintainMain --profile JSON [--deployment JSON] --retention-cutoff ISO-INSTANT [--retain-last N]
 *   [--protect BATCH_ID=REASON]... [--protect-newest N]
 *   [--compact] [--sort] [--target-file-size BYTES] [--min-input-files N]
 *   [--rewrite-position-deletes] [--rewrite-manifests] [--remove-orphans-older-than ISO-INSTANT]
 *   [--dry-run] [--result URI]
 * }</pre>
 *
 * @param profile the table's resolved profile, as {@code ProfileJson} renders it (its catalog)
 * @param deployment the deployment, as {@code DeploymentLoader.render} renders it (its job's Spark
 *     properties); the defaults when not given
 * @param retentionCutoff snapshots older than this may be expired, unless protected
 * @param retainLast the most recent ancestors always kept (at least 1)
 * @param protect batch ids the ledger says may run again, with why (in the order given)
 * @param protectNewest how many of the newest other batch markers of the ancestry are kept: the
 *     COMMITTED batches the ledger still holds ({@code extract.keep-checkpoints})
 * @param compaction the rewrite of small data files, when asked for
 * @param sort the rewrite of data files in the table's order (the profile's {@code maintain.sort-by}
 *     or {@code maintain.z-order-by}, else the table's sort order), with this sizing, when asked for
 * @param positionDeletes {@code rewrite_position_delete_files}, when asked for: a partition's
 *     delete files are rewritten once it has at least the sizing's min-input-files of them
 * @param rewriteManifests {@code rewrite_manifests}, when asked for
 * @param orphansOlderThan {@code remove_orphan_files} of files last modified before this instant,
 *     when asked for; at least {@link #ORPHAN_FLOOR} before the run's start
 * @param dryRun report what would be done and change nothing
 * @param resultUri where the result line is also written (a Dataproc driver's stdout is not
 *     returned to the caller)
 */
record MaintainRequest(
    TableProfile profile,
    Deployment deployment,
    Instant retentionCutoff,
    int retainLast,
    Map<String, String> protect,
    int protectNewest,
    Optional<Compaction> compaction,
    Optional<Compaction> sort,
    Optional<Compaction> positionDeletes,
    boolean rewriteManifests,
    Optional<Instant> orphansOlderThan,
    boolean dryRun,
    Optional<String> resultUri) {

  /**
   * The youngest file orphan removal may delete: a batch's job writes its data files before it
   * commits them, and a job in flight, or one recovery relaunches, may still commit them. A day is
   * far beyond the longest job ({@code --job-timeout}, 2h by default); the batcher defaults to 3 days.
   */
  static final java.time.Duration ORPHAN_FLOOR = java.time.Duration.ofDays(1);

  /** Iceberg's binpack defaults: 512 MiB files, groups of at least 5 files. */
  static final long DEFAULT_TARGET_FILE_SIZE = 512L * 1024 * 1024;
  static final int DEFAULT_MIN_INPUT_FILES = 5;

  /** {@code rewrite_data_files} with the binpack strategy. */
  record Compaction(long targetFileSizeBytes, int minInputFiles) {
    Compaction {
      if (targetFileSizeBytes <= 0) {
        throw new IllegalArgumentException("--target-file-size must be positive, was " + targetFileSizeBytes);
      }
      if (minInputFiles < 1) {
        throw new IllegalArgumentException("--min-input-files must be at least 1, was " + minInputFiles);
      }
    }

    /** Binpack rewrites files smaller than 75% of the target (Iceberg's {@code min-file-size-bytes}). */
    long smallFileBytes() {
      return targetFileSizeBytes * 3 / 4;
    }
  }

  MaintainRequest {
    Objects.requireNonNull(profile, "profile");
    Objects.requireNonNull(deployment, "deployment");
    Objects.requireNonNull(retentionCutoff, "retentionCutoff");
    protect = Map.copyOf(new LinkedHashMap<>(protect));
    if (retainLast < 1) {
      throw new IllegalArgumentException("--retain-last must be at least 1 (the current snapshot), was " + retainLast);
    }
    if (protectNewest < 0) {
      throw new IllegalArgumentException("--protect-newest must not be negative, was " + protectNewest);
    }
    Objects.requireNonNull(sort, "sort");
    Objects.requireNonNull(positionDeletes, "positionDeletes");
    Objects.requireNonNull(orphansOlderThan, "orphansOlderThan");
  }

  /**
   * Refuses an orphan cutoff closer to {@code now} than {@link #ORPHAN_FLOOR}: the files of a
   * batch that may still commit would be deleted under it.
   */
  static Instant orphanCutoff(Instant cutoff, Instant now) {
    if (cutoff.isAfter(now.minus(ORPHAN_FLOOR))) {
      throw new IllegalArgumentException("--remove-orphans-older-than " + cutoff + " is less than "
          + ORPHAN_FLOOR.toHours() + "h before now (" + now + "): the data files of a batch still in flight, or"
          + " of one recovery relaunches, would be deleted before they are committed");
    }
    return cutoff;
  }

  String table() {
    return profile.table();
  }

  /**
   * Parses the command line.
   *
   * @throws IllegalArgumentException naming the option at fault
   */
  static MaintainRequest parse(String[] args) {
    String profileJson = null;
    String deploymentJson = null;
    Instant cutoff = null;
    int retainLast = 1;
    Map<String, String> protect = new LinkedHashMap<>();
    int protectNewest = 0;
    boolean compact = false;
    boolean sort = false;
    boolean rewritePositionDeletes = false;
    boolean rewriteManifests = false;
    Instant orphans = null;
    long targetFileSize = DEFAULT_TARGET_FILE_SIZE;
    int minInputFiles = DEFAULT_MIN_INPUT_FILES;
    boolean dryRun = false;
    String resultUri = null;
    List<String> rest = new ArrayList<>(List.of(args));
    while (!rest.isEmpty()) {
      String option = rest.remove(0);
      switch (option) {
        case "--compact" -> compact = true;
        case "--sort" -> sort = true;
        case "--rewrite-position-deletes" -> rewritePositionDeletes = true;
        case "--rewrite-manifests" -> rewriteManifests = true;
        case "--remove-orphans-older-than" -> orphans = orphanCutoff(instant(option, value(option, rest)), Instant.now());
        case "--dry-run" -> dryRun = true;
        case "--profile" -> profileJson = value(option, rest);
        case "--deployment" -> deploymentJson = value(option, rest);
        case "--retention-cutoff" -> cutoff = instant(option, value(option, rest));
        case "--retain-last" -> retainLast = whole(option, value(option, rest));
        case "--protect-newest" -> protectNewest = whole(option, value(option, rest));
        case "--target-file-size" -> targetFileSize = Long.parseLong(value(option, rest));
        case "--min-input-files" -> minInputFiles = whole(option, value(option, rest));
        case "--result" -> resultUri = value(option, rest);
        case "--protect" -> {
          String pair = value(option, rest);
          int eq = pair.indexOf('=');
          if (eq <= 0) {
            throw new IllegalArgumentException("--protect takes BATCH_ID=REASON, was \"" + pair + "\"");
          }
          protect.putIfAbsent(pair.substring(0, eq), pair.substring(eq + 1));
        }
        default -> throw new IllegalArgumentException("unknown option " + option);
      }
    }
    if (profileJson == null) {
      throw new IllegalArgumentException("--profile is required");
    }
    if (cutoff == null) {
      throw new IllegalArgumentException("--retention-cutoff is required");
    }
    Compaction sizing = new Compaction(targetFileSize, minInputFiles);
    return new MaintainRequest(RenderedSettings.profile(profileJson), RenderedSettings.deployment(deploymentJson), cutoff, retainLast, protect,
        protectNewest, compact ? Optional.of(sizing) : Optional.empty(), sort ? Optional.of(sizing) : Optional.empty(),
        rewritePositionDeletes ? Optional.of(sizing) : Optional.empty(), rewriteManifests, Optional.ofNullable(orphans), dryRun, Optional.ofNullable(resultUri));
  }

  private static String value(String option, List<String> rest) {
    if (rest.isEmpty()) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return rest.remove(0);
  }

  private static Instant instant(String option, String text) {
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(option + " \"" + text + "\" is not an ISO instant such as 2026-11-30T12:00:00Z");
    }
  }

  private static int whole(String option, String text) {
    try {
      return Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " \"" + text + "\" is not a whole number");
    }
  }
}
