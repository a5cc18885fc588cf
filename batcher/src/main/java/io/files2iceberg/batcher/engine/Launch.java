package io.files2iceberg.batcher.engine;

import io.files2iceberg.batcher.engine.launch.LaunchException;
import io.files2iceberg.batcher.engine.launch.LaunchedJob;
import io.files2iceberg.batcher.engine.launch.Launcher;
import io.files2iceberg.batcher.engine.BatchEvent.BatchLaunched;
import io.files2iceberg.batcher.engine.Settlement.Ended.NotLaunched;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.IllegalTransitionException;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.manifest.BatchManifest;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts one table's jobs: writes the batch's manifest where the job reads it, marks a ledger
 * batch RUNNING (counting the attempt and the launch), then has the table's launcher start the job.
 */
record Launch(Ledger ledger, ManifestStore manifests, Launcher launcher, RunEvents events) {
  private static final Logger LOG = LoggerFactory.getLogger(Launch.class);

  /** What starting a job came to. */
  sealed interface Started {}

  /** The job runs. {@code attempts}: the batch's attempts, this launch counted. */
  record Launched(LaunchedJob job, int attempts) implements Started {
    Launched {
      Objects.requireNonNull(job, "job");
    }
  }

  /** No job runs: see {@link NotLaunched}. */
  record Refused(NotLaunched why) implements Started {}

  /** Another run settled the batch meanwhile; {@code committed}: as COMMITTED. */
  record SettledElsewhere(boolean committed) implements Started {}

  /** Starts the job on a ledger batch, holding its lease. */
  Started start(BatchManifest manifest, Duration lease) {
    String batchId = manifest.batchId();
    String uri;
    try {
      uri = manifests.write(manifest);
    } catch (RuntimeException e) {
      return new Refused(new NotLaunched(String.valueOf(e.getMessage()), true));
    }
    BatchRecord running;
    try {
      running = ledger.markRunning(batchId, lease);
    } catch (IllegalTransitionException e) {
      // Another run settled it meanwhile (the job of a batcher that died finished after all).
      LOG.info("Table {} batch {}: not launched: {}", manifest.table(), batchId, e.getMessage());
      return new SettledElsewhere(ledger.batch(batchId).map(b -> b.state() == BatchState.COMMITTED).orElse(false));
    }
    // Launches, not attempts: a revived batch's count of attempts starts again, and its next
    // launch must not reuse an earlier one's job (a Dataproc batch id names the launch).
    return launch(manifest, uri, running.launches(), running.attempts());
  }

  /** Starts the job on a batch the ledger does not hold (mode full, backfills): its only launch. */
  Started startListed(BatchManifest manifest) {
    String uri;
    try {
      uri = manifests.write(manifest);
    } catch (RuntimeException e) {
      return new Refused(new NotLaunched(String.valueOf(e.getMessage()), true));
    }
    return launch(manifest, uri, 1, 1);
  }

  private Started launch(BatchManifest manifest, String uri, int attempt, int attempts) {
    LaunchedJob job;
    try {
      job = launcher.launch(manifest, uri, attempt);
    } catch (LaunchException e) {
      LOG.error("Table {} batch {}: cannot launch attempt {}: {}", manifest.table(), manifest.batchId(), attempt,
          e.getMessage());
      return new Refused(new NotLaunched("the job could not be started: " + e.getMessage(), e.isRetryable()));
    }
    events.emit(new BatchLaunched(manifest.table(), manifest.batchId(), attempt, job.jobId(), job.log()));
    return new Launched(job, attempts);
  }
}
