package io.files2iceberg.batcher.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.engine.launch.Launcher;
import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import io.files2iceberg.batcher.engine.launch.WarmLocalLauncher;
import io.files2iceberg.batcher.local.LandingNotifier;
import io.files2iceberg.batcher.local.ListenerProcess;
import io.files2iceberg.batcher.engine.BatchEvent;
import io.files2iceberg.batcher.engine.BatchRunner;
import io.files2iceberg.batcher.engine.RunOptions;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileException;
import io.files2iceberg.core.profile.ProfileRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * One embedded deployment for a test class, the way {@code bin/files2iceberg local} runs it: a home
 * (SQLite ledger, JDBC-on-SQLite catalog), a folder of profiles, a landing folder, the real
 * listener as a child process, the notifier posting to it, and batch runners with the local
 * launcher of the deployment's {@code job.mode}, as the batcher picks it: the home's warm driver
 * (a real Spark child JVM, one for the class's tests) by default, a Spark child JVM per batch with
 * {@code job.mode = per-batch}. Rows are read back through Iceberg's own reader ({@code testing.IcebergRows}).
 */
final class EmbeddedDeployment implements AutoCloseable {
  final Home home;
  final Path profiles;
  final Path landing;
  final Path sparkJobTarget;
  private final ListenerProcess listener;
  final LandingNotifier notifier;
  final Ledger ledger;
  /** The launcher of {@code job.mode = per-batch}: a Spark child JVM per batch. */
  final LocalSparkLauncher perBatch;
  /** The warm launchers handed out, whose driver (one per home) {@link #close} stops. */
  private final List<WarmLocalLauncher> warm = Collections.synchronizedList(new ArrayList<>());

  /**
   * @param profileTexts profile file name (without {@code .conf}) to HOCON, in which
   *     {@code LANDING} stands for the landing folder's absolute path
   */
  EmbeddedDeployment(Path root, Map<String, String> profileTexts) throws Exception {
    this.home = new Home(root.resolve("home"));
    this.profiles = Files.createDirectories(root.resolve("profiles"));
    this.landing = Files.createDirectories(root.resolve("landing"));
    for (Map.Entry<String, String> profile : profileTexts.entrySet()) {
      Files.writeString(profiles.resolve(profile.getKey() + ".conf"),
          profile.getValue().replace("LANDING", landing.toString()));
    }
    this.sparkJobTarget = LocalSparkLauncher.locateSparkJobTarget(System.getenv(), Path.of(""));
    this.perBatch = new LocalSparkLauncher(sparkJobTarget, home);
    this.ledger = SqliteLedger.open(home.ledgerDb(), Clock.systemUTC());
    this.listener = ListenerProcess.start(ListenerProcess.locateTarget(System.getenv(), Path.of("")), profiles, home,
        Duration.ofSeconds(90));
    URI push = listener.pushUri("/pubsub/push");
    this.notifier = new LandingNotifier(landing, push, Set.of("_SUCCESS"), Clock.systemUTC());
  }

  /** The profile of that name alone, as a one-table deployment's batcher would load it. */
  ProfileRegistry profile(String name) {
    return profile(name, Optional.empty());
  }

  /**
   * The profile of that name with a deployment file named apart ({@code --deployment}), else the
   * one beside the profiles.
   */
  ProfileRegistry profile(String name, Optional<Path> deploymentFile) {
    try {
      return ProfileRegistry.load(profiles.resolve(name + ".conf"), deploymentFile, home);
    } catch (ProfileException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /**
   * The local launcher of the deployment's {@code job.mode}, as the batcher's is
   * ({@link LocalSparkLauncher#forMode}): the home's warm driver unless it says {@code per-batch}.
   */
  Launcher launcher(ProfileRegistry registry) {
    Launcher launcher = LocalSparkLauncher.forMode(sparkJobTarget, home, registry.deployment().job());
    if (launcher instanceof WarmLocalLauncher driver) {
      warm.add(driver);
    }
    return launcher;
  }

  /** The pid of the warm driver a launcher of this deployment started, if one runs. */
  Optional<Long> warmDriverPid() {
    synchronized (warm) {
      return warm.stream().map(WarmLocalLauncher::driverPid).flatMap(Optional::stream).findFirst();
    }
  }

  /** A batch runner for one profile, with the local launcher of its mode; events go to the list too. */
  BatchRunner runner(String profile, List<BatchEvent> events, Consumer<BatchEvent> also) {
    return runner(profile(profile), events, also);
  }

  /** A batch runner for the profiles, with the local launcher of their mode; events go to the list too. */
  BatchRunner runner(ProfileRegistry registry, List<BatchEvent> events, Consumer<BatchEvent> also) {
    Launcher launcher = launcher(registry);
    return BatchRunner.builder(registry, ledger, p -> launcher)
        .options(new RunOptions(1, Duration.ofMinutes(5)))
        .events(event -> {
          events.add(event);
          also.accept(event);
        })
        .build();
  }

  BatchRunner runner(String profile, List<BatchEvent> events) {
    return runner(profile, events, event -> {});
  }

  static List<BatchEvent> events() {
    return Collections.synchronizedList(new ArrayList<>());
  }

  /**
   * Writes a landing file (JSON lines, CSV, a marker), dated a little in the past so that the
   * notifier takes it as settled; each write gets a later modification time, so a new generation.
   */
  Path write(String relative, String content) {
    Path file = landing.resolve(relative);
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, content);
      Files.setLastModifiedTime(file, FileTime.from(Instant.now().minusSeconds(2)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file;
  }

  /** One scan of the landing folder, posting to the listener. */
  LandingNotifier.ScanResult notifyListener() throws InterruptedException {
    return notifier.scan();
  }

  /**
   * A notifier of its own over one folder of the landing, posting to the listener: a test loses
   * notifications on purpose by writing files where no notifier scans again.
   */
  LandingNotifier notifierFor(Path folder) {
    return new LandingNotifier(folder, listener.pushUri("/pubsub/push"), Set.of("_SUCCESS"), Clock.systemUTC());
  }

  /** {@code sql --json} against this deployment's home: see {@link SqlQueries#sql}. */
  List<JsonNode> sql(String... statements) throws Exception {
    return SqlQueries.sql(home, statements);
  }

  @Override
  public void close() {
    try {
      listener.close();
    } finally {
      try {
        synchronized (warm) {
          for (WarmLocalLauncher driver : warm) {
            driver.driverPid().flatMap(ProcessHandle::of).ifPresent(ProcessHandle::destroyForcibly);
          }
        }
      } finally {
        ledger.close();
      }
    }
  }
}
