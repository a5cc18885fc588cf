package io.files2iceberg.batcher.engine.launch.dataproc;

import com.google.cloud.dataproc.v1.BatchControllerClient;
import com.google.cloud.dataproc.v1.BatchControllerSettings;
import com.google.cloud.dataproc.v1.JobControllerClient;
import com.google.cloud.dataproc.v1.JobControllerSettings;
import com.google.cloud.storage.Storage;
import io.files2iceberg.batcher.engine.launch.AttemptResults;
import io.files2iceberg.batcher.engine.launch.LaunchException;
import io.files2iceberg.batcher.engine.launch.LaunchedJob;
import io.files2iceberg.batcher.engine.launch.Launcher;
import io.files2iceberg.batcher.engine.launch.SparkMainRun;
import io.files2iceberg.batcher.engine.launch.WarmJob;
import io.files2iceberg.batcher.engine.launch.dataproc.WarmDrivers.DriverState;
import io.files2iceberg.core.manifest.AttemptResult;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.WarmDriverHeartbeat;
import io.files2iceberg.core.manifest.WarmRequest;
import io.files2iceberg.core.profile.JobSettings;
import io.files2iceberg.core.profile.StorageSettings;
import io.files2iceberg.core.storage.StorageClients;
import io.files2iceberg.core.warm.WarmFolder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Dataproc launcher of {@code job.mode = warm}: hands each batch to a warm driver ({@value
 * #MAIN_CLASS}) that runs on Dataproc, a Serverless batch or a job on {@code job.dataproc-cluster}
 * ({@code job.warm.dataproc}), instead of creating a Dataproc batch per batch.
 *
 * <p>The driver's folder is {@code job.warm.folder}, else {@code <metadata.path>/warm/} of the
 * batch's table, on Cloud Storage ({@link WarmRequest}'s layout). {@link #launch} runs once the
 * batcher holds the batch's lease and has marked it RUNNING, as every launch does: it writes the
 * request object {@code requests/<batchId>-attempt<N>.request}, then starts a driver unless one is
 * alive, and the returned job watches the request as {@link DataprocLauncher}'s job watches a
 * batch, reading the same {@code AttemptResult} object beside the manifest once the request has
 * left the folder. The driver claims nothing in the ledger: the lease protocol is the per-batch
 * mode's, so exactly once holds across driver deaths.
 *
 * <p>A driver is alive while Dataproc says its batch or job is pending or running; when Dataproc
 * cannot be asked, while its {@code driver.json} heartbeat is younger than {@link
 * WarmDriverHeartbeat#STALE}. Its id is {@code f2i-warm-<8 hex digits of the folder>-<N>}, N one
 * more than the last holder's: batchers that start a driver at once create the same batch or job,
 * Dataproc refuses the second (ALREADY_EXISTS) and both use the one. A run whose driver ended
 * without writing its result ends as a killed job does: not the job's word, so the table decides
 * whether the batch was committed. {@link LaunchedJob#cancel} withdraws a waiting request or asks
 * the driver, through {@code cancel/<name>}, to cancel the run's Spark job group. Other mains
 * ({@link #launchMain}) run as Dataproc Serverless batches of their own.
 */
final class DataprocWarmLauncher implements Launcher {
  private static final Logger LOG = LoggerFactory.getLogger(DataprocWarmLauncher.class);

  public static final String MAIN_CLASS = "io.files2iceberg.sparkjob.warm.WarmDriver";
  /** The label of a driver's batch or job: which folder it serves (8 hex digits of its URI). */
  public static final String FOLDER_LABEL = "files2iceberg-warm-folder";
  /** How many ended drivers a start steps over before it gives up. */
  private static final int MAX_START_STEPS = 20;

  private final JobSettings job;
  private final WarmDrivers drivers;
  private final DataprocLauncher perBatch;
  private final Storage storage;
  private final DataprocLauncher.Polling polling;
  private final AttemptResults results;
  private final Clock clock;
  /** One start at a time per folder in this JVM; Dataproc's ALREADY_EXISTS orders the batchers. */
  private final ConcurrentHashMap<String, Object> starting = new ConcurrentHashMap<>();

  /**
   * @param drivers where drivers run; closed with this launcher
   * @param perBatch runs {@link #launchMain}; closed with this launcher
   */
  DataprocWarmLauncher(JobSettings job, WarmDrivers drivers, DataprocLauncher perBatch, Storage storage,
      DataprocLauncher.Polling polling, AttemptResults results, Clock clock) {
    this.job = Objects.requireNonNull(job, "job");
    this.drivers = Objects.requireNonNull(drivers, "drivers");
    this.perBatch = Objects.requireNonNull(perBatch, "perBatch");
    this.storage = Objects.requireNonNull(storage, "storage");
    this.polling = Objects.requireNonNull(polling, "polling");
    this.results = Objects.requireNonNull(results, "results");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * A launcher with clients of the region's endpoint and Application Default Credentials.
   *
   * @throws IllegalArgumentException naming the {@code job.*} key when the settings cannot work
   * @throws LaunchException when a client cannot be created (no credentials)
   */
  public static DataprocWarmLauncher connect(JobSettings job, String projectId, StorageSettings storage) {
    if (job.warmDataproc() == JobSettings.WarmPlace.CLUSTER && job.dataprocCluster().isEmpty()) {
      throw new IllegalArgumentException("job.dataproc-cluster: is required when job.warm.dataproc = cluster");
    }
    DataprocLauncher perBatch = DataprocLauncher.connect(job, projectId, storage);
    DataprocLauncher.Polling polling = new DataprocLauncher.Polling(DataprocLauncher.DEFAULT_POLL_INTERVAL,
        DataprocLauncher.DEFAULT_RPC_TIMEOUT, DataprocLauncher.DEFAULT_MAX_CONSECUTIVE_ERRORS);
    String endpoint = DataprocLauncher.endpoint(job.dataprocRegion().orElseThrow());
    WarmDrivers drivers;
    try {
      drivers = job.warmDataproc() == JobSettings.WarmPlace.CLUSTER
          ? new ClusterWarmDrivers(job, projectId,
              JobControllerClient.create(JobControllerSettings.newBuilder().setEndpoint(endpoint).build()), polling)
          : new ServerlessWarmDrivers(job, projectId,
              BatchControllerClient.create(BatchControllerSettings.newBuilder().setEndpoint(endpoint).build()),
              polling);
    } catch (IOException e) {
      perBatch.close();
      throw new LaunchException("cannot create the Dataproc client for " + endpoint + ": " + e.getMessage(), false, e);
    }
    return new DataprocWarmLauncher(job, drivers, perBatch, StorageClients.shared(storage), polling,
        AttemptResults.of(storage), Clock.systemUTC());
  }

  /** {@code job.warm.folder}, else {@code <metadata.path>/warm/} of the manifest's table. */
  String folderOf(BatchManifest manifest) {
    String folder = job.warmFolder().orElseGet(() -> {
      String metadata = manifest.profile().metadata().path();
      return (metadata.endsWith("/") ? metadata : metadata + "/") + "warm/";
    });
    return folder.endsWith("/") ? folder : folder + "/";
  }

  /** The label value of a folder's drivers: 8 hex digits of the SHA-256 of its URI. */
  static String folderLabel(String folder) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(folder.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest).substring(0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** The id of a folder's N-th driver: {@code f2i-warm-<folder label>-<N>}. */
  static String driverId(String folder, long sequence) {
    return "f2i-warm-" + folderLabel(folder) + "-" + sequence;
  }

  /** The driver's arguments: as the local warm driver's, with its Dataproc id. */
  List<String> driverArgs(String folder, String driverId, JobSettings settings) {
    List<String> args = new ArrayList<>(List.of("--folder", folder, "--idle-timeout",
        job.warmIdleTimeout().toString(), "--master", settings.master(), "--driver-id", driverId));
    new TreeMap<>(settings.sparkProperties()).forEach((key, value) -> {
      args.add("--conf");
      args.add(key + "=" + value);
    });
    return args;
  }

  @Override
  public LaunchedJob launch(BatchManifest manifest, String manifestUri, int attempt) {
    Objects.requireNonNull(manifest, "manifest");
    if (!manifestUri.startsWith("gs://")) {
      throw new LaunchException("Table " + manifest.table() + " batch " + manifest.batchId() + ": a warm driver on"
          + " Dataproc reads its manifest from Cloud Storage: metadata.path must be a gs:// URI, the manifest is "
          + manifestUri, false);
    }
    String location = folderOf(manifest);
    if (!location.startsWith("gs://")) {
      throw new LaunchException("Table " + manifest.table() + " batch " + manifest.batchId() + ": the warm driver's"
          + " folder must be on Cloud Storage (job.warm.folder, else metadata.path), is " + location, false);
    }
    WarmFolder folder = WarmFolder.onCloudStorage(storage, location, clock);
    WarmRequest request = WarmRequest.of(manifest, manifestUri, attempt);
    try {
      folder.write(request);
    } catch (IOException e) {
      throw new LaunchException("Cannot hand table " + request.table() + " batch " + request.batchId() + " attempt "
          + request.attempt() + " to the warm driver: " + e.getMessage(), true, e);
    }
    String driver = ensureDriver(folder, manifest.deployment().job(), manifest.table(), manifest.batchId());
    LOG.info("Table {} batch {}: attempt {} handed to the warm driver {} in {}: {}", manifest.table(),
        manifest.batchId(), attempt, driver, folder, drivers.consoleUrl(driver));
    return watch(folder, request, manifest.deployment().job(), manifestUri, attempt, driver);
  }

  /**
   * The attempt's run when its request still waits, or a live driver runs it: a batcher that died
   * left it, and its result is read when it ends.
   */
  @Override
  public Optional<LaunchedJob> reattach(BatchManifest manifest, String manifestUri, int attempt) {
    String location = folderOf(manifest);
    if (!manifestUri.startsWith("gs://") || !location.startsWith("gs://")) {
      return Optional.empty();
    }
    WarmFolder folder = WarmFolder.onCloudStorage(storage, location, clock);
    String name = WarmRequest.name(manifest.batchId(), attempt);
    WarmRequest request = WarmRequest.of(manifest, manifestUri, attempt);
    // Ordering: the request is looked for before its runner. A driver creates running/<name>
    // before it deletes the request, so a request found absent was taken (or finished) before
    // that read, and its runner, if any, is already there for the next one. Read the other way
    // round, a driver taking the request between the two reads would hide a live attempt.
    String jobId;
    if (readFolder(() -> folder.waitingRequest(name)).isPresent()) {
      jobId = "warm driver";
    } else {
      Optional<String> runner = readFolder(() -> folder.runner(name));
      if (runner.isEmpty() || !isAlive(folder, runner.get())) {
        return Optional.empty();
      }
      jobId = runner.get();
    }
    LOG.info("Table {} batch {}: attempt {} is still with the warm driver in {}", manifest.table(), manifest.batchId(),
        attempt, folder);
    return Optional.of(watch(folder, request, manifest.deployment().job(), manifestUri, attempt, jobId));
  }

  /** The job that watches the attempt's request; its result is read beside the manifest. */
  private WarmJob watch(WarmFolder folder, WarmRequest request, JobSettings settings, String manifestUri,
      int attempt, String jobId) {
    return new WarmJob(folder, new FolderDrivers(folder), results, polling.interval(), request, settings,
        AttemptResult.locationBeside(manifestUri, attempt), jobId);
  }

  /** Another main runs as a Dataproc Serverless batch of its own, as {@link DataprocLauncher} runs it. */
  @Override
  public LaunchedJob launchMain(SparkMainRun run) {
    return perBatch.launchMain(run);
  }

  /**
   * Whether the driver lives: Dataproc's word when it answers, else a heartbeat of that driver
   * younger than {@link WarmDriverHeartbeat#STALE}.
   */
  boolean isAlive(WarmFolder folder, String driverId) {
    DriverState state = drivers.state(driverId);
    return switch (state) {
      case ALIVE -> true;
      case ENDED, NOT_FOUND -> false;
      case UNKNOWN -> readFolder(folder::holder)
          .filter(holder -> holder.driverId().equals(driverId))
          .map(holder -> holder.isAlive(clock.instant()))
          .orElse(false);
    };
  }

  /**
   * The id of the folder's live driver, after starting one when none lives. A driver of other
   * settings is left to retire (it exits once its runs end); the request's watcher starts the next.
   *
   * @throws LaunchException (retryable when transient) when no driver can be started
   */
  String ensureDriver(WarmFolder folder, JobSettings settings, String table, String batchId) {
    Optional<WarmDriverHeartbeat> holder = readFolder(folder::holder);
    if (holder.isPresent() && holder.get().serving() && isAlive(folder, holder.get().driverId())) {
      return holder.get().driverId();
    }
    synchronized (starting.computeIfAbsent(folder.location(), f -> new Object())) {
      holder = readFolder(folder::holder);
      if (holder.isPresent() && holder.get().serving() && isAlive(folder, holder.get().driverId())) {
        return holder.get().driverId();
      }
      String label = folderLabel(folder.location());
      long sequence = holder.map(WarmDriverHeartbeat::sequence).orElse(0L) + 1;
      for (int step = 0; step < MAX_START_STEPS; step++, sequence++) {
        String driver = driverId(folder.location(), sequence);
        if (drivers.start(driver, label, driverArgs(folder.location(), driver, settings))) {
          LOG.info("Table {} batch {}: started the warm driver {} for {} on {} (idle timeout {}): {}", table, batchId,
              driver, folder, drivers, job.warmIdleTimeout(), drivers.consoleUrl(driver));
          return driver;
        }
        // Created before: by another batcher just now (use it), or an earlier driver that ended.
        if (drivers.state(driver) != DriverState.ENDED) {
          LOG.info("Table {} batch {}: the warm driver {} for {} was started by another batcher; using it", table,
              batchId, driver, folder);
          return driver;
        }
      }
      throw new LaunchException("Table " + table + " batch " + batchId + ": cannot start a warm driver for " + folder
          + ": the next " + MAX_START_STEPS + " driver ids have all ended", true);
    }
  }

  /** A look at the folder. */
  private interface FolderRead<T> {
    T read() throws IOException;
  }

  /**
   * What the look found.
   *
   * @throws LaunchException (retryable) when the folder cannot be read
   */
  private static <T> T readFolder(FolderRead<T> look) {
    try {
      return look.read();
    } catch (IOException e) {
      String message = e.getMessage() == null ? e.toString() : e.getMessage();
      throw new LaunchException(Character.toUpperCase(message.charAt(0)) + message.substring(1), true, e);
    }
  }

  @Override
  public void close() {
    try {
      drivers.close();
    } finally {
      perBatch.close();
    }
  }

  @Override
  public String toString() {
    return "warm driver on " + drivers;
  }

  /**
   * The drivers of one folder, as its warm jobs ask after them: a driver is a Dataproc batch or
   * job, named by its id, alive as {@link #isAlive} decides.
   */
  private final class FolderDrivers implements WarmJob.Drivers {
    private final WarmFolder folder;

    FolderDrivers(WarmFolder folder) {
      this.folder = folder;
    }

    @Override
    public boolean isAlive(String driverId) {
      return DataprocWarmLauncher.this.isAlive(folder, driverId);
    }

    @Override
    public String name(String driverId) {
      return driverId;
    }

    @Override
    public void ensureDriver(JobSettings settings, String table, String batchId) {
      DataprocWarmLauncher.this.ensureDriver(folder, settings, table, batchId);
    }

    /** The driver's console page, when the job id names a driver (not a request still waiting). */
    @Override
    public Optional<String> log(String jobId) {
      return jobId.startsWith("f2i-warm-") ? Optional.of(drivers.consoleUrl(jobId)) : Optional.empty();
    }
  }
}
