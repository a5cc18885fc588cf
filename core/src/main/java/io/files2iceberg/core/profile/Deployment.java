package io.files2iceberg.core.profile;

import java.util.Objects;

/**
 * What a deployment has once, whatever its tables: the ledger, the listener, how the Spark job
 * runs, where Cloud Storage is and where change events go. Read once from the deployment file ({@code deployment.conf} beside the profiles, or the file
 * {@code --deployment} names) by {@link DeploymentLoader}; every value is resolved, defaults filled in.
 */
public record Deployment(
    LedgerSettings ledger, ListenerSettings listener, JobSettings job, StorageSettings storage, EventSettings events) {

  public Deployment {
    Objects.requireNonNull(ledger, "ledger");
    Objects.requireNonNull(listener, "listener");
    Objects.requireNonNull(job, "job");
    Objects.requireNonNull(storage, "storage");
    Objects.requireNonNull(events, "events");
  }

  /** A deployment whose change events go to the home's file. */
  public Deployment(LedgerSettings ledger, ListenerSettings listener, JobSettings job, StorageSettings storage) {
    this(ledger, listener, job, storage, EventSettings.HOME_FILE);
  }
}
