package io.files2iceberg.sparkjob.undo;

import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.MainArguments;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link RollbackMain} is asked to do, parsed once from its command line:
 *
 * <pre>{@code
 * RollbackMain --profile JSON [--deployment JSON] --table T (--to-snapshot S | --to-tag TAG)
 *   [--expect-current C] [--dry-run] [--result URI]
 * }</pre>
 *
 * @param profile the table's resolved profile, as {@code ProfileJson} renders it (its catalog, its table)
 * @param deployment the deployment (its job's Spark properties); the defaults when not given
 * @param toSnapshot the snapshot to roll back to; or
 * @param toTag the tag naming it ({@code files2iceberg-before-<batch id>})
 * @param expectCurrent the current snapshot the plan was made on (the batcher's dry run): the
 *     rollback is applied only on top of it
 * @param dryRun report the plan and change nothing
 * @param resultUri where the result line is also written
 */
record RollbackRequest(TableProfile profile, Deployment deployment, Optional<Long> toSnapshot, Optional<String> toTag,
    Optional<Long> expectCurrent, boolean dryRun, Optional<String> resultUri) implements UndoRequest {

  RollbackRequest {
    Objects.requireNonNull(profile, "profile");
    Objects.requireNonNull(deployment, "deployment");
    if (toSnapshot.isPresent() == toTag.isPresent()) {
      throw new IllegalArgumentException("exactly one of --to-snapshot and --to-tag is required");
    }
  }

  /** {@code snapshot S} or {@code tag TAG}, for messages. */
  String target() {
    return toTag.map(tag -> "tag " + tag).orElseGet(() -> "snapshot " + toSnapshot.get());
  }

  /**
   * Parses the command line.
   *
   * @throws IllegalArgumentException naming the option at fault
   */
  static RollbackRequest parse(String[] args) {
    Long toSnapshot = null;
    String toTag = null;
    Long expectCurrent = null;
    MainArguments shared = MainArguments.withTable(args);
    while (shared.hasOwnOption()) {
      String option = shared.nextOption();
      switch (option) {
        case "--to-snapshot" -> toSnapshot = snapshotId(option, shared.value(option));
        case "--to-tag" -> toTag = shared.value(option);
        case "--expect-current" -> expectCurrent = snapshotId(option, shared.value(option));
        default -> throw new IllegalArgumentException("unknown option " + option);
      }
    }
    return new RollbackRequest(shared.profile(), shared.deployment(), Optional.ofNullable(toSnapshot),
        Optional.ofNullable(toTag), Optional.ofNullable(expectCurrent), shared.dryRun(), shared.resultUri());
  }

  /** A snapshot id: a whole number, as Iceberg's ids are (they may be negative). */
  static long snapshotId(String option, String text) {
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " \"" + text + "\" is not a snapshot id (a whole number)");
    }
  }
}
