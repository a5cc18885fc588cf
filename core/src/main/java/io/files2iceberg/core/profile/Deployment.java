package io.files2iceberg.core.profile;

import java.util.Objects;

/**
 * What a deployment has once, whatever its tables: the ledger, the listener, how the Spark job
 * runs and where Cloud Storage is. Read once from the deployment file ({@code deployment.conf} beside the profiles, or the file
 * {@code --deployment} names) by {@link DeploymentLoader}; every value is resolved, defaults filled in.
 */
public record Deployment(
    LedgerSettings ledger, ListenerSettings listener, JobSettings job, StorageSettings storage) {

  public Deployment {
    Objects.requireNonNull(ledger, "ledger");
    Objects.requireNonNull(listener, "listener");
    Objects.requireNonNull(job, "job");
    Objects.requireNonNull(storage, "storage");
  }
}
