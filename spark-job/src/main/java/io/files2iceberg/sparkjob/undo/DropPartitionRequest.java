package io.files2iceberg.sparkjob.undo;

import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.MainArguments;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link DropPartitionMain} is asked to do, parsed once from its command line:
 *
 * <pre>{@code
 * DropPartitionMain --profile JSON [--deployment JSON] --table T --partition P --change-id ID
 *   [--dry-run] [--result URI]
 * }</pre>
 *
 * @param profile the table's resolved profile (its catalog, its partition column and type, its renames)
 * @param partition the partition token as the ledger stores it ({@code 2026-12-01} for a date partition)
 * @param changeId the id of this change, written to the commit's summary and looked up before it
 *     is made again
 */
record DropPartitionRequest(TableProfile profile, Deployment deployment, String partition, String changeId,
    boolean dryRun, Optional<String> resultUri) implements UndoRequest {

  DropPartitionRequest {
    Objects.requireNonNull(profile, "profile");
    Objects.requireNonNull(deployment, "deployment");
    if (partition == null || partition.isEmpty()) {
      throw new IllegalArgumentException("--partition is required");
    }
    if (changeId == null || changeId.isBlank()) {
      throw new IllegalArgumentException("--change-id is required");
    }
  }

  /**
   * Parses the command line.
   *
   * @throws IllegalArgumentException naming the option at fault
   */
  static DropPartitionRequest parse(String[] args) {
    String partition = null;
    String changeId = null;
    MainArguments shared = MainArguments.withTable(args);
    while (shared.hasOwnOption()) {
      String option = shared.nextOption();
      switch (option) {
        case "--partition" -> partition = shared.value(option);
        case "--change-id" -> changeId = shared.value(option);
        default -> throw new IllegalArgumentException("unknown option " + option);
      }
    }
    return new DropPartitionRequest(shared.profile(), shared.deployment(), partition, changeId, shared.dryRun(),
        shared.resultUri());
  }
}
