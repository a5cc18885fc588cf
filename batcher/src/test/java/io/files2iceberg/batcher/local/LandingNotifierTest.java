package io.files2iceberg.batcher.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.files2iceberg.batcher.local.LandingNotifier.Outcome;
import io.files2iceberg.batcher.local.LandingNotifier.ScanResult;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The notifier against a push endpoint on a real HTTP server that answers as the listener does
 * (outcome header, 204, 503): the envelopes it posts, their order, and what it posts again. The
 * end-to-end tests post to the listener itself.
 */
class LandingNotifierTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path landing;
  private HttpServer server;
  private final List<JsonNode> posted = Collections.synchronizedList(new ArrayList<>());
  /** Replies to come, by status; 204 once they run out. */
  private final List<Integer> replies = Collections.synchronizedList(new ArrayList<>());
  private final AtomicInteger requests = new AtomicInteger();
  private LandingNotifier notifier;

  @BeforeEach
  void startEndpoint() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/pubsub/push", exchange -> {
      requests.incrementAndGet();
      byte[] body = exchange.getRequestBody().readAllBytes();
      int status = replies.isEmpty() ? 204 : replies.remove(0);
      if (status == 204) {
        JsonNode envelope = JSON.readTree(body);
        posted.add(envelope);
        String name = envelope.at("/message/attributes/objectId").asText();
        exchange.getResponseHeaders().add("X-Files2iceberg-Outcome",
            name.endsWith("_SUCCESS") ? "partition_ready" : "recorded");
      }
      exchange.sendResponseHeaders(status, -1);
      exchange.close();
    });
    server.start();
    URI push = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/pubsub/push");
    notifier = new LandingNotifier(landing, push, Set.of("_SUCCESS"), Clock.systemUTC());
  }

  @AfterEach
  void stopEndpoint() {
    server.stop(0);
  }

  /** A file last modified a while ago, so that it counts as settled. */
  private Path file(String relative, String content) throws IOException {
    Path file = landing.resolve(relative);
    Files.createDirectories(file.getParent());
    Files.writeString(file, content);
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().minusSeconds(60)));
    return file;
  }

  private static String objectId(JsonNode envelope) {
    return envelope.at("/message/attributes/objectId").asText();
  }

  @Test
  void postsTheEnvelopeOfAnObjectFinalizeOfALocalFile() throws Exception {
    Path file = file("clicks/dt=2026-11-27/part-0.json", "{\"click_id\":\"c1\"}\n");
    long generation = Files.getLastModifiedTime(file).to(TimeUnit.MICROSECONDS);

    ScanResult result = notifier.scan();

    assertThat(result.count(Outcome.RECORDED)).isEqualTo(1);
    JsonNode envelope = posted.get(0);
    JsonNode attributes = envelope.at("/message/attributes");
    String name = file.toAbsolutePath().toString().substring(1);
    assertThat(attributes.get("eventType").asText()).isEqualTo("OBJECT_FINALIZE");
    assertThat(attributes.get("bucketId").asText()).isEmpty();
    assertThat(attributes.get("objectId").asText()).isEqualTo(name);
    assertThat(attributes.get("objectGeneration").asText()).isEqualTo(Long.toString(generation));
    assertThat(attributes.get("payloadFormat").asText()).isEqualTo("JSON_API_V1");
    assertThat(attributes.get("notificationConfig").asText())
        .isEqualTo("projects/_/buckets/local/notificationConfigs/files2iceberg-local");
    assertThat(Instant.parse(attributes.get("eventTime").asText()))
        .isEqualTo(Files.getLastModifiedTime(file).toInstant());
    assertThat(envelope.at("/message/messageId").asText()).startsWith("local-").hasSize("local-".length() + 16);
    assertThat(Instant.parse(envelope.at("/message/publishTime").asText())).isBefore(Instant.now().plusSeconds(1));
    assertThat(envelope.get("subscription").asText()).isEqualTo("projects/_/subscriptions/files2iceberg-local");

    JsonNode resource = JSON.readTree(Base64.getDecoder().decode(envelope.at("/message/data").asText()));
    assertThat(resource.get("bucket").asText()).isEmpty();
    assertThat(resource.get("name").asText()).isEqualTo(name);
    assertThat(resource.get("generation").asText()).isEqualTo(Long.toString(generation));
    assertThat(resource.get("size").asText()).isEqualTo(Long.toString(Files.size(file)));
    assertThat(resource.get("contentType").asText()).isEqualTo("application/json");
    assertThat(Instant.parse(resource.get("updated").asText())).isEqualTo(Files.getLastModifiedTime(file).toInstant());
  }

  @Test
  void dataFilesArePostedBeforeMarkers() throws Exception {
    file("clicks/dt=2026-11-27/_SUCCESS", "");
    file("clicks/dt=2026-11-27/part-0.json", "{}\n");
    file("clicks/dt=2026-11-28/part-0.json", "{}\n");

    ScanResult result = notifier.scan();

    assertThat(posted.stream().map(LandingNotifierTest::objectId).map(id -> id.substring(id.indexOf("clicks/"))))
        .containsExactly("clicks/dt=2026-11-27/part-0.json", "clicks/dt=2026-11-28/part-0.json",
            "clicks/dt=2026-11-27/_SUCCESS");
    assertThat(result.markers()).isEqualTo(1);
    assertThat(result.describe()).isEqualTo("3 notifications (1 marker): 2 recorded, 1 partition_ready");
  }

  @Test
  void aDeliveredFileIsNotPostedAgainUntilItsGenerationChanges() throws Exception {
    Path file = file("a/part-0.json", "{}\n");
    notifier.scan();

    assertThat(notifier.scan().isQuiet()).isTrue();

    Files.setLastModifiedTime(file, FileTime.from(Instant.now().minusSeconds(30)));
    ScanResult again = notifier.scan();
    assertThat(again.posted()).isEqualTo(1);
    assertThat(posted).hasSize(2);
    assertThat(posted.get(1).at("/message/attributes/objectGeneration").asText())
        .isNotEqualTo(posted.get(0).at("/message/attributes/objectGeneration").asText());
    assertThat(posted.get(1).at("/message/messageId").asText())
        .isNotEqualTo(posted.get(0).at("/message/messageId").asText());
  }

  @Test
  void aFileStillBeingWrittenWaitsForTheNextScan() throws Exception {
    Path file = landing.resolve("a/part-0.json");
    Files.createDirectories(file.getParent());
    Files.writeString(file, "{}\n");

    ScanResult first = notifier.scan();
    assertThat(first.posted()).isZero();
    assertThat(first.unsettled()).isEqualTo(1);
    assertThat(first.isQuiet()).isFalse();

    assertThat(first.nextSettle()).contains(Files.getLastModifiedTime(file).toInstant().plus(LandingNotifier.SETTLE));

    // Unchanged since the last scan: settled.
    ScanResult second = notifier.scan();
    assertThat(second.posted()).isEqualTo(1);
    assertThat(second.nextSettle()).isEmpty();
  }

  @Test
  void aMarkerIsPostedAsSoonAsItIsSeenWhileADataFileBesideItSettlesFirst() throws Exception {
    Path data = landing.resolve("clicks/dt=2026-11-27/part-0.json");
    Files.createDirectories(data.getParent());
    Files.writeString(data, "{}\n");
    Files.writeString(data.resolveSibling("_SUCCESS"), "");

    ScanResult first = notifier.scan();

    // The marker's content is never read: it goes at once, and the listener lists its folder.
    assertThat(posted).extracting(LandingNotifierTest::objectId).singleElement()
        .satisfies(id -> assertThat(id).endsWith("clicks/dt=2026-11-27/_SUCCESS"));
    assertThat(first.count(Outcome.PARTITION_READY)).isEqualTo(1);
    assertThat(first.unsettled()).isEqualTo(1);
    assertThat(first.nextSettle()).contains(Files.getLastModifiedTime(data).toInstant().plus(LandingNotifier.SETTLE));
    assertThat(notifier.scan().posted()).isEqualTo(1);
    assertThat(posted).extracting(LandingNotifierTest::objectId).last()
        .satisfies(id -> assertThat(id).endsWith("clicks/dt=2026-11-27/part-0.json"));
  }

  @Test
  void hiddenFilesAndFoldersAreNotPosted() throws Exception {
    file(".staging/part-0.json", "{}\n");
    file("a/.part-0.json.crc", "x");
    file("a/part-0.json", "{}\n");

    notifier.scan();

    assertThat(posted).hasSize(1);
    assertThat(objectId(posted.get(0))).endsWith("a/part-0.json");
  }

  @Test
  void unavailableListenerIsRetriedWithBackoff() throws Exception {
    file("a/part-0.json", "{}\n");
    replies.addAll(List.of(503, 503));

    ScanResult result = notifier.scan();

    assertThat(requests.get()).isEqualTo(3);
    assertThat(result.posted()).isEqualTo(1);
    assertThat(result.pending()).isZero();
  }

  @Test
  void notificationNeverAcknowledgedIsPostedAgainByTheNextScan() throws Exception {
    file("a/part-0.json", "{}\n");
    replies.addAll(List.of(503, 503, 503, 503, 503));

    ScanResult first = notifier.scan();
    assertThat(first.posted()).isZero();
    assertThat(first.pending()).isEqualTo(1);
    assertThat(first.describe()).isEqualTo("0 notifications; 1 not acknowledged yet");

    assertThat(notifier.scan().posted()).isEqualTo(1);
    assertThat(posted).hasSize(1);
  }

  @Test
  void refusedNotificationStopsTheNotifierNamingTheFile() throws Exception {
    Path file = file("a/part-0.json", "{}\n");
    replies.add(401);

    assertThatThrownBy(notifier::scan)
        .isInstanceOf(NotifierException.class)
        .hasMessageContaining("refused the notification of file://" + file.toAbsolutePath())
        .hasMessageContaining("with 401");
  }

  @Test
  void messageIdIsStableForOneGeneration() {
    var location = io.files2iceberg.core.match.ObjectLocation.file(Path.of("/landing/a/part-0.json"));

    assertThat(LandingNotifier.messageId(location, 42)).isEqualTo(LandingNotifier.messageId(location, 42));
    assertThat(LandingNotifier.messageId(location, 42)).isNotEqualTo(LandingNotifier.messageId(location, 43));
  }

  @Test
  void missingLandingFolderIsEmpty() throws Exception {
    LandingNotifier absent = new LandingNotifier(landing.resolve("nope"), URI.create("http://127.0.0.1:9/"),
        Set.of("_SUCCESS"), Clock.systemUTC());

    assertThat(absent.scan().isQuiet()).isTrue();
  }
}
