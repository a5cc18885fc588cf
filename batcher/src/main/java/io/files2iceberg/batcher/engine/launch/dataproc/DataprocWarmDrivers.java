package io.files2iceberg.batcher.engine.launch.dataproc;

import com.google.api.gax.grpc.GrpcCallContext;
import com.google.api.gax.rpc.ApiException;
import com.google.api.gax.rpc.StatusCode;
import io.files2iceberg.batcher.engine.launch.LaunchException;
import io.files2iceberg.core.profile.JobSettings;
import java.util.List;
import java.util.Objects;

/**
 * What the two kinds of {@link WarmDrivers} do alike: a driver is created under the id its
 * batchers chose, so that a second create of the same driver answers ALREADY_EXISTS, and the
 * driver found then is used only when it carries this folder's label; a driver Dataproc cannot
 * be asked about is {@link DriverState#UNKNOWN}. Every call is bounded by the launcher's RPC
 * timeout.
 *
 * @param <D> what Dataproc answers of a driver: a batch or a job
 */
abstract class DataprocWarmDrivers<D> implements WarmDrivers {
  final JobSettings job;
  final String projectId;
  final String region;
  private final Runnable close;
  private final DataprocLauncher.Polling polling;

  /** @param close closes the Dataproc client */
  DataprocWarmDrivers(JobSettings job, String projectId, Runnable close, DataprocLauncher.Polling polling) {
    this.job = Objects.requireNonNull(job, "job");
    this.projectId = Objects.requireNonNull(projectId, "projectId");
    this.region = job.dataprocRegion().orElseThrow();
    this.close = Objects.requireNonNull(close, "close");
    this.polling = Objects.requireNonNull(polling, "polling");
  }

  /** Creates the driver's batch or job. */
  abstract void create(String driverId, String folderLabel, List<String> args, GrpcCallContext context);

  /** What Dataproc says of the driver now. */
  abstract D get(String driverId, GrpcCallContext context);

  /** The driver's folder label; empty when it has none. */
  abstract String folderLabel(D driver);

  /** The driver's state as its batch or job state says. */
  abstract DriverState stateOf(D driver);

  /** The driver as errors name it: {@code job <id>}, {@code batch projects/.../batches/<id>}. */
  abstract String describe(String driverId);

  /** What a create asks, as its refusal names it: {@code submit the warm driver job <id> to cluster <c>}. */
  abstract String creation(String driverId);

  @Override
  public final boolean start(String driverId, String folderLabel, List<String> args) {
    try {
      create(driverId, folderLabel, args, context());
      return true;
    } catch (ApiException e) {
      StatusCode.Code code = e.getStatusCode().getCode();
      if (code != StatusCode.Code.ALREADY_EXISTS) {
        throw new LaunchException("Dataproc refused to " + creation(driverId) + ": " + code + ": " + e.getMessage(),
            DataprocLauncher.isTransient(code) || code == StatusCode.Code.RESOURCE_EXHAUSTED
                || code == StatusCode.Code.ABORTED, e);
      }
    }
    D existing;
    try {
      existing = get(driverId, context());
    } catch (ApiException e) {
      throw new LaunchException("Cannot read the warm driver " + describe(driverId) + ": "
          + e.getStatusCode().getCode() + ": " + e.getMessage(), DataprocLauncher.isTransient(e.getStatusCode().getCode()),
          e);
    }
    String theirs = folderLabel(existing);
    if (!theirs.equals(folderLabel)) {
      throw new LaunchException("Dataproc " + describe(driverId) + " exists and is not the warm driver of this folder:"
          + " label " + DataprocWarmLauncher.FOLDER_LABEL + " expected: " + folderLabel + " actual: " + theirs, false);
    }
    return false;
  }

  @Override
  public final DriverState state(String driverId) {
    D found;
    try {
      found = get(driverId, context());
    } catch (ApiException e) {
      return e.getStatusCode().getCode() == StatusCode.Code.NOT_FOUND ? DriverState.NOT_FOUND : DriverState.UNKNOWN;
    }
    return stateOf(found);
  }

  private GrpcCallContext context() {
    return GrpcCallContext.createDefault().withTimeoutDuration(polling.rpcTimeout());
  }

  @Override
  public void close() {
    close.run();
  }
}
