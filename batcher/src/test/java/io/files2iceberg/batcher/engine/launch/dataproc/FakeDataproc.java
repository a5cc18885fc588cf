package io.files2iceberg.batcher.engine.launch.dataproc;

import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.grpc.GrpcTransportChannel;
import com.google.api.gax.rpc.FixedTransportChannelProvider;
import com.google.cloud.dataproc.v1.Batch;
import com.google.cloud.dataproc.v1.BatchControllerClient;
import com.google.cloud.dataproc.v1.BatchControllerGrpc;
import com.google.cloud.dataproc.v1.BatchControllerSettings;
import com.google.cloud.dataproc.v1.BatchOperationMetadata;
import com.google.cloud.dataproc.v1.CreateBatchRequest;
import com.google.cloud.dataproc.v1.GetBatchRequest;
import com.google.cloud.dataproc.v1.GetJobRequest;
import com.google.cloud.dataproc.v1.Job;
import com.google.cloud.dataproc.v1.JobControllerClient;
import com.google.cloud.dataproc.v1.JobControllerGrpc;
import com.google.cloud.dataproc.v1.JobControllerSettings;
import com.google.cloud.dataproc.v1.JobStatus;
import com.google.cloud.dataproc.v1.SubmitJobRequest;
import com.google.cloud.dataproc.v1.RuntimeInfo;
import com.google.longrunning.CancelOperationRequest;
import com.google.longrunning.Operation;
import com.google.protobuf.Any;
import com.google.protobuf.Empty;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A Dataproc BatchController (and the long-running Operations service batches are cancelled
 * through) on a real gRPC server on 127.0.0.1: it records every request, remembers the batches it
 * created, and answers {@code GetBatch} with scripted states. A batch that has ended (succeeded,
 * failed or was cancelled) keeps that state, as on Dataproc: the script goes on for the others.
 * Its JobController remembers the jobs submitted ({@code SubmitJob}, refused with ALREADY_EXISTS
 * for a job id it has), PENDING until {@link #endJob} ends one.
 */
final class FakeDataproc implements AutoCloseable {

  /** One scripted answer to {@code GetBatch}: a state (with its message) or an error. */
  record Step(Batch.State state, String message, Status error) {}

  static Step state(Batch.State state) {
    return new Step(state, "", null);
  }

  static Step state(Batch.State state, String message) {
    return new Step(state, message, null);
  }

  static Step error(Status status) {
    return new Step(null, "", status);
  }

  private static final Set<Batch.State> ENDED =
      EnumSet.of(Batch.State.SUCCEEDED, Batch.State.FAILED, Batch.State.CANCELLED);

  static final String OUTPUT_URI = "gs://dataproc-staging-europe-west1/google-cloud-dataproc-metainfo/run/driveroutput";

  final List<CreateBatchRequest> creates = new CopyOnWriteArrayList<>();
  final List<String> gets = new CopyOnWriteArrayList<>();
  final List<String> cancelledOperations = new CopyOnWriteArrayList<>();
  final List<SubmitJobRequest> submits = new CopyOnWriteArrayList<>();

  private final Map<String, Job> jobs = new ConcurrentHashMap<>();

  private final Map<String, Batch> batches = new ConcurrentHashMap<>();
  private final Deque<Step> script = new ArrayDeque<>();
  private final Deque<Status> createErrors = new ArrayDeque<>();
  private volatile Status cancelError;
  private volatile Consumer<CreateBatchRequest> job = request -> { };
  private int operations;

  private final Server server;
  private final ManagedChannel channel;

  FakeDataproc() throws IOException {
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(new BatchController())
        .addService(new JobController())
        .addService(operationsService())
        .build()
        .start();
    channel = ManagedChannelBuilder.forTarget("127.0.0.1:" + server.getPort()).usePlaintext().build();
  }

  /** A client of this fake, as the launcher gets one of the real service. */
  BatchControllerClient client() throws IOException {
    return BatchControllerClient.create(BatchControllerSettings.newBuilder()
        .setTransportChannelProvider(FixedTransportChannelProvider.create(GrpcTransportChannel.create(channel)))
        .setCredentialsProvider(NoCredentialsProvider.create())
        .build());
  }

  /** A client of this fake's JobController. */
  JobControllerClient jobClient() throws IOException {
    return JobControllerClient.create(JobControllerSettings.newBuilder()
        .setTransportChannelProvider(FixedTransportChannelProvider.create(GrpcTransportChannel.create(channel)))
        .setCredentialsProvider(NoCredentialsProvider.create())
        .build());
  }

  /** Ends a batch this fake created, as Dataproc does when its driver exits or is killed. */
  synchronized void endBatch(String name, Batch.State state) {
    Batch batch = batches.get(name);
    if (batch == null) {
      throw new IllegalArgumentException("no batch " + name);
    }
    batches.put(name, batch.toBuilder().setState(state).build());
  }

  /** Ends a job submitted to this fake. */
  synchronized void endJob(String jobId, JobStatus.State state) {
    Job job = jobs.get(jobId);
    if (job == null) {
      throw new IllegalArgumentException("no job " + jobId);
    }
    jobs.put(jobId, job.toBuilder().setStatus(JobStatus.newBuilder().setState(state)).build());
  }

  private synchronized Object submit(SubmitJobRequest request) {
    submits.add(request);
    String id = request.getJob().getReference().getJobId();
    if (jobs.containsKey(id)) {
      return Status.ALREADY_EXISTS.withDescription("Job " + id + " already exists");
    }
    Job job = request.getJob().toBuilder().setStatus(JobStatus.newBuilder().setState(JobStatus.State.PENDING)).build();
    jobs.put(id, job);
    return job;
  }

  private synchronized Object findJob(GetJobRequest request) {
    Job job = jobs.get(request.getJobId());
    return job != null ? job : Status.NOT_FOUND.withDescription("Job " + request.getJobId() + " not found");
  }

  private final class JobController extends JobControllerGrpc.JobControllerImplBase {
    @Override
    public void submitJob(SubmitJobRequest request, StreamObserver<Job> response) {
      answer(submit(request), response);
    }

    @Override
    public void getJob(GetJobRequest request, StreamObserver<Job> response) {
      answer(findJob(request), response);
    }
  }

  /** The answers to the next {@code GetBatch} calls, in order; the last one is repeated. */
  synchronized FakeDataproc script(Step... steps) {
    script.clear();
    script.addAll(List.of(steps));
    return this;
  }

  /** The next {@code CreateBatch} calls fail with these, in order. */
  synchronized FakeDataproc failCreates(Status... statuses) {
    createErrors.addAll(List.of(statuses));
    return this;
  }

  /** What the job of every batch created from now on does when it is created (before any poll). */
  FakeDataproc runs(Consumer<CreateBatchRequest> job) {
    this.job = job;
    return this;
  }

  FakeDataproc failCancels(Status status) {
    cancelError = status;
    return this;
  }

  private synchronized Object create(CreateBatchRequest request) {
    creates.add(request);
    if (!createErrors.isEmpty()) {
      return createErrors.removeFirst();
    }
    String name = request.getParent() + "/batches/" + request.getBatchId();
    if (batches.containsKey(name)) {
      return Status.ALREADY_EXISTS.withDescription("Batch " + name + " already exists");
    }
    String operation = request.getParent().replace("/locations/", "/regions/") + "/operations/op-" + ++operations;
    batches.put(name, request.getBatch().toBuilder().setName(name).setOperation(operation).build());
    job.accept(request);
    return Operation.newBuilder()
        .setName(operation)
        .setMetadata(Any.pack(BatchOperationMetadata.newBuilder()
            .setBatch(name)
            .setBatchUuid("uuid-" + operations)
            .setOperationType(BatchOperationMetadata.BatchOperationType.BATCH)
            .build()))
        .build();
  }

  private synchronized Object get(String name) {
    gets.add(name);
    Batch batch = batches.get(name);
    if (batch == null) {
      return Status.NOT_FOUND.withDescription("Batch " + name + " not found");
    }
    if (ENDED.contains(batch.getState())) {
      return batch;
    }
    Step step = script.size() > 1 ? script.removeFirst() : script.peekFirst();
    if (step == null) {
      return batch.toBuilder().setState(Batch.State.PENDING).build();
    }
    if (step.error() != null) {
      return step.error();
    }
    Batch.Builder answer = batch.toBuilder().setState(step.state()).setStateMessage(step.message());
    if (step.state() != Batch.State.PENDING) {
      answer.setRuntimeInfo(RuntimeInfo.newBuilder().setOutputUri(OUTPUT_URI));
    }
    Batch answered = answer.build();
    if (ENDED.contains(step.state())) {
      batches.put(name, answered);
    }
    return answered;
  }

  private final class BatchController extends BatchControllerGrpc.BatchControllerImplBase {
    @Override
    public void createBatch(CreateBatchRequest request, StreamObserver<Operation> response) {
      answer(create(request), response);
    }

    @Override
    public void getBatch(GetBatchRequest request, StreamObserver<Batch> response) {
      answer(get(request.getName()), response);
    }
  }

  /** google.longrunning.Operations, only CancelOperation (its stubs are not on the classpath). */
  private ServerServiceDefinition operationsService() {
    MethodDescriptor<CancelOperationRequest, Empty> cancel = MethodDescriptor.<CancelOperationRequest, Empty>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(MethodDescriptor.generateFullMethodName("google.longrunning.Operations", "CancelOperation"))
        .setRequestMarshaller(ProtoUtils.marshaller(CancelOperationRequest.getDefaultInstance()))
        .setResponseMarshaller(ProtoUtils.marshaller(Empty.getDefaultInstance()))
        .build();
    return ServerServiceDefinition.builder("google.longrunning.Operations")
        .addMethod(cancel, ServerCalls.asyncUnaryCall((request, response) -> {
          cancelledOperations.add(request.getName());
          answer(cancelError != null ? cancelError : Empty.getDefaultInstance(), response);
        }))
        .build();
  }

  @SuppressWarnings("unchecked")
  private static <T> void answer(Object answer, StreamObserver<T> response) {
    if (answer instanceof Status status) {
      response.onError(status.asRuntimeException());
    } else {
      response.onNext((T) answer);
      response.onCompleted();
    }
  }

  @Override
  public void close() {
    channel.shutdownNow();
    server.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
