package io.files2iceberg.batcher.listen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.files2iceberg.batcher.cli.ExitCode;
import io.files2iceberg.batcher.cli.Files2Iceberg;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code listen} parsed by the command line like every other command, then the real listener
 * started from {@code listener/target} as a child process.
 */
class ListenCommandTest {
  private static final Duration START = Duration.ofSeconds(90);

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();
  private Path profiles;

  @BeforeEach
  void profile() throws IOException {
    profiles = Files.createDirectories(dir.resolve("profiles"));
    Files.writeString(profiles.resolve("clicks.conf"), """
        extract { path = "file://%s/clicks/dt=*/*.json", format = json }
        load.iceberg.table = "local.test.clicks"
        """.formatted(dir.resolve("landing")));
  }

  private CommandLine commandLine() {
    CommandLine commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    ListenCommand listen = commandLine.getSubcommands().get("listen").getCommand();
    listen.handleSignals = false;
    return commandLine;
  }

  @Test
  void listenTakesTheShortConfigOptionAndRunsTheListenerUntilStopped() throws Exception {
    int port = freePort();
    CommandLine commandLine = commandLine();
    AtomicInteger exit = new AtomicInteger(-1);
    Thread command = new Thread(() -> exit.set(commandLine.execute("listen", "-c", profiles.toString(),
        "--home", dir.resolve("home").toString(), "--port", Integer.toString(port))));
    command.start();
    try {
      assertThat(awaitHealth(port, command)).as(err.toString()).contains("\"UP\"");
      assertThat(Files.readString(dir.resolve("home").resolve("listener.lock"))).isNotBlank();
    } finally {
      command.interrupt();
      command.join(Duration.ofSeconds(30).toMillis());
    }
    assertThat(command.isAlive()).as("listen still running after it was stopped").isFalse();
    // Stopped with SIGTERM, the listener's JVM ends as a terminated one does.
    assertThat(exit.get()).as(err.toString()).isEqualTo(143);
  }

  @Test
  void aMisspelledListenOptionIsAUsageErrorWithPicocliSuggestion() {
    int exit = commandLine().execute("listen", "--confg", profiles.toString());

    assertThat(exit).isEqualTo(ExitCode.INVALID);
    assertThat(err.toString())
        .isEqualTo("error: unknown option '--confg'; did you mean '--config'?" + System.lineSeparator());
  }

  @Test
  void listenWithoutConfigIsAUsageErrorNamingTheOptionAndTheVariable() {
    assumeTrue(System.getenv("FILES2ICEBERG_CONFIG") == null, "FILES2ICEBERG_CONFIG is set");

    int exit = commandLine().execute("listen", "--home", dir.resolve("home").toString());

    assertThat(exit).isEqualTo(ExitCode.INVALID);
    assertThat(err.toString()).startsWith("error: missing required option: '--config=FILE|DIR' (or $FILES2ICEBERG_CONFIG)");
  }

  @Test
  void listenReportsEveryProblemOfItsProfilesAsValidateDoesBeforeStartingTheListener() throws IOException {
    Files.writeString(profiles.resolve("clicks.conf"), """
        extract { path = "file:///landing/clicks/dt=*/*.json", format = json, max-batch-sise = 3 }
        load.iceberg.table = "local.test.clicks"
        """);

    int exit = commandLine().execute("listen", "-c", profiles.toString(), "--home", dir.resolve("home").toString());

    assertThat(exit).isEqualTo(ExitCode.INVALID);
    assertThat(err.toString()).startsWith("error: 1 problem(s) in " + profiles + ":")
        .contains("extract.max-batch-sise: unknown key");
    assertThat(dir.resolve("home").resolve("listener.lock")).doesNotExist();
  }

  @Test
  void aPortOutOfRangeIsAUsageError() {
    int exit = commandLine().execute("listen", "-c", profiles.toString(), "--port", "70000");

    assertThat(exit).isEqualTo(ExitCode.INVALID);
    assertThat(err.toString()).startsWith("error: --port: must be a port from 1 to 65535, got 70000");
  }

  private static String awaitHealth(int port, Thread command) throws InterruptedException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest health = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
        .timeout(Duration.ofSeconds(5)).build();
    Instant deadline = Instant.now().plus(START);
    String last = "no answer";
    while (Instant.now().isBefore(deadline) && command.isAlive()) {
      try {
        HttpResponse<String> response = http.send(health, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200) {
          return response.body();
        }
        last = "HTTP " + response.statusCode();
      } catch (IOException e) {
        last = e.toString();
      }
      Thread.sleep(250);
    }
    return last;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
