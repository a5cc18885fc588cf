package io.files2iceberg.batcher.engine.launch.dataproc;

import com.google.api.gax.grpc.GrpcCallContext;
import com.google.api.gax.rpc.ApiException;
import com.google.api.gax.rpc.StatusCode;
import com.google.cloud.dataproc.v1.Batch;
import com.google.cloud.dataproc.v1.BatchControllerClient;
import com.google.cloud.dataproc.v1.GetBatchRequest;
import io.files2iceberg.batcher.engine.launch.AttemptResults;
import io.files2iceberg.batcher.engine.launch.JobResult;
import io.files2iceberg.batcher.engine.launch.LaunchException;
import io.files2iceberg.batcher.engine.launch.LaunchedJob;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Dataproc Serverless batch, watched by polling {@code GetBatch} until it reaches SUCCEEDED,
 * FAILED or CANCELLED; then its result is the job's result object when there is one, else what
 * {@link DataprocOutcome} makes of the state.
 */
final class DataprocJob implements LaunchedJob {
  private static final Logger LOG = LoggerFactory.getLogger(DataprocJob.class);

  private final BatchControllerClient client;
  private final DataprocLauncher.Polling polling;
  private final String table;
  private final String batchId;
  private final String manifestUri;
  private final String batchName;
  private final String jobId;
  private final String log;
  private final Optional<String> resultLocation;
  private final AttemptResults results;

  /** The batch's long-running operation, which cancelling cancels; blank until known. */
  private volatile String operationName;
  private volatile JobResult result;
  /** Transient errors since the last successful poll; guarded by {@code this}. */
  private int consecutiveErrors;
  private boolean warnedUnknownState;

  DataprocJob(BatchControllerClient client, DataprocLauncher.Polling polling, String table, String batchId,
      String manifestUri, String batchName, String jobId, String operationName, String log,
      Optional<String> resultLocation, AttemptResults results) {
    this.resultLocation = resultLocation;
    this.results = results;
    this.client = client;
    this.polling = polling;
    this.table = table;
    this.batchId = batchId;
    this.manifestUri = manifestUri;
    this.batchName = batchName;
    this.jobId = jobId;
    this.operationName = operationName;
    this.log = log;
  }

  @Override
  public String jobId() {
    return jobId;
  }

  @Override
  public synchronized Optional<JobResult> await(Duration timeout) throws InterruptedException {
    if (result != null) {
      return Optional.of(result);
    }
    long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
    while (true) {
      Optional<Batch> batch = poll();
      if (batch.isPresent()) {
        Optional<JobResult> ended = DataprocOutcome.of(batch.get(), jobId, log);
        if (ended.isPresent()) {
          result = results.writtenOr(resultLocation, ended.get());
          LOG.info("Table {} batch {} ({}): Dataproc batch {} ended {}: {}", table, batchId, manifestUri, jobId,
              batch.get().getState(), result.exit());
          return Optional.of(result);
        }
        warnIfUnknown(batch.get());
      }
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        return Optional.empty();
      }
      TimeUnit.NANOSECONDS.sleep(Math.min(remaining, polling.interval().toNanos()));
    }
  }

  /**
   * Reads the batch once. A transient error (UNAVAILABLE, DEADLINE_EXCEEDED) reads as "no news" up
   * to {@link DataprocLauncher.Polling#maxConsecutiveErrors} times in a row; the count starts again
   * after every successful read.
   */
  private Optional<Batch> poll() {
    try {
      Batch batch = client.getBatchCallable().call(GetBatchRequest.newBuilder().setName(batchName).build(),
          GrpcCallContext.createDefault().withTimeoutDuration(polling.rpcTimeout()));
      consecutiveErrors = 0;
      if (operationName.isEmpty()) {
        operationName = batch.getOperation();
      }
      return Optional.of(batch);
    } catch (ApiException e) {
      StatusCode.Code code = e.getStatusCode().getCode();
      if (!DataprocLauncher.isTransient(code)) {
        throw new LaunchException("Table " + table + " batch " + batchId + ": cannot read Dataproc batch " + batchName
            + ": " + code + ": " + e.getMessage(), false, e);
      }
      consecutiveErrors++;
      if (consecutiveErrors > polling.maxConsecutiveErrors()) {
        consecutiveErrors = 0;
        throw new LaunchException("Table " + table + " batch " + batchId + ": cannot read Dataproc batch " + batchName
            + ": " + polling.maxConsecutiveErrors() + " transient errors in a row, the last " + code + ": "
            + e.getMessage(), true, e);
      }
      LOG.warn("Table {} batch {} ({}): reading Dataproc batch {} failed ({} of {} in a row), trying again: {}",
          table, batchId, manifestUri, jobId, consecutiveErrors, polling.maxConsecutiveErrors(), e.toString());
      return Optional.empty();
    }
  }

  private void warnIfUnknown(Batch batch) {
    switch (batch.getState()) {
      case STATE_UNSPECIFIED, UNRECOGNIZED -> {
        if (!warnedUnknownState) {
          warnedUnknownState = true;
          LOG.warn("Table {} batch {} ({}): Dataproc batch {} is in state {} ({}); still watching it", table, batchId,
              manifestUri, jobId, batch.getState(), batch.getStateValue());
        }
      }
      default -> LOG.debug("Table {} batch {}: Dataproc batch {} is {}", table, batchId, jobId, batch.getState());
    }
  }

  /**
   * Cancels the batch's operation (Dataproc's way to cancel a batch; the batch then passes through
   * CANCELLING to CANCELLED, which {@link #await} reports). Nothing happens once the batch has
   * ended. Best effort, as a kill is: when Dataproc refuses, the error is logged with the console
   * URL and the batch may run on; the batcher treats a run it stopped as one that may have
   * committed.
   */
  @Override
  public void cancel() {
    if (result != null) {
      return;
    }
    String operation = operationName;
    try {
      if (operation.isEmpty()) {
        operation = client.getBatch(batchName).getOperation();
        operationName = operation;
      }
      client.getOperationsClient().cancelOperation(operation);
      LOG.info("Table {} batch {} ({}): cancelled Dataproc batch {} (operation {})", table, batchId, manifestUri,
          jobId, operation);
    } catch (ApiException e) {
      StatusCode.Code code = e.getStatusCode().getCode();
      if (code == StatusCode.Code.FAILED_PRECONDITION || code == StatusCode.Code.NOT_FOUND) {
        LOG.info("Table {} batch {} ({}): Dataproc batch {} has ended already, nothing to cancel: {}", table, batchId,
            manifestUri, jobId, e.getMessage());
        return;
      }
      LOG.error("Table {} batch {} ({}): cannot cancel Dataproc batch {}, it may still be running ({}): {}: {}", table,
          batchId, manifestUri, jobId, log, code, e.getMessage());
    }
  }

  @Override
  public String toString() {
    return "Dataproc batch " + batchName;
  }
}
