package io.files2iceberg.batcher.engine.launch;

import io.files2iceberg.core.manifest.AttemptResult;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.WarmRequest;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.JobSettings;
import io.files2iceberg.core.warm.WarmFolder;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local launcher of {@code job.mode = warm}: hands each batch to the deployment's warm driver
 * ({@value #MAIN_CLASS}, a child JVM started as {@link LocalSparkLauncher} starts a job, with the
 * same java, options and classpath) instead of starting a JVM per batch.
 *
 * <p>{@link #launch} writes the batch's {@link WarmRequest} into {@code <home>/warm/requests/} and
 * starts a driver when none is alive (under {@code start.lock}, so that batchers starting at once
 * start one). The batcher already holds the batch's lease and has it RUNNING: the driver claims
 * nothing in the ledger, and the lease protocol is the per-batch mode's. The run's result is the
 * same {@code AttemptResult} beside the manifest. A run whose driver died before writing it (its
 * request left in {@code running/} under a pid that is gone) ends as a killed job does: not the
 * job's word, so the table decides whether the batch was committed. {@link LaunchedJob#cancel}
 * cancels the run's Spark job group, not the driver, whose other batches go on. The driver's
 * output, every batch's included, goes to {@code <home>/warm/driver.log}. {@link #prepare} starts
 * the driver ahead of the first batch, so that its Spark context is warm by then.
 */
public final class WarmLocalLauncher implements Launcher {
  private static final Logger LOG = LoggerFactory.getLogger(WarmLocalLauncher.class);

  static final String MAIN_CLASS = "io.files2iceberg.sparkjob.warm.WarmDriver";
  /** How often a run's state is read from the folder. */
  private static final Duration POLL = Duration.ofMillis(50);
  /** How long a started driver may take to name itself in {@code driver.pid}. */
  private static final Duration DRIVER_START = Duration.ofSeconds(60);
  /** One start at a time per folder in this JVM; {@code start.lock} orders the JVMs. */
  private static final ConcurrentHashMap<Path, Object> STARTING = new ConcurrentHashMap<>();

  private final LocalSparkLauncher perBatch;
  private final Path folder;
  private final WarmFolder requests;
  private final JobSettings job;
  private final WarmJob.Drivers drivers = new LocalDrivers();

  /**
   * @param perBatch the job's build, whose command starts the driver; it also runs {@link #launchMain}
   * @param folder the driver's folder, one per deployment ({@link #folder(Home)})
   * @param job the deployment's {@code job} section: the drivers' {@code job.warm.idle-timeout},
   *     and their master and Spark properties when {@link #prepare} starts one (a launch starts it
   *     with its manifest's, the same deployment's)
   */
  public WarmLocalLauncher(LocalSparkLauncher perBatch, Path folder, JobSettings job) {
    this.perBatch = Objects.requireNonNull(perBatch, "perBatch");
    this.folder = folder.toAbsolutePath().normalize();
    this.requests = WarmFolder.local(this.folder);
    this.job = Objects.requireNonNull(job, "job");
  }

  /** {@code <home>/warm}: the warm driver's folder of the deployment in that home. */
  public static Path folder(Home home) {
    return home.root().resolve("warm");
  }

  /** The driver's folder. */
  public Path driverFolder() {
    return folder;
  }

  /**
   * The command that starts a driver with the master and Spark properties of these settings (a
   * manifest's) and this launcher's {@code job.warm.idle-timeout}.
   */
  List<String> driverCommand(JobSettings settings) {
    List<String> command = new ArrayList<>(perBatch.commandFor(MAIN_CLASS));
    command.addAll(command.size() - 1, perBatch.executorOptions(settings));
    command.addAll(List.of("--folder", folder.toString(), "--idle-timeout", job.warmIdleTimeout().toString(),
        "--master", settings.master()));
    new java.util.TreeMap<>(settings.sparkProperties()).forEach((key, value) -> {
      command.add("--conf");
      command.add(key + "=" + value);
    });
    return command;
  }

  /**
   * Starts the driver now unless one is alive, so that the first batch finds its Spark context
   * warm ({@code local}, {@code demo}).
   */
  @Override
  public void prepare() {
    ensureDriver(job, PREPARED, PREPARED);
  }

  /** The table and batch of a driver started ahead of any batch, for the log. */
  private static final String PREPARED = "";

  @Override
  public LaunchedJob launch(BatchManifest manifest, String manifestUri, int attempt) {
    Objects.requireNonNull(manifest, "manifest");
    WarmRequest request = WarmRequest.of(manifest, manifestUri, attempt);
    try {
      requests.write(request);
    } catch (IOException e) {
      throw new LaunchException("Cannot hand table " + manifest.table() + " batch " + manifest.batchId() + " attempt "
          + attempt + " to the warm driver in " + folder + ": " + e, true, e);
    }
    long pid = ensureDriver(manifest.deployment().job(), manifest.table(), manifest.batchId());
    LOG.info("Table {} batch {}: attempt {} handed to the warm driver (pid {}), log {}", manifest.table(),
        manifest.batchId(), attempt, pid, folder.resolve(WarmRequest.DRIVER_LOG));
    return watch(request, manifest, manifestUri, attempt, "warm driver pid " + pid);
  }

  /**
   * The attempt's run when its request still waits, or a live driver runs it: a batcher that died
   * left it, and its result is read when it ends.
   */
  @Override
  public Optional<LaunchedJob> reattach(BatchManifest manifest, String manifestUri, int attempt) {
    String name = WarmRequest.name(manifest.batchId(), attempt);
    WarmRequest request;
    String jobId = "warm driver";
    Optional<WarmRequest> waiting;
    try {
      waiting = requests.waitingRequest(name);
    } catch (IOException e) {
      return Optional.empty();
    }
    if (waiting.isPresent()) {
      request = waiting.get();
    } else {
      Optional<String> runner;
      try {
        runner = requests.runner(name);
      } catch (IOException e) {
        throw new LaunchException("Cannot read " + folder.resolve(WarmRequest.RUNNING) + ": " + e, true, e);
      }
      if (runner.isEmpty() || !isDriver(runner.get())) {
        return Optional.empty();
      }
      jobId = "warm driver pid " + runner.get();
      request = WarmRequest.of(manifest, manifestUri, attempt);
    }
    LOG.info("Table {} batch {}: attempt {} is still with the warm driver in {}", manifest.table(), manifest.batchId(),
        attempt, folder);
    return Optional.of(watch(request, manifest, manifestUri, attempt, jobId));
  }

  /** The job that watches the attempt's request; its result is read beside the manifest. */
  private WarmJob watch(WarmRequest request, BatchManifest manifest, String manifestUri, int attempt, String jobId) {
    return new WarmJob(requests, drivers, LocalSparkLauncher.resultsOf(manifest), POLL, request, manifest.deployment().job(),
        AttemptResult.locationBeside(manifestUri, attempt), jobId);
  }

  /** Another main runs in a JVM of its own, as {@link LocalSparkLauncher#launchMain} runs it. */
  @Override
  public LaunchedJob launchMain(SparkMainRun run) {
    return perBatch.launchMain(run);
  }

  private Optional<String> log() {
    return Optional.of(folder.resolve(WarmRequest.DRIVER_LOG).toString());
  }

  /** The live driver of this folder: its pid and fingerprint, when {@code driver.pid} names a live one. */
  record Driver(long pid, String fingerprint) {}

  /** The pid of this folder's live driver; empty when none is alive. */
  public Optional<Long> driverPid() {
    return liveDriver().map(Driver::pid);
  }

  Optional<Driver> liveDriver() {
    List<String> lines;
    try {
      lines = Files.readAllLines(folder.resolve(WarmRequest.DRIVER_PID));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      LOG.warn("Cannot read {}: {}", folder.resolve(WarmRequest.DRIVER_PID), e.toString());
      return Optional.empty();
    }
    if (lines.size() < 2) {
      return Optional.empty();
    }
    long pid;
    try {
      pid = Long.parseLong(lines.get(0).strip());
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
    return isDriver(pid) ? Optional.of(new Driver(pid, lines.get(1).strip())) : Optional.empty();
  }

  /** Whether the driver id is the pid of a live warm driver of this folder; an id that is no pid is not. */
  private boolean isDriver(String driverId) {
    try {
      return isDriver(Long.parseLong(driverId));
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** Whether the process is alive and is a warm driver of this folder (a reused pid is not). */
  boolean isDriver(long pid) {
    return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).map(handle -> {
      List<String> args = LocalSparkLauncher.arguments(handle);
      int main = args.indexOf(MAIN_CLASS);
      int option = args.indexOf("--folder");
      return main >= 0 && option > main && option + 1 < args.size() && args.get(option + 1).equals(folder.toString());
    }).orElse(false);
  }

  /**
   * A live driver's pid, after starting one when none is alive. A driver of other settings is left
   * to retire (it exits once its runs end); the request's watcher starts the next one then.
   *
   * @throws LaunchException (retryable) when no driver can be started
   */
  long ensureDriver(JobSettings settings, String table, String batchId) {
    Optional<Driver> live = liveDriver();
    if (live.isPresent()) {
      return live.get().pid();
    }
    synchronized (STARTING.computeIfAbsent(folder, f -> new Object())) {
      try {
        Files.createDirectories(folder);
        try (FileChannel channel = FileChannel.open(folder.resolve(WarmRequest.START_LOCK), StandardOpenOption.CREATE,
            StandardOpenOption.WRITE); FileLock ignored = channel.lock()) {
          live = liveDriver();
          if (live.isPresent()) {
            return live.get().pid();
          }
          return startDriver(settings, table, batchId);
        }
      } catch (IOException e) {
        throw new LaunchException("Cannot start the warm driver in " + folder + " for table " + table + " batch "
            + batchId + ": " + e, true, e);
      }
    }
  }

  private long startDriver(JobSettings settings, String table, String batchId) throws IOException {
    Process process = perBatch.startProcess(driverCommand(settings), folder.resolve(WarmRequest.DRIVER_LOG));
    LOG.info("{}started a warm driver as process {} in {} (idle timeout {})",
        table.equals(PREPARED) ? "" : "Table " + table + " batch " + batchId + ": ", process.pid(), folder,
        job.warmIdleTimeout());
    long deadline = System.nanoTime() + DRIVER_START.toNanos();
    while (System.nanoTime() < deadline) {
      Optional<Driver> live = liveDriver();
      if (live.isPresent()) {
        return live.get().pid();
      }
      if (!process.isAlive()) {
        throw new LaunchException("The warm driver in " + folder + " exited with " + process.exitValue()
            + " before taking its folder; see " + folder.resolve(WarmRequest.DRIVER_LOG), true);
      }
      sleep();
    }
    process.destroyForcibly();
    throw new LaunchException("The warm driver in " + folder + " did not start within " + DRIVER_START + "; see "
        + folder.resolve(WarmRequest.DRIVER_LOG), true);
  }

  private static void sleep() {
    try {
      TimeUnit.MILLISECONDS.sleep(POLL.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LaunchException("interrupted while starting the warm driver", true, e);
    }
  }

  @Override
  public String toString() {
    return "warm driver in " + folder;
  }

  /**
   * The drivers of this folder, as its warm jobs ask after them: a driver is a live process of
   * this folder, named by its pid.
   */
  private final class LocalDrivers implements WarmJob.Drivers {
    @Override
    public boolean isAlive(String driverId) {
      return WarmLocalLauncher.this.isDriver(driverId);
    }

    @Override
    public String name(String driverId) {
      return "(pid " + driverId + ")";
    }

    @Override
    public void ensureDriver(JobSettings settings, String table, String batchId) {
      WarmLocalLauncher.this.ensureDriver(settings, table, batchId);
    }

    /** Every run's output goes to the one {@code driver.log}. */
    @Override
    public Optional<String> log(String jobId) {
      return WarmLocalLauncher.this.log();
    }
  }
}
