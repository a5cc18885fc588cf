package io.files2iceberg.listener;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.listener.push.PushController;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Pushes at once, end to end: concurrent real HTTP posts of real envelopes to the embedded server,
 * whose SQLite ledger commits their writes in groups; and a marker over a folder of 10,000 files
 * nobody notified, recorded in the one push. Objects are {@code file://} files in a temp folder
 * (the marker lists the folder on disk).
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConcurrentPushTest implements TestPropertyProvider {
  private static final String EVENTS = "local.demo.events";
  private static final int LISTED_FILES = 10_000;

  private Path root;

  @Inject EmbeddedServer server;
  @Inject Ledger ledger;
  @Inject ProfileRegistry profiles;

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private final ExecutorService clients = Executors.newFixedThreadPool(16);

  @Override
  public Map<String, String> getProperties() {
    try {
      root = Files.createTempDirectory("concurrent-push-test");
      Path config = Files.createDirectories(root.resolve("profiles"));
      Files.writeString(
          config.resolve("events.conf"),
          """
          extract.path = "file://%s/landing/events/*/*.json"
          extract.format = json
          load.iceberg.table = "local.demo.events"
          """
              .formatted(root.toAbsolutePath()));
      return Map.of(
          "files2iceberg.config", config.toString(),
          "files2iceberg.home", root.resolve("home").toString());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @AfterAll
  void cleanUp() throws IOException {
    clients.shutdownNow();
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    }
  }

  @Test
  void concurrentNotificationsAndTheirRedeliveriesAreEachRecordedOnceAndAckedAfterTheirWrite() throws Exception {
    List<String> envelopes = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      String envelope = Envelopes.finalized("m-many-" + i, "", name("day-many", "part-" + i + ".json"), 1000 + i, 10);
      // Each notification twice, as Pub/Sub redelivers one whose ack it did not see.
      envelopes.add(envelope);
      envelopes.add(envelope);
    }

    List<HttpResponse<String>> responses = postConcurrently(envelopes);

    assertThat(responses).extracting(HttpResponse::statusCode).containsOnly(204);
    List<String> outcomes = responses.stream().map(ConcurrentPushTest::outcome).toList();
    assertThat(outcomes.stream().filter("recorded"::equals)).hasSize(200);
    assertThat(outcomes.stream().filter("duplicate"::equals)).hasSize(200);
    for (int i = 0; i < 200; i++) {
      FileRecord file = file(name("day-many", "part-" + i + ".json"), 1000 + i);
      assertThat(file.state()).isEqualTo(FileState.RECORDED);
      assertThat(file.eventId()).isEqualTo("m-many-" + i);
    }
    assertThat(ledger.filesOfPartition(EVENTS, "day-many")).hasSize(200);
    assertThat(ledger.partition(EVENTS, "day-many").orElseThrow().state()).isEqualTo(PartitionState.OPEN);
  }

  @Test
  void aWriteThatFailsAmongConcurrentPushesIs503ForItsPushAloneAndItsRedeliveryIsRecorded() throws Exception {
    String dbFile = profiles.deployment().ledger().sqlitePath();
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dbFile);
        Statement statement = connection.createStatement()) {
      // A write the store refuses, as a failing disk would refuse one.
      statement.execute("CREATE TRIGGER refuse_poison BEFORE INSERT ON \"files\" WHEN NEW.\"name\" LIKE '%poison%'"
          + " BEGIN SELECT RAISE(ABORT, 'poisoned file refused'); END");
    }
    String poison = Envelopes.finalized("m-poison", "", name("day-mixed", "poison.json"), 77, 10);
    List<String> envelopes = new ArrayList<>();
    for (int i = 0; i < 96; i++) {
      envelopes.add(i == 48 ? poison
          : Envelopes.finalized("m-good-" + i, "", name("day-mixed", "part-" + i + ".json"), 2000 + i, 10));
    }

    List<HttpResponse<String>> responses;
    try {
      responses = postConcurrently(envelopes);
    } finally {
      dropTrigger(dbFile);
    }

    for (int i = 0; i < envelopes.size(); i++) {
      if (i == 48) {
        assertThat(responses.get(i).statusCode()).isEqualTo(503);
        assertThat(outcome(responses.get(i))).isEqualTo("retry");
      } else {
        assertThat(responses.get(i).statusCode()).as("push %d", i).isEqualTo(204);
        assertThat(outcome(responses.get(i))).isEqualTo("recorded");
        assertThat(file(name("day-mixed", "part-" + i + ".json"), 2000 + i).eventId()).isEqualTo("m-good-" + i);
      }
    }
    assertThat(ledger.file(LedgerSchema.fileId("", name("day-mixed", "poison.json"), 77))).isEmpty();
    assertThat(ledger.filesOfPartition(EVENTS, "day-mixed")).hasSize(95);

    HttpResponse<String> redelivered = post(poison);

    assertThat(redelivered.statusCode()).isEqualTo(204);
    assertThat(outcome(redelivered)).isEqualTo("recorded");
    assertThat(ledger.filesOfPartition(EVENTS, "day-mixed")).hasSize(96);
  }

  @Test
  void markerOverTenThousandUnnotifiedFilesRecordsThemAllInItsOnePush() throws Exception {
    Path folder = Files.createDirectories(root.resolve("landing/events/day-big"));
    for (int i = 0; i < LISTED_FILES; i++) {
      Files.writeString(folder.resolve(String.format("part-%05d.json", i)), "{\"id\":" + i + "}\n");
    }
    Path marker = Files.writeString(folder.resolve("_SUCCESS"), "");

    HttpResponse<String> response =
        post(Envelopes.finalized("m-big-marker", "", marker.toAbsolutePath().toString().substring(1), 9001, 0));

    assertThat(response.statusCode()).isEqualTo(204);
    assertThat(outcome(response)).isEqualTo("partition_ready");
    assertThat(ledger.partition(EVENTS, "day-big").orElseThrow().state()).isEqualTo(PartitionState.READY);
    List<FileRecord> files = ledger.filesOfPartition(EVENTS, "day-big");
    assertThat(files).hasSize(LISTED_FILES);
    assertThat(files).allSatisfy(file -> {
      assertThat(file.state()).isEqualTo(FileState.RECORDED);
      assertThat(file.eventId()).isEqualTo("listing:m-big-marker");
    });
    assertThat(files.get(0).uri()).isEqualTo("file:///" + name("day-big", "part-00000.json"));

    // A redelivery of the marker records nothing again.
    HttpResponse<String> again =
        post(Envelopes.finalized("m-big-marker", "", marker.toAbsolutePath().toString().substring(1), 9001, 0));
    assertThat(again.statusCode()).isEqualTo(204);
    assertThat(ledger.filesOfPartition(EVENTS, "day-big")).hasSize(LISTED_FILES);
  }

  // --- helpers ----------------------------------------------------------------------------------

  /** An object name of the landing folder, as a {@code file://} notification names it (no leading slash). */
  private String name(String day, String file) {
    return root.resolve("landing/events").resolve(day).resolve(file).toAbsolutePath().toString().substring(1);
  }

  private FileRecord file(String name, long generation) {
    return ledger.file(LedgerSchema.fileId("", name, generation))
        .orElseThrow(() -> new AssertionError("not recorded: " + name + "#" + generation));
  }

  private List<HttpResponse<String>> postConcurrently(List<String> envelopes) throws Exception {
    List<Future<HttpResponse<String>>> calls = new ArrayList<>();
    for (String envelope : envelopes) {
      calls.add(clients.submit(() -> post(envelope)));
    }
    List<HttpResponse<String>> responses = new ArrayList<>();
    for (Future<HttpResponse<String>> call : calls) {
      responses.add(call.get(2, TimeUnit.MINUTES));
    }
    return responses;
  }

  private HttpResponse<String> post(String envelope) throws IOException, InterruptedException {
    URI push = server.getURI().resolve("/pubsub/push");
    HttpRequest request = HttpRequest.newBuilder(push)
        .timeout(Duration.ofMinutes(2))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(envelope, StandardCharsets.UTF_8))
        .build();
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private static String outcome(HttpResponse<?> response) {
    return response.headers().firstValue(PushController.OUTCOME_HEADER).orElse("");
  }

  private static void dropTrigger(String dbFile) throws SQLException {
    try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dbFile);
        Statement statement = connection.createStatement()) {
      statement.execute("DROP TRIGGER refuse_poison");
    }
  }
}
