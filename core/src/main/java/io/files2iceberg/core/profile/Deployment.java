package io.files2iceberg.core.profile;

import java.util.Objects;

/**
 * What a deployment has once, whatever its tables: the ledger, the listener and how the Spark job
 * runs. Read once from the deployment file ({@code deployment.conf} beside the profiles, or the file
 * {@code --deployment} names) by {@link DeploymentLoader}; every value is resolved, defaults filled in.
 */
public record Deployment(LedgerSettings ledger, ListenerSettings listener, JobSettings job) {

  public Deployment {
    Objects.requireNonNull(ledger, "ledger");
    Objects.requireNonNull(listener, "listener");
    Objects.requireNonNull(job, "job");
  }
}
