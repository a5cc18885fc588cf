package io.files2iceberg.sparkjob.undo;

import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.TableProfile;
import java.util.Optional;

/** What the command lines of the undo mains share: the table's profile, the deployment, a dry run, where the result goes. */
sealed interface UndoRequest permits RollbackRequest, DropPartitionRequest {
  TableProfile profile();

  Deployment deployment();

  boolean dryRun();

  Optional<String> resultUri();

  default String table() {
    return profile().table();
  }
}
