package io.files2iceberg.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which address the listener binds, started as {@code bin/files2iceberg listen} and the container
 * start it ({@code ListenerApplication} in a JVM of its own): loopback unless {@code PORT} is set
 * (Cloud Run), where it answers on every interface; {@code listener.host} chooses another. Checked
 * from outside, by connecting to an address of this machine that is not loopback.
 */
class BindAddressTest {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @TempDir Path work;
  private final List<Process> started = new ArrayList<>();

  @AfterEach
  void stopListeners() throws InterruptedException {
    for (Process process : started) {
      process.destroy();
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }

  @Test
  void withoutPortTheListenerAnswersOnLoopbackOnly() throws Exception {
    InetAddress external = nonLoopbackAddress();
    int port = freePort();

    start(profiles(""), Optional.of(port), Optional.empty());

    assertThat(health(InetAddress.getLoopbackAddress(), port)).isEqualTo(200);
    assertThatThrownBy(() -> connect(external, port)).isInstanceOf(ConnectException.class);
    // Only this machine can ask, so /health tells it the ledger's state.
    assertThat(healthBody(InetAddress.getLoopbackAddress(), port)).contains("\"ledger\"", "\"available\":true");
  }

  @Test
  void withPortSetAsOnCloudRunTheListenerAnswersOnEveryInterface() throws Exception {
    InetAddress external = nonLoopbackAddress();
    int port = freePort();

    start(profiles(""), Optional.empty(), Optional.of(port));

    assertThat(health(InetAddress.getLoopbackAddress(), port)).isEqualTo(200);
    assertThat(health(external, port)).isEqualTo(200);
    // Anyone on the network can ask: the status only, the ledger's details stay in the log.
    assertThat(healthBody(external, port)).contains("\"status\":\"UP\"").doesNotContain("details", "ledger");
    assertThat(healthBody(InetAddress.getLoopbackAddress(), port)).doesNotContain("details", "ledger");
  }

  @Test
  void listenerHostOpensTheListenerToTheNetworkWithoutPort() throws Exception {
    InetAddress external = nonLoopbackAddress();
    int port = freePort();

    start(profiles("listener.host = \"0.0.0.0\"\n"), Optional.of(port), Optional.empty());

    assertThat(health(external, port)).isEqualTo(200);
  }

  @Test
  void theDeploymentFileNamedByItsOptionGivesTheHostAndThePort() throws Exception {
    InetAddress external = nonLoopbackAddress();
    int port = freePort();
    Path deployment = Files.writeString(
        work.resolve("prod-deployment.conf"), "listener { host = \"0.0.0.0\", port = " + port + " }\n");

    start(profiles(""), List.of("--deployment", deployment.toString()), Optional.empty(), Optional.empty(), port);

    assertThat(health(external, port)).isEqualTo(200);
  }

  private Path profiles(String extra) throws IOException {
    Path folder = Files.createDirectories(work.resolve("profiles"));
    Files.writeString(
        folder.resolve("clicks.conf"),
        "extract.path = \"gs://landing/raw/*/*.parquet\"\nload.iceberg.table = \"local.demo.clicks\"\n" + extra);
    return folder;
  }

  /** Starts the listener with {@code --port} or {@code PORT} and waits until it answers on loopback. */
  private void start(Path profiles, Optional<Integer> portOption, Optional<Integer> portVariable) throws Exception {
    start(profiles, List.of(), portOption, portVariable, portOption.or(() -> portVariable).orElseThrow());
  }

  private void start(Path profiles, List<String> options, Optional<Integer> portOption,
      Optional<Integer> portVariable, int port) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(ListenerApplication.class.getName());
    command.add("--config");
    command.add(profiles.toString());
    command.add("--home");
    command.add(work.resolve("home").toString());
    command.addAll(options);
    portOption.ifPresent(given -> {
      command.add("--port");
      command.add(Integer.toString(given));
    });
    Path log = Files.createDirectories(Path.of("target")).resolve("bind-address-test-" + System.nanoTime() + ".log");
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().remove("PORT");
    builder.environment().remove("MICRONAUT_SERVER_HOST");
    portVariable.ifPresent(given -> builder.environment().put("PORT", Integer.toString(given)));
    builder.environment().remove("FILES2ICEBERG_DEPLOYMENT");
    builder.environment().put("FILES2ICEBERG_LOG_FORMAT", "TEXT");
    Process process = builder.start();
    started.add(process);
    Instant deadline = Instant.now().plusSeconds(60);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new AssertionError("the listener exited with " + process.exitValue() + ":\n" + Files.readString(log));
      }
      try {
        health(InetAddress.getLoopbackAddress(), port);
        return;
      } catch (IOException e) {
        Thread.sleep(200);
      }
    }
    throw new AssertionError("the listener did not answer on loopback within 60 s:\n" + Files.readString(log));
  }

  private static int health(InetAddress address, int port) throws IOException, InterruptedException {
    URI uri = URI.create("http://" + address.getHostAddress() + ":" + port + "/health");
    return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  private static String healthBody(InetAddress address, int port) throws IOException, InterruptedException {
    URI uri = URI.create("http://" + address.getHostAddress() + ":" + port + "/health");
    return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  private static void connect(InetAddress address, int port) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(address, port), 2000);
    }
  }

  /** An IPv4 address of an interface of this machine other than loopback; skips the test without one. */
  private static InetAddress nonLoopbackAddress() throws SocketException {
    Optional<InetAddress> found =
        Collections.list(NetworkInterface.getNetworkInterfaces()).stream()
            .filter(BindAddressTest::isUp)
            .flatMap(nic -> Collections.list(nic.getInetAddresses()).stream())
            .filter(address -> address instanceof Inet4Address && !address.isLoopbackAddress())
            .findFirst();
    Assumptions.assumeTrue(found.isPresent(), "this machine has no IPv4 address other than loopback");
    return found.get();
  }

  private static boolean isUp(NetworkInterface nic) {
    try {
      return nic.isUp() && !nic.isLoopback();
    } catch (SocketException e) {
      return false;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
