package io.files2iceberg.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.http.client.exceptions.HttpClientResponseException;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code /health} reports whether the SQLite ledger takes writes, not only whether it reads: a
 * ledger file that cannot be written fails every push with {@code 503}, and readiness says so.
 *
 * <p>The tests run as root, which permission bits do not stop, so the ledger's files are made
 * immutable ({@code chattr +i}), which stops root too, as on a home remounted read-only: every
 * write then fails, on the ledger's writer connection (open since startup) with SQLite's "disk I/O
 * error", on a connection opened since with "attempt to write a readonly database". The shared-memory
 * index ({@code ledger.db-shm}) is left alone: it is mapped into memory, and a write to an
 * immutable mapping kills the process (SIGBUS).
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReadOnlyLedgerHealthTest implements TestPropertyProvider {
  private static final String BUCKET = "landing";

  private Path root;

  @Inject
  @Client("/")
  HttpClient client;

  @Override
  public Map<String, String> getProperties() {
    try {
      root = Files.createTempDirectory("read-only-ledger-test");
      Path profile =
          Files.writeString(
              root.resolve("clicks.conf"),
              "extract.path = \"gs://landing/raw/*/*.parquet\"\nload.iceberg.table = \"local.demo.clicks\"\n");
      return Map.of(
          "files2iceberg.config", profile.toString(),
          "files2iceberg.home", root.resolve("home").toString(),
          // As ListenerApplication sets it where the listener answers on loopback only.
          "endpoints.health.details-visible", "ANONYMOUS");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @AfterAll
  void deleteTempFolder() throws IOException, InterruptedException {
    immutable(false);
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    }
  }

  @Test
  void healthIsDownNamingTheReasonWhileTheLedgerCannotBeWrittenAndUpAgainOnceItCan() throws Exception {
    HttpResponse<String> before = get("/health");
    assumeTrue(chattrWorks(), "needs chattr +i on " + root + " (root ignores permission bits)");

    HttpResponse<String> readOnly;
    HttpResponse<?> push;
    try {
      immutable(true);
      readOnly = get("/health");
      push = post(Envelopes.finalized("m-ro-1", BUCKET, "raw/2024-05-01/part-0.parquet", 1001, 10));
    } finally {
      immutable(false);
    }
    HttpResponse<String> after = get("/health");
    HttpResponse<?> redelivered = post(Envelopes.finalized("m-ro-1", BUCKET, "raw/2024-05-01/part-0.parquet", 1001, 10));

    assertThat(before.code()).isEqualTo(200);
    assertThat(before.body()).contains("\"status\":\"UP\"");
    assertThat(readOnly.code()).isEqualTo(503);
    assertThat(readOnly.body()).contains("\"status\":\"DOWN\"").contains("\"available\":false")
        .contains("\"reason\":\"Ledger probe failed for " + ledgerDb())
        .containsAnyOf("disk I/O error", "attempt to write a readonly database");
    assertThat(push.code()).isEqualTo(503);
    assertThat(after.code()).isEqualTo(200);
    assertThat(after.body()).contains("\"status\":\"UP\"").doesNotContain("\"reason\"");
    assertThat(redelivered.code()).isEqualTo(204);
  }

  private Path ledgerDb() {
    return root.resolve("home").resolve("ledger.db");
  }

  /** The database and its write-ahead log; never the memory-mapped {@code -shm} file. */
  private List<Path> ledgerFiles() {
    return List.of(ledgerDb(), ledgerDb().resolveSibling("ledger.db-wal"));
  }

  private boolean chattrWorks() throws IOException, InterruptedException {
    Path probe = Files.writeString(root.resolve("chattr-probe"), "x");
    boolean set = run("chattr", "+i", probe.toString()) == 0;
    boolean blocked = set && !probe.toFile().canWrite();
    run("chattr", "-i", probe.toString());
    return set && (blocked || isImmutableWriteRefused(probe));
  }

  private static boolean isImmutableWriteRefused(Path probe) throws IOException, InterruptedException {
    run("chattr", "+i", probe.toString());
    try {
      Files.writeString(probe, "y");
      return false;
    } catch (IOException e) {
      return true;
    } finally {
      run("chattr", "-i", probe.toString());
    }
  }

  private void immutable(boolean on) throws IOException, InterruptedException {
    for (Path file : ledgerFiles()) {
      if (Files.exists(file)) {
        run("chattr", on ? "+i" : "-i", file.toString());
      }
    }
  }

  private static int run(String... command) throws IOException, InterruptedException {
    return new ProcessBuilder(command).inheritIO().start().waitFor();
  }

  private HttpResponse<?> post(String body) {
    try {
      return client.toBlocking()
          .exchange(HttpRequest.POST("/pubsub/push", body).contentType(MediaType.APPLICATION_JSON_TYPE));
    } catch (HttpClientResponseException e) {
      return e.getResponse();
    }
  }

  private HttpResponse<String> get(String path) {
    try {
      return client.toBlocking().exchange(HttpRequest.GET(path), String.class);
    } catch (HttpClientResponseException e) {
      return e.getResponse().getBody(String.class).isPresent()
          ? HttpResponse.<String>status(e.getStatus()).body(e.getResponse().getBody(String.class).get())
          : HttpResponse.status(e.getStatus());
    }
  }
}
