package io.files2iceberg.sparkjob.warm;

import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.WarmDriverHeartbeat;
import io.files2iceberg.core.manifest.WarmRequest;
import io.files2iceberg.core.profile.StorageSettings;
import io.files2iceberg.core.storage.StorageClients;
import io.files2iceberg.core.warm.WarmFolder;
import io.files2iceberg.sparkjob.JobLogging;
import io.files2iceberg.sparkjob.BatchJob;
import io.files2iceberg.sparkjob.catalog.CatalogConf;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A warm driver ({@code job.mode = warm}): one long-running Spark application that runs the batches
 * the batchers of a deployment hand it, each exactly as {@link BatchJob} runs it on its own
 * ({@code --manifest <uri> --attempt <N>}, the same {@code AttemptResult} beside the manifest), in
 * a Spark context that stays warm between batches.
 *
 * <pre>{@code
 * WarmDriver --folder <driver folder> --idle-timeout <ISO-8601 duration> --master <job.master>
 *   [--conf <key>=<value>]...   (job.spark-properties)
 *   [--driver-id <id>]          (the Dataproc batch or job id; by default the pid)
 * }</pre>
 *
 * <p>The folder's layout is {@link WarmRequest}'s: a local folder or a {@code gs://} one, whose
 * protocol is {@link WarmFolder}'s. One driver per folder lives: it holds the folder (locally {@code driver.lock},
 * on Cloud Storage {@code driver.json}, renewed every {@link WarmDriverHeartbeat#INTERVAL}; a
 * second driver started beside it exits at once, and a driver that finds the folder taken over
 * takes no more requests). It takes a waiting request in one step no second driver can also
 * take (a rename locally, a create-if-absent of {@code running/<name>} on Cloud Storage), runs it on a thread of its own in a session of the
 * warm context with the profile's catalog, inside the Spark job group {@link
 * WarmRequest#jobGroup}, writes its result and deletes the running request. A {@code cancel/}
 * file cancels that job group. It never claims anything in the ledger: a batcher writes a request
 * only for a batch whose lease it holds and which it has marked RUNNING, and watches it as it
 * watches a job of its own; a driver that dies leaves its running requests without results, which
 * the batcher reports as a job that died (the table decides, as after any crash).
 *
 * <p>The Spark context starts at once, with {@code --master} (unless {@code -Dspark.master} says)
 * and the {@code --conf} properties, so that the first batch finds it warm. It takes only
 * requests of its own settings ({@link WarmRequest#fingerprint}); on another's, it takes no more
 * requests and exits once its runs have
 * ended, so that a batcher starts a driver with the new settings. It exits after {@code
 * --idle-timeout} without a run, and at once when its folder is deleted.
 *
 * <p>It looks at its folder every {@link WarmFolder#poll} while it has work (a run, a request
 * taken, a cancel seen); idle, it waits twice as long after each look that found nothing, up to
 * {@link WarmFolder#idlePoll} ({@link PollSchedule}), yet still renews its hold and exits on time.
 */
public final class WarmDriver {
  private static final Logger LOG = LoggerFactory.getLogger(WarmDriver.class);
  /** How often a cancelled run's job group is cancelled again, for its jobs submitted since. */
  private static final Duration RECANCEL = Duration.ofSeconds(1);

  private final WarmFolder folder;
  private final Duration idleTimeout;
  private final String master;
  private final Map<String, String> sparkProperties;
  private final String fingerprint;
  private final String driverId;
  private final Map<String, Run> runs = new ConcurrentHashMap<>();
  private final Map<Map<String, String>, SparkSession> sessions = new ConcurrentHashMap<>();
  private final AtomicInteger threads = new AtomicInteger();
  private final ExecutorService executor = Executors.newCachedThreadPool(task -> {
    Thread thread = new Thread(task, "warm-batch-" + threads.incrementAndGet());
    thread.setDaemon(true);
    return thread;
  });
  private final Clock clock;
  private final Sleeper sleeper;
  private volatile SparkSession root;
  private volatile Instant lastActive;

  /** Waits between two looks at the folder: {@link Thread#sleep}, or a test's simulated time. */
  @FunctionalInterface
  interface Sleeper {
    void sleep(Duration duration);
  }

  /** A request being run, and whether a batcher asked to cancel it. */
  private static final class Run {
    final WarmRequest request;
    volatile boolean cancelled;
    Instant nextCancel = Instant.MIN;

    Run(WarmRequest request) {
      this.request = request;
    }
  }

  WarmDriver(WarmFolder folder, String driverId, Duration idleTimeout, String master,
      Map<String, String> sparkProperties) {
    this(folder, driverId, idleTimeout, master, sparkProperties, Clock.systemUTC(), WarmDriver::sleep);
  }

  WarmDriver(WarmFolder folder, String driverId, Duration idleTimeout, String master,
      Map<String, String> sparkProperties, Clock clock, Sleeper sleeper) {
    this.clock = clock;
    this.sleeper = sleeper;
    this.lastActive = clock.instant();
    this.folder = folder;
    this.driverId = driverId;
    this.idleTimeout = idleTimeout;
    this.master = master;
    this.sparkProperties = Map.copyOf(sparkProperties);
    this.fingerprint = WarmRequest.fingerprint(master, sparkProperties);
  }

  public static void main(String[] args) {
    Optional<WarmDriver> driver = parse(args);
    if (driver.isEmpty()) {
      System.err.println(DriverOptions.USAGE);
      System.exit(2);
    }
    // Spark's logging (its defaults: INFO to the console, the driver's log) before the first
    // line: the context starts only with the first request.
    new org.apache.spark.SparkConf().initializeLogIfNecessary(false);
    JobLogging.configure();
    int code;
    try {
      code = driver.get().serve();
    } catch (Exception e) { // starting the context runs a Spark job: its SparkException is checked, thrown undeclared
      LOG.error("Warm driver in {} failed", driver.get().folder, e);
      code = 1;
    } finally {
      SparkSession.getDefaultSession().foreach(session -> {
        session.stop();
        return null;
      });
    }
    System.exit(code);
  }

  /** The driver its command line describes; empty when the line is not {@link DriverOptions#USAGE}'s. */
  static Optional<WarmDriver> parse(String[] args) {
    return DriverOptions.parse(args).map(options -> new WarmDriver(WarmFolder.at(options.folder(),
        () -> StorageClients.shared(StorageSettings.ofConnector(key -> options.conf().get("spark.hadoop." + key))),
        Clock.systemUTC()), options.driverId(), options.idleTimeout(), options.master(), options.conf()));
  }

  /** Serves requests until idle, retired or its folder is gone; 0 also when another driver lives. */
  int serve() throws IOException {
    folder.create();
    Optional<WarmFolder.Hold> held = folder.hold(driverId, fingerprint);
    if (held.isEmpty()) {
      LOG.info("Warm driver {}: another driver holds {}; exiting", driverId, folder);
      return 0;
    }
    try (WarmFolder.Hold hold = held.get()) {
      LOG.info("Warm driver {} serving {} (idle timeout {}, settings {})", driverId, folder, idleTimeout, fingerprint);
      startContext();
      return loop(hold);
    }
  }

  /** The warm context, with one small job run so that the first batch finds the scheduler warm too. */
  private void startContext() {
    SparkSession.Builder builder = SparkSession.builder().appName("files2iceberg warm driver");
    if (!new org.apache.spark.SparkConf().contains("spark.master")) {
      builder.master(master);
    }
    CatalogConf.contextProperties(sparkProperties).forEach(builder::config);
    SparkSession session = builder.getOrCreate();
    session.range(1).count();
    root = session;
    LOG.info("Warm driver {}: Spark context started ({})", driverId, session.sparkContext().master());
  }

  int loop(WarmFolder.Hold hold) {
    boolean retiring = false;
    boolean heldOn = true;
    Instant renewed = clock.instant();
    PollSchedule polls = new PollSchedule(folder.poll(), folder.idlePoll());
    Instant activeAtLastLook = lastActive;
    while (true) {
      if (!folder.exists()) {
        LOG.info("Warm driver {}: its folder {} is gone; exiting", driverId, folder);
        return 0;
      }
      if (heldOn && Duration.between(renewed, clock.instant()).compareTo(WarmDriverHeartbeat.INTERVAL) >= 0) {
        heldOn = renew(hold);
        renewed = clock.instant();
      }
      boolean cancelSeen = cancelAsked();
      if (!retiring && heldOn) {
        retiring = takeRequests();
      }
      if (runs.isEmpty()) {
        if (!heldOn) {
          LOG.info("Warm driver {}: another driver has taken {} over; exiting", driverId, folder);
          return 0;
        }
        if (retiring) {
          LOG.info("Warm driver {}: a request needs other job settings; exiting so that a batcher starts a driver"
              + " with them", driverId);
          return 0;
        }
        if (Duration.between(lastActive, clock.instant()).compareTo(idleTimeout) > 0) {
          LOG.info("Warm driver {}: no batch for {}; exiting", driverId, idleTimeout);
          return 0;
        }
      }
      // A run going on, a request taken, a run ended since the last look, a cancel: the base poll.
      Instant active = lastActive;
      boolean busy = cancelSeen || !runs.isEmpty() || !active.equals(activeAtLastLook);
      activeAtLastLook = active;
      sleeper.sleep(polls.next(busy, clock.instant(),
          heldOn ? renewed.plus(WarmDriverHeartbeat.INTERVAL) : Instant.MAX,
          runs.isEmpty() ? active.plus(idleTimeout) : Instant.MAX));
    }
  }

  /** Whether this driver still holds its folder; a renewal that fails for a while is given up. */
  private boolean renew(WarmFolder.Hold hold) {
    try {
      return hold.renew();
    } catch (IOException e) {
      LOG.warn("Warm driver {}: cannot renew its hold on {}; trying again: {}", driverId, folder, e.toString());
      return true;
    }
  }

  /** Takes every waiting request of its own settings; true when one needs other settings. */
  private boolean takeRequests() {
    List<String> waiting;
    try {
      waiting = folder.waiting();
    } catch (IOException e) {
      LOG.warn("Warm driver {}: cannot list the requests in {}: {}", driverId, folder, e.toString());
      return false;
    }
    for (String name : waiting) {
      WarmRequest request;
      try {
        Optional<String> json = folder.readWaiting(name);
        if (json.isEmpty()) {
          continue;
        }
        request = WarmRequest.fromJson(json.get(), folder.waitingLocation(name));
      } catch (IOException | IllegalArgumentException e) {
        LOG.error("Warm driver {}: cannot read request {} in {}; leaving it: {}", driverId, name, folder, e.toString());
        continue;
      }
      if (!request.fingerprint().equals(fingerprint)) {
        LOG.info("Warm driver {}: request {} needs job settings {}, this driver runs {}", driverId, name,
            request.fingerprint(), fingerprint);
        return true;
      }
      WarmFolder.Take take;
      try {
        take = folder.take(name, driverId);
      } catch (IOException e) {
        LOG.error("Warm driver {}: cannot take request {} in {}: {}", driverId, name, folder, e.toString());
        continue;
      }
      if (take != WarmFolder.Take.TAKEN) {
        continue; // withdrawn before it started, or another driver's
      }
      Run run = new Run(request);
      runs.put(name, run);
      lastActive = clock.instant();
      executor.execute(() -> run(run));
    }
    return false;
  }

  /**
   * Cancels the job group of every run a batcher asked to cancel, again on every poll while the
   * run goes on: cancelling a group stops only its jobs already submitted.
   *
   * @return whether a batcher asked for a cancel since the last look
   */
  private boolean cancelAsked() {
    boolean seen = false;
    try {
      for (String cancel : folder.cancels()) {
        seen = true;
        Run run = runs.get(cancel);
        if (run != null && !run.cancelled) {
          run.cancelled = true;
          LOG.warn("Table {} batch {} attempt {}: cancel asked; cancelling job group {}", run.request.table(),
              run.request.batchId(), run.request.attempt(), run.request.jobGroup());
        }
        folder.deleteCancel(cancel);
      }
    } catch (IOException e) {
      LOG.warn("Warm driver {}: cannot read the cancel requests in {}: {}", driverId, folder, e.toString());
    }
    SparkSession context = root;
    Instant now = clock.instant();
    if (context != null) {
      runs.values().stream().filter(run -> run.cancelled && now.isAfter(run.nextCancel)).forEach(run -> {
        context.sparkContext().cancelJobGroup(run.request.jobGroup());
        run.nextCancel = now.plus(RECANCEL);
      });
    }
    return seen;
  }

  private void run(Run run) {
    WarmRequest request = run.request;
    try {
      LOG.info("Table {} batch {} attempt {}: running in warm driver {}", request.table(), request.batchId(),
          request.attempt(), driverId);
      int code = BatchJob.onSessions(manifest -> {
        SparkSession session = session(manifest);
        session.sparkContext().setJobGroup(request.jobGroup(), "files2iceberg " + request.table() + " "
            + request.batchId() + " attempt " + request.attempt(), true);
        if (run.cancelled) {
          throw new IllegalStateException("cancelled before it started");
        }
        return session;
      }).execute(new String[] {"--manifest", request.manifestUri(), "--attempt", String.valueOf(request.attempt())});
      LOG.info("Table {} batch {} attempt {}: ended with {}{}", request.table(), request.batchId(), request.attempt(),
          code, run.cancelled ? " (cancelled)" : "");
    } catch (Exception e) {
      // Exception, not RuntimeException: Spark throws its checked exceptions undeclared. The job
      // classifies every exception itself and writes its result; one that still gets here leaves
      // no result, which the batcher reports as a run that ended without one, naming this log.
      LOG.error("Table {} batch {} attempt {}: the warm driver failed to run it", request.table(), request.batchId(),
          request.attempt(), e);
    } catch (Error e) {
      // Out of memory or worse: the context cannot be trusted. Dying leaves the running requests
      // without results, which their batchers report as a job that died.
      LOG.error("Table {} batch {} attempt {}: fatal error; the warm driver exits", request.table(),
          request.batchId(), request.attempt(), e);
      Runtime.getRuntime().halt(1);
    } finally {
      root().ifPresent(s -> s.sparkContext().clearJobGroup());
      // The result (written by the job) comes before this delete: a batcher that finds neither
      // the request nor a result knows it was lost.
      try {
        folder.finish(request.name(), driverId);
      } catch (IOException e) {
        LOG.warn("Warm driver {}: cannot remove the running request {} in {}: {}", driverId, request.name(), folder,
            e.toString());
      }
      runs.remove(request.name());
      lastActive = clock.instant();
    }
  }

  private Optional<SparkSession> root() {
    return Optional.ofNullable(root);
  }

  /**
   * The session of a manifest's catalog: one per catalog setting, kept for the batches after it
   * (their catalogs stay warm). The context is started with the first manifest's job settings,
   * which every request's fingerprint matches. Iceberg's table cache is off in these sessions: a
   * table another process committed to (maintenance, a job of per-batch mode) is read fresh.
   */
  private SparkSession session(BatchManifest manifest) {
    CatalogConf.createSqliteFolder(manifest.profile().catalog());
    synchronized (this) {
      if (root == null) {
        root = BatchJob.newSession(manifest.profile(), manifest.deployment().job(), "files2iceberg warm driver");
      }
    }
    Map<String, String> catalog = catalogProperties(manifest);
    return sessions.computeIfAbsent(catalog, properties -> {
      SparkSession session = root.newSession();
      String prefix = "spark.sql.catalog." + manifest.profile().load().table().catalog();
      // The context carries the first manifest's catalog; a catalog of the same name set
      // otherwise must not keep any of its keys.
      for (String key : scala.jdk.javaapi.CollectionConverters.asJava(session.conf().getAll()).keySet()) {
        if ((key.equals(prefix) || key.startsWith(prefix + ".")) && !properties.containsKey(key)) {
          session.conf().unset(key);
        }
      }
      properties.forEach((key, value) -> session.conf().set(key, value));
      return session;
    });
  }

  /** The manifest's catalog keys ({@code spark.sql.catalog.*}), as its own job would set them. */
  static Map<String, String> catalogProperties(BatchManifest manifest) {
    Map<String, String> catalog = new TreeMap<>();
    CatalogConf.sessionProperties(manifest.profile(), manifest.deployment().job()).forEach((key, value) -> {
      if (key.startsWith("spark.sql.catalog.")) {
        catalog.put(key, value);
      }
    });
    String cache = "spark.sql.catalog." + manifest.profile().load().table().catalog() + ".cache-enabled";
    catalog.putIfAbsent(cache, "false");
    return catalog;
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
