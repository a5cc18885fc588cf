package io.files2iceberg.batcher.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import io.files2iceberg.core.logging.LogFormat;
import io.files2iceberg.core.profile.Home;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The listener child of {@code local}, a real process: it does not outlive its parent, even one
 * killed with {@code SIGKILL}, and a home holds one live listener.
 */
class ListenerProcessTest {
  private static final Duration START = Duration.ofSeconds(90);

  @TempDir Path dir;

  Path target;
  Path profiles;
  Home home;

  @BeforeEach
  void profile() throws Exception {
    target = ListenerProcess.locateTarget(System.getenv(), Path.of(""));
    profiles = Files.createDirectories(dir.resolve("profiles"));
    Files.writeString(profiles.resolve("clicks.conf"), """
        extract { path = "file://%s/clicks/dt=*/*.json", format = json }
        load.iceberg.table = "local.test.clicks"
        """.formatted(dir.resolve("landing")));
    home = new Home(dir.resolve("home"));
  }

  @Test
  void itsLogIsTextUnlessTheUserChoseAFormat() {
    Map<String, String> unset = new HashMap<>(Map.of("PATH", "/usr/bin"));
    Map<String, String> json = new HashMap<>(Map.of(LogFormat.ENV, "JSON"));
    Map<String, String> blank = new HashMap<>(Map.of(LogFormat.ENV, " "));

    ListenerProcess.textLogsUnlessChosen(unset);
    ListenerProcess.textLogsUnlessChosen(json);
    ListenerProcess.textLogsUnlessChosen(blank);

    assertThat(unset).containsEntry(LogFormat.ENV, "TEXT");
    assertThat(json).containsEntry(LogFormat.ENV, "JSON");
    assertThat(blank).containsEntry(LogFormat.ENV, "TEXT");
  }

  @Test
  void listenerEndsWithinSecondsOfItsParentBeingKilledWithSigkill() throws Exception {
    Path parentLog = dir.resolve("parent.log");
    Process parent = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), ListenerParent.class.getName(),
        target.toString(), profiles.toString(), home.root().toString())
        .redirectError(parentLog.toFile())
        .start();
    ProcessHandle listener;
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(parent.getInputStream(), StandardCharsets.UTF_8));
      String line = CompletableFuture.supplyAsync(() -> {
        try {
          return out.readLine();
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }).get(START.toSeconds() + 30, TimeUnit.SECONDS);
      assertThat(line).as(() -> ListenerProcess.tail(parentLog, 30)).startsWith("listener ");
      listener = ProcessHandle.of(Long.parseLong(line.substring("listener ".length()))).orElseThrow();
      assertThat(listener.isAlive()).isTrue();
      assertThat(listener.parent().map(ProcessHandle::pid)).contains(parent.pid());
    } catch (Exception | AssertionError e) {
      parent.destroyForcibly();
      throw e;
    }

    // kill -9: the parent gets no chance to stop its child.
    Process kill = new ProcessBuilder("kill", "-KILL", Long.toString(parent.pid())).inheritIO().start();
    assertThat(kill.waitFor()).isZero();
    assertThat(parent.waitFor(10, TimeUnit.SECONDS)).isTrue();

    long start = System.nanoTime();
    try {
      listener.onExit().get(10, TimeUnit.SECONDS);
    } finally {
      listener.destroyForcibly();
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(took).isLessThan(Duration.ofSeconds(10));
    assertThat(Files.readString(home.root().resolve("logs").resolve("listener.log")))
        .contains("The process " + parent.pid() + " that started this listener has ended; stopping the listener");
  }

  @Test
  void aListenerWhosePortIsTakenBeforeItBindsItStartsOnAnotherPortWithTheUsersJvmOptions() throws Exception {
    // Seen: the demo's warm driver opened a socket on the port chosen for the listener before the
    // listener bound it, and the demo failed ("Port 127.0.0.1:45815 already in use").
    Map<String, String> env = new HashMap<>(System.getenv());
    env.put(ListenerProcess.JAVA_OPTS_ENV, " -Xmx200m  -Dfiles2iceberg.test.option=listener ");
    try (java.net.ServerSocket taken = new java.net.ServerSocket()) {
      taken.setReuseAddress(false);
      taken.bind(new java.net.InetSocketAddress("127.0.0.1", 0));
      int takenPort = taken.getLocalPort();
      java.util.Iterator<Integer> ports = java.util.List.of(takenPort, ListenerProcess.freePort()).iterator();
      try (ListenerProcess listener = ListenerProcess.start(target, profiles, java.util.Optional.empty(), home, START,
          ports::next, env)) {
        assertThat(listener.baseUri().getPort()).isNotEqualTo(takenPort);
        assertThat(Files.readString(listener.log())).contains(takenPort + " already in use");
        // FILES2ICEBERG_LISTENER_JAVA_OPTS, after the bind address and before the main class.
        java.util.List<String> arguments = java.util.List.of(
            Files.readString(Path.of("/proc", Long.toString(listener.pid()), "cmdline")).split("\0"));
        assertThat(arguments).containsSubsequence("-Dmicronaut.server.host=127.0.0.1", "-Xmx200m",
            "-Dfiles2iceberg.test.option=listener", ListenerProcess.MAIN_CLASS);

        // It serves the push route on the port it took: a notification is recorded in the home's ledger.
        Path file = dir.resolve("landing/clicks/dt=2026-11-27/part-0.json");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "{\"id\":1}\n");
        Files.setLastModifiedTime(file, FileTime.from(Instant.now().minusSeconds(60)));
        LandingNotifier notifier = new LandingNotifier(dir.resolve("landing"), listener.pushUri("/pubsub/push"),
            Set.of("_SUCCESS"), Clock.systemUTC());
        assertThat(notifier.scan().count(LandingNotifier.Outcome.RECORDED)).isEqualTo(1);
        try (SqliteLedger ledger = SqliteLedger.open(home.ledgerDb(), Clock.systemUTC())) {
          assertThat(ledger.tableStatus("local.test.clicks").filesByState())
              .containsEntry(FileState.RECORDED, 1L);
        }
      }
    }
  }

  @Test
  void aSecondListenerOnAHomeWithALiveOneExitsNamingItsProcessId() throws Exception {
    try (ListenerProcess first = ListenerProcess.start(target, profiles, home, START)) {

      assertThatThrownBy(() -> {
        try (ListenerProcess second = ListenerProcess.start(target, profiles, home, START)) {
          // Stopped at once should it start: it must not outlive the test.
        }
      })
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("The listener exited with code 1 before it was up:")
          .hasMessageContaining("error: the home " + home.root().toAbsolutePath() + " already has a live listener:"
              + " process " + first.pid() + " holds " + home.root().toAbsolutePath().resolve("listener.lock")
              + "; stop that listener first, or give this one another --home");
      assertThat(first.isAlive()).isTrue();
    }

    // The lock went with the first listener: the home takes a new one.
    try (ListenerProcess again = ListenerProcess.start(target, profiles, home, START)) {
      assertThat(again.isAlive()).isTrue();
    }
  }
}
