package io.files2iceberg.listener;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import io.files2iceberg.core.logging.CloudLoggingLayout;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.listener.push.PushController;
import io.micronaut.core.type.Argument;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.http.client.exceptions.HttpClientResponseException;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The push endpoint end to end: real HTTP posts of real envelope JSON to the embedded server, a
 * SQLite ledger in a temp folder, the bucket in LocalStorageHelper. Every test uses its own
 * partition (or object), so the tests share one server and stay independent of their order.
 *
 * <p>LocalStorageHelper keeps whatever generation a blob is created with (and invents none), so
 * the tests create blobs with an explicit generation, the one their notifications carry.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PushEndpointTest implements TestPropertyProvider {
  private static final String BUCKET = "landing";
  private static final String CLICKS = "local.demo.clicks";
  private static final String EVENTS = "local.demo.events";
  private static final String LOCAL = "local.demo.local_clicks";

  private Path root;

  @Inject
  @Client("/")
  HttpClient client;

  @Inject Ledger ledger;
  @Inject Storage storage;
  @Inject ProfileRegistry profiles;

  @Override
  public Map<String, String> getProperties() {
    try {
      root = Files.createTempDirectory("push-endpoint-test");
      Path config = Files.createDirectories(root.resolve("profiles"));
      Files.writeString(
          config.resolve("clicks.conf"),
          """
          extract {
            path = "gs://landing/raw/clicks/dt=*/*.parquet"
            batch-file {
              partition-type = date
              pattern = ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+"
              date-format = "yyyy-MM-dd"
              strict-pattern = true
            }
          }
          load.iceberg.table = "local.demo.clicks"
          """);
      Files.writeString(
          config.resolve("events.conf"),
          """
          extract {
            path = "gs://landing/raw/events/*/*.json"
            format = json
            batch-file.success-file-filter = false
          }
          load.iceberg.table = "local.demo.events"
          """);
      Files.writeString(
          config.resolve("snapshots.conf"),
          """
          extract {
            path = "gs://landing/raw/snapshots/*/*.parquet"
            batch-file.ingestion-type = full
          }
          load.iceberg.table = "local.demo.snapshots"
          """);
      Files.writeString(
          config.resolve("local_clicks.conf"),
          """
          extract.path = "file://%s/landing/clicks/*/*.parquet"
          load.iceberg.table = "local.demo.local_clicks"
          """
              .formatted(root.toAbsolutePath()));
      Files.writeString(
          config.resolve("lenient.conf"),
          """
          extract {
            path = "gs://landing/raw/lenient/*/*.csv"
            format = csv
            batch-file.pattern = ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/[^/]+"
          }
          load.iceberg.table = "local.demo.lenient"
          """);
      Files.writeString(
          config.resolve("nested.conf"),
          """
          extract {
            path = "gs://landing/raw/nested/*/*.csv"
            format = csv
            recursive-file-lookup = true
          }
          load.iceberg.table = "local.demo.nested"
          """);
      Files.writeString(
          config.resolve("local_nested.conf"),
          """
          extract {
            path = "file://%s/landing/nested/*/*.csv"
            format = csv
            recursive-file-lookup = true
          }
          load.iceberg.table = "local.demo.local_nested"
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
  void deleteTempFolder() throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    }
  }

  @Test
  void newDataFileIsRecordedAndItsPartitionStaysOpen() {
    String name = "raw/clicks/dt=2024-05-01/part-0.parquet";

    HttpResponse<?> response = post(Envelopes.finalized("m-new-1", BUCKET, name, 1001, 2048));

    assertThat(response.code()).isEqualTo(HttpStatus.NO_CONTENT.getCode());
    assertThat(outcome(response)).isEqualTo("recorded");
    FileRecord file = file(BUCKET, name, 1001).orElseThrow();
    assertThat(file.state()).isEqualTo(FileState.RECORDED);
    assertThat(file.table()).isEqualTo(CLICKS);
    assertThat(file.partition()).isEqualTo("2024-05-01");
    assertThat(file.uri()).isEqualTo("gs://landing/" + name);
    assertThat(file.size()).isEqualTo(2048);
    assertThat(file.eventId()).isEqualTo("m-new-1");
    // The eventTime attribute; the ledger keeps times to the millisecond.
    assertThat(file.eventTime()).isEqualTo(Instant.parse("2024-05-01T10:00:01.123Z"));
    assertThat(file.overwroteGeneration()).isEmpty();
    assertThat(partition(CLICKS, "2024-05-01").state()).isEqualTo(PartitionState.OPEN);
  }

  @Test
  void redeliveredNotificationIsAckedAsADuplicateAndRecordedOnce() {
    String name = "raw/clicks/dt=2024-05-03/part-0.parquet";
    String envelope = Envelopes.finalized("m-dup-1", BUCKET, name, 3001, 10);
    double duplicatesBefore = counter("files2iceberg_listener_duplicates_total");
    long filesBefore = filesOf(CLICKS);

    HttpResponse<?> first = post(envelope);
    HttpResponse<?> second = post(envelope);

    assertThat(first.code()).isEqualTo(HttpStatus.NO_CONTENT.getCode());
    assertThat(outcome(first)).isEqualTo("recorded");
    assertThat(second.code()).isEqualTo(HttpStatus.NO_CONTENT.getCode());
    assertThat(outcome(second)).isEqualTo("duplicate");
    assertThat(filesOf(CLICKS)).isEqualTo(filesBefore + 1);
    assertThat(counter("files2iceberg_listener_duplicates_total")).isEqualTo(duplicatesBefore + 1);
  }

  @Test
  void overwriteWithANewGenerationIsASecondFileThatKeepsTheGenerationItReplaced() {
    String name = "raw/clicks/dt=2024-05-04/part-0.parquet";

    post(Envelopes.finalized("m-ow-1", BUCKET, name, 4001, 10));
    HttpResponse<?> overwrite = post(Envelopes.finalized("m-ow-2", BUCKET, name, 4002, 20, 4001L));

    assertThat(outcome(overwrite)).isEqualTo("recorded");
    FileRecord first = file(BUCKET, name, 4001).orElseThrow();
    FileRecord second = file(BUCKET, name, 4002).orElseThrow();
    assertThat(first.fileId()).isNotEqualTo(second.fileId());
    assertThat(first.overwroteGeneration()).isEmpty();
    assertThat(second.overwroteGeneration()).contains(4001L);
    assertThat(second.size()).isEqualTo(20);
    assertThat(second.eventId()).isEqualTo("m-ow-2");
  }

  @Test
  void markerBeforeItsDataFilesListsThePartitionSoItIsReadyWithAllItsFiles() {
    String folder = "raw/clicks/dt=2024-05-05/";
    createBlob(folder + "part-0.parquet", 5001, "aaaa");
    createBlob(folder + "part-1.parquet", 5002, "bbbbbb");
    createBlob(folder + "_SUCCESS", 5003, "");
    createBlob(folder + "part-2.parquet.crc", 5004, "c"); // not data: ignored by the matcher
    createBlob("raw/clicks/dt=2024-05-06/part-0.parquet", 5005, "d"); // another partition
    double listingsBefore = counter("files2iceberg_listener_marker_listings_total");
    double listedBefore = counter("files2iceberg_listener_listed_files_total");

    HttpResponse<?> marker = post(Envelopes.finalized("m-marker-5", BUCKET, folder + "_SUCCESS", 5003, 0));

    assertThat(marker.code()).isEqualTo(HttpStatus.NO_CONTENT.getCode());
    assertThat(outcome(marker)).isEqualTo("partition_ready");
    PartitionRecord partition = partition(CLICKS, "2024-05-05");
    assertThat(partition.state()).isEqualTo(PartitionState.READY);
    assertThat(partition.markerSeen()).isTrue();
    FileRecord part0 = file(BUCKET, folder + "part-0.parquet", 5001).orElseThrow();
    FileRecord part1 = file(BUCKET, folder + "part-1.parquet", 5002).orElseThrow();
    assertThat(List.of(part0.eventId(), part1.eventId())).containsOnly("listing:m-marker-5");
    assertThat(part0.size()).isEqualTo(4);
    assertThat(part1.size()).isEqualTo(6);
    assertThat(part0.state()).isEqualTo(FileState.RECORDED);
    assertThat(file(BUCKET, "raw/clicks/dt=2024-05-06/part-0.parquet", 5005)).isEmpty();
    assertThat(ledger.partition(CLICKS, "2024-05-06")).isEmpty();
    assertThat(counter("files2iceberg_listener_marker_listings_total")).isEqualTo(listingsBefore + 1);
    assertThat(counter("files2iceberg_listener_listed_files_total")).isEqualTo(listedBefore + 2);

    // The data files' own notifications arrive late: same generation, same file.
    HttpResponse<?> late0 = post(Envelopes.finalized("m-late-0", BUCKET, folder + "part-0.parquet", 5001, 4));
    HttpResponse<?> late1 = post(Envelopes.finalized("m-late-1", BUCKET, folder + "part-1.parquet", 5002, 6));

    assertThat(List.of(outcome(late0), outcome(late1))).containsOnly("duplicate");
    assertThat(file(BUCKET, folder + "part-0.parquet", 5001).orElseThrow().eventId())
        .isEqualTo("listing:m-marker-5");
    assertThat(partition(CLICKS, "2024-05-05").state()).isEqualTo(PartitionState.READY);
  }

  @Test
  void markerRedeliveredForAnIngestedPartitionWithNothingPendingIsADuplicate() {
    String folder = "raw/clicks/dt=2024-05-20/";
    createBlob(folder + "part-0.parquet", 20001, "aaaa");
    createBlob(folder + "_SUCCESS", 20002, "");
    String marker = Envelopes.finalized("m-marker-20", BUCKET, folder + "_SUCCESS", 20002, 0);
    assertThat(outcome(post(marker))).isEqualTo("partition_ready");
    ingest(CLICKS);
    assertThat(partition(CLICKS, "2024-05-20").state()).isEqualTo(PartitionState.INGESTED);

    HttpResponse<?> redelivered = post(marker);
    HttpResponse<?> secondMarker =
        post(Envelopes.finalized("m-marker-20b", BUCKET, folder + "_SUCCESS", 20003, 0));

    assertThat(redelivered.code()).isEqualTo(HttpStatus.NO_CONTENT.getCode());
    assertThat(outcome(redelivered)).isEqualTo("duplicate");
    assertThat(secondMarker.code()).isEqualTo(HttpStatus.NO_CONTENT.getCode());
    assertThat(outcome(secondMarker)).isEqualTo("duplicate");
    assertThat(partition(CLICKS, "2024-05-20").state()).isEqualTo(PartitionState.INGESTED);
    assertThat(prometheus())
        .contains("files2iceberg_listener_messages_total{outcome=\"duplicate\",reason=\"partition-ingested\"}");
  }

  @Test
  void markerThatFindsANewFileInAnIngestedPartitionMakesItReadyAgain() {
    String folder = "raw/clicks/dt=2024-05-21/";
    createBlob(folder + "part-0.parquet", 21001, "aaaa");
    createBlob(folder + "_SUCCESS", 21002, "");
    String marker = Envelopes.finalized("m-marker-21", BUCKET, folder + "_SUCCESS", 21002, 0);
    assertThat(outcome(post(marker))).isEqualTo("partition_ready");
    ingest(CLICKS);
    // A late file lands; the marker is redelivered before the file's own notification.
    createBlob(folder + "part-1.parquet", 21003, "bb");

    HttpResponse<?> redelivered = post(marker);

    assertThat(redelivered.code()).isEqualTo(HttpStatus.NO_CONTENT.getCode());
    assertThat(outcome(redelivered)).isEqualTo("partition_ready");
    assertThat(partition(CLICKS, "2024-05-21").state()).isEqualTo(PartitionState.READY);
    assertThat(file(BUCKET, folder + "part-1.parquet", 21003).orElseThrow().state()).isEqualTo(FileState.RECORDED);
  }

  @Test
  void markerForALocalFolderListsItOnDiskWithLastModifiedMicrosAsGenerations() throws IOException {
    Path folder = Files.createDirectories(root.resolve("landing/clicks/day-1"));
    Path data = folder.resolve("part-0.parquet");
    Files.writeString(data, "abc");
    Files.setLastModifiedTime(data, FileTime.from(Instant.parse("2024-05-01T10:00:00.123456Z")));
    Path marker = Files.writeString(folder.resolve("_SUCCESS"), "");
    long dataGeneration = Files.getLastModifiedTime(data).to(TimeUnit.MICROSECONDS);
    // file:// objects come with an empty bucketId and the path without its leading slash.
    String dataName = data.toAbsolutePath().toString().substring(1);
    String markerName = marker.toAbsolutePath().toString().substring(1);

    HttpResponse<?> ready = post(Envelopes.finalized("m-local-marker", "", markerName, 7001, 0));
    HttpResponse<?> late = post(Envelopes.finalized("m-local-data", "", dataName, dataGeneration, 3));

    assertThat(outcome(ready)).isEqualTo("partition_ready");
    assertThat(partition(LOCAL, "day-1").state()).isEqualTo(PartitionState.READY);
    FileRecord file = file("", dataName, dataGeneration).orElseThrow();
    assertThat(file.uri()).isEqualTo("file:///" + dataName);
    assertThat(file.eventId()).isEqualTo("listing:m-local-marker");
    assertThat(file.size()).isEqualTo(3);
    assertThat(outcome(late)).isEqualTo("duplicate");
  }

  @Test
  void withRecursiveFileLookupTheMarkerListingRecordsFilesInSubfoldersIntoThePartition() {
    String folder = "raw/nested/dt=2024-06-01/";
    createBlob(folder + "part-0.csv", 30001, "a");
    createBlob(folder + "sub/part-1.csv", 30002, "bb");
    createBlob(folder + "sub/deeper/part-2.csv", 30003, "ccc");
    createBlob(folder + "_tmp/part-3.csv", 30004, "d"); // a hidden subfolder: not data
    createBlob(folder + "sub/notes.txt", 30005, "e"); // not *.csv
    createBlob(folder + "_SUCCESS", 30006, "");

    HttpResponse<?> marker = post(Envelopes.finalized("m-nested-marker", BUCKET, folder + "_SUCCESS", 30006, 0));
    HttpResponse<?> late = post(Envelopes.finalized("m-nested-late", BUCKET, folder + "sub/part-1.csv", 30002, 2));

    assertThat(outcome(marker)).isEqualTo("partition_ready");
    assertThat(partition("local.demo.nested", "dt=2024-06-01").state()).isEqualTo(PartitionState.READY);
    assertThat(partition("local.demo.nested", "dt=2024-06-01").prefix()).contains("gs://landing/" + folder);
    for (String name : List.of("part-0.csv", "sub/part-1.csv", "sub/deeper/part-2.csv")) {
      FileRecord file = file(BUCKET, folder + name, 30001 + List.of("part-0.csv", "sub/part-1.csv",
          "sub/deeper/part-2.csv").indexOf(name)).orElseThrow(() -> new AssertionError(name + " not recorded"));
      assertThat(file.partition()).as(name).isEqualTo("dt=2024-06-01");
      assertThat(file.eventId()).as(name).isEqualTo("listing:m-nested-marker");
      assertThat(file.uri()).as(name).isEqualTo("gs://landing/" + folder + name);
    }
    assertThat(file(BUCKET, folder + "_tmp/part-3.csv", 30004)).isEmpty();
    assertThat(file(BUCKET, folder + "sub/notes.txt", 30005)).isEmpty();
    assertThat(ledger.partition("local.demo.nested", "dt=2024-06-01/sub")).isEmpty();
    assertThat(outcome(late)).isEqualTo("duplicate");
  }

  @Test
  void withRecursiveFileLookupANestedFileIsRecordedIntoItsPartitionFolder() {
    String name = "raw/nested/dt=2024-06-02/sub/part-0.csv";

    HttpResponse<?> response = post(Envelopes.finalized("m-nested-file", BUCKET, name, 31001, 5));

    assertThat(outcome(response)).isEqualTo("recorded");
    assertThat(file(BUCKET, name, 31001).orElseThrow().partition()).isEqualTo("dt=2024-06-02");
  }

  @Test
  void withoutRecursiveFileLookupANestedFileIsIgnoredSayingWhy() {
    String name = "raw/clicks/dt=2024-06-03/sub/part-0.parquet";
    createBlob("raw/clicks/dt=2024-06-03/part-0.parquet", 32001, "a");
    createBlob(name, 32002, "b");
    createBlob("raw/clicks/dt=2024-06-03/_SUCCESS", 32003, "");

    HttpResponse<?> nested = post(Envelopes.finalized("m-flat-nested", BUCKET, name, 32002, 5));
    HttpResponse<?> marker =
        post(Envelopes.finalized("m-flat-marker", BUCKET, "raw/clicks/dt=2024-06-03/_SUCCESS", 32003, 0));

    assertThat(nested.code()).isEqualTo(HttpStatus.NO_CONTENT.getCode());
    assertThat(outcome(nested)).isEqualTo("ignored");
    assertThat(file(BUCKET, name, 32002)).isEmpty();
    assertThat(outcome(marker)).isEqualTo("partition_ready");
    assertThat(file(BUCKET, "raw/clicks/dt=2024-06-03/part-0.parquet", 32001)).isPresent();
    assertThat(file(BUCKET, name, 32002)).isEmpty();
    assertThat(prometheus()).contains(
        "files2iceberg_listener_messages_total{outcome=\"ignored\",reason=\"in-a-subfolder-of-a-partition-folder\"}");
  }

  @Test
  void withRecursiveFileLookupTheMarkerListsALocalFolderWithItsSubfolders() throws IOException {
    Path folder = Files.createDirectories(root.resolve("landing/nested/day-1"));
    Path direct = Files.writeString(folder.resolve("part-0.csv"), "a");
    Path nested = Files.writeString(Files.createDirectories(folder.resolve("sub/deeper")).resolve("part-1.csv"), "bb");
    Path marker = Files.writeString(folder.resolve("_SUCCESS"), "");
    String markerName = marker.toAbsolutePath().toString().substring(1);

    HttpResponse<?> ready = post(Envelopes.finalized("m-local-nested", "", markerName, 33001, 0));

    assertThat(outcome(ready)).isEqualTo("partition_ready");
    for (Path data : List.of(direct, nested)) {
      String dataName = data.toAbsolutePath().toString().substring(1);
      long generation = Files.getLastModifiedTime(data).to(TimeUnit.MICROSECONDS);
      FileRecord file = file("", dataName, generation).orElseThrow(() -> new AssertionError(data + " not recorded"));
      assertThat(file.partition()).isEqualTo("day-1");
      assertThat(file.eventId()).isEqualTo("listing:m-local-nested");
    }
  }

  @Test
  void withoutSuccessFilterTheFirstFileMakesItsPartitionReady() {
    String name = "raw/events/2024-05-07/events-0.json";

    HttpResponse<?> response = post(Envelopes.finalized("m-events-1", BUCKET, name, 8001, 100));

    assertThat(outcome(response)).isEqualTo("recorded");
    assertThat(partition(EVENTS, "2024-05-07").state()).isEqualTo(PartitionState.READY);
    assertThat(file(BUCKET, name, 8001).orElseThrow().state()).isEqualTo(FileState.RECORDED);
  }

  @Test
  void dataFileWithoutPayloadIsRecordedWithAnUnknownSize() {
    String name = "raw/clicks/dt=2024-05-08/part-0.parquet";
    Map<String, String> attributes = Envelopes.attributes("OBJECT_FINALIZE", BUCKET, name, 9001);
    attributes.put("payloadFormat", "NONE");

    HttpResponse<?> response = post(Envelopes.envelope("m-none-1", attributes, null));

    assertThat(outcome(response)).isEqualTo("recorded");
    assertThat(file(BUCKET, name, 9001).orElseThrow().size()).isEqualTo(-1);
  }

  @Test
  void otherEventTypesAreAckedAndNotRecorded() {
    String name = "raw/clicks/dt=2024-05-09/part-0.parquet";
    for (String eventType : List.of("OBJECT_DELETE", "OBJECT_METADATA_UPDATE", "OBJECT_ARCHIVE", "OBJECT_TELEPORTED")) {
      HttpResponse<?> response =
          post(Envelopes.envelope("m-" + eventType, Envelopes.attributes(eventType, BUCKET, name, 10001), null));

      assertThat(response.code()).as(eventType).isEqualTo(HttpStatus.NO_CONTENT.getCode());
      assertThat(outcome(response)).as(eventType).isEqualTo("ignored");
    }
    assertThat(file(BUCKET, name, 10001)).isEmpty();
    assertThat(ledger.partition(CLICKS, "2024-05-09")).isEmpty();
    assertThat(prometheus())
        .contains("files2iceberg_listener_messages_total{outcome=\"ignored\",reason=\"event-type-object_delete\"}")
        .contains("files2iceberg_listener_messages_total{outcome=\"ignored\",reason=\"event-type-unknown\"}");
  }

  @Test
  void filesAndMarkersOfAFullModeTableAreAckedAndNotRecorded() {
    String folder = "raw/snapshots/2024-05-10/";

    for (String name : List.of(folder + "part-0.parquet", folder + "_SUCCESS")) {
      HttpResponse<?> response = post(Envelopes.finalized("m-full-" + name.length(), BUCKET, name, 12001, 5));

      assertThat(response.code()).as(name).isEqualTo(HttpStatus.NO_CONTENT.getCode());
      assertThat(outcome(response)).as(name).isEqualTo("ignored");
      assertThat(file(BUCKET, name, 12001)).as(name).isEmpty();
    }
    assertThat(ledger.partition("local.demo.snapshots", "2024-05-10")).isEmpty();
    assertThat(prometheus())
        .contains("files2iceberg_listener_messages_total{outcome=\"ignored\",reason=\"table-loaded-by-listing\"}");
  }

  @Test
  void objectMatchingNoProfileIsAckedAndNotRecorded() {
    HttpResponse<?> response = post(Envelopes.finalized("m-nomatch", BUCKET, "elsewhere/x.parquet", 11001, 5));

    assertThat(response.code()).isEqualTo(HttpStatus.NO_CONTENT.getCode());
    assertThat(outcome(response)).isEqualTo("ignored");
    assertThat(file(BUCKET, "elsewhere/x.parquet", 11001)).isEmpty();
    assertThat(prometheus())
        .contains("files2iceberg_listener_messages_total{outcome=\"ignored\",reason=\"matches-no-table-profile\"}");
  }

  @Test
  void bodyThatIsNotJsonIsQuarantinedWithItsRawPayloadAndAcked() {
    String body = "{\"message\": {\"messageId\": \"m-broken\", ";

    HttpResponse<?> response = post(body);

    assertThat(response.code()).isEqualTo(HttpStatus.NO_CONTENT.getCode());
    assertThat(outcome(response)).isEqualTo("quarantined");
    QuarantinedMessage quarantined = quarantinedWithPayload(body);
    assertThat(quarantined.messageId()).startsWith("body-sha256:");
    assertThat(quarantined.reason()).startsWith("the push body is not JSON");
    assertThat(quarantined.objectUri()).isEmpty();
  }

  @Test
  void envelopePostedWithAContentTypeOtherThanJsonIsQuarantinedUnderItsMessageIdAndAcked() {
    String body = Envelopes.finalized("m-text-plain", BUCKET, "raw/clicks/dt=2024-05-12/p.parquet", 12001, 5);

    HttpResponse<?> response = post(body, MediaType.TEXT_PLAIN_TYPE);

    assertThat(response.code()).isEqualTo(HttpStatus.NO_CONTENT.getCode());
    assertThat(outcome(response)).isEqualTo("quarantined");
    QuarantinedMessage quarantined = quarantined("m-text-plain");
    assertThat(quarantined.reason())
        .isEqualTo("the push request of message m-text-plain has content type text/plain, not application/json");
    assertThat(quarantined.rawPayload()).isEqualTo(body);
    assertThat(file(BUCKET, "raw/clicks/dt=2024-05-12/p.parquet", 12001)).isEmpty();
    assertThat(prometheus()).contains("files2iceberg_listener_quarantined_total{reason=\"unsupported-content-type\"}");
  }

  @Test
  void bodyThatIsNotAnEnvelopeWithAContentTypeOtherThanJsonIsQuarantinedUnderItsDigestAndAcked() {
    String body = "<xml>not an envelope</xml>";

    HttpResponse<?> response = post(body, MediaType.APPLICATION_XML_TYPE);

    assertThat(response.code()).isEqualTo(HttpStatus.NO_CONTENT.getCode());
    assertThat(outcome(response)).isEqualTo("quarantined");
    QuarantinedMessage quarantined = quarantinedWithPayload(body);
    assertThat(quarantined.messageId()).startsWith("body-sha256:");
    assertThat(quarantined.reason()).isEqualTo("the push request has content type application/xml, not application/json");
  }

  @Test
  void messageWithoutItsAttributesIsQuarantinedWithTheMissingOneNamed() {
    String body = Envelopes.envelope("m-noattr", Map.of(), Envelopes.base64("{}"));

    HttpResponse<?> response = post(body);

    assertThat(outcome(response)).isEqualTo("quarantined");
    QuarantinedMessage quarantined = quarantined("m-noattr");
    assertThat(quarantined.reason()).isEqualTo("attribute eventType is missing");
    assertThat(quarantined.rawPayload()).isEqualTo(body);
  }

  @Test
  void finalizeWithoutAnObjectGenerationIsQuarantinedNamingTheObject() {
    Map<String, String> attributes =
        Envelopes.attributes("OBJECT_FINALIZE", BUCKET, "raw/clicks/dt=2024-05-10/p.parquet", 1);
    attributes.remove("objectGeneration");

    HttpResponse<?> response = post(Envelopes.envelope("m-nogen", attributes, null));

    assertThat(outcome(response)).isEqualTo("quarantined");
    QuarantinedMessage quarantined = quarantined("m-nogen");
    assertThat(quarantined.reason())
        .isEqualTo("attribute objectGeneration is missing (object gs://landing/raw/clicks/dt=2024-05-10/p.parquet)");
    assertThat(quarantined.objectUri()).contains("gs://landing/raw/clicks/dt=2024-05-10/p.parquet");
  }

  @Test
  void dataThatIsNotBase64IsQuarantinedUnderItsMessageId() {
    String body =
        Envelopes.envelope(
            "m-b64",
            Envelopes.attributes("OBJECT_FINALIZE", BUCKET, "raw/clicks/dt=2024-05-11/p.parquet", 12001),
            "not base64 at all!");

    HttpResponse<?> response = post(body);

    assertThat(response.code()).isEqualTo(HttpStatus.NO_CONTENT.getCode());
    assertThat(outcome(response)).isEqualTo("quarantined");
    QuarantinedMessage quarantined = quarantined("m-b64");
    assertThat(quarantined.reason()).startsWith("message.data of message m-b64 is not base64");
    assertThat(quarantined.rawPayload()).isEqualTo(body);
    assertThat(file(BUCKET, "raw/clicks/dt=2024-05-11/p.parquet", 12001)).isEmpty();
  }

  @Test
  void malformedEnvelopesSharingAMessageIdAreEachQuarantinedAndARepeatedBodyOnce() {
    Map<String, String> attributes =
        Envelopes.attributes("OBJECT_FINALIZE", BUCKET, "raw/clicks/dt=2024-05-13/p.parquet", 13001);
    List<String> bodies =
        List.of(
            "{\"message\": {\"messageId\": \"m-shared\", \"attributes\": \"not an object\"}}",
            "{\"message\": {\"messageId\": \"m-shared\", \"attributes\": {\"eventType\": 7}}}",
            "{\"message\": {\"messageId\": \"m-shared\", \"data\": 42}}",
            Envelopes.envelope("m-shared", attributes, "not base64 at all!"),
            Envelopes.envelope("m-shared", Map.of(), Envelopes.base64("{}")));

    for (String body : bodies) {
      HttpResponse<?> response = post(body);
      assertThat(response.code()).as(body).isEqualTo(HttpStatus.NO_CONTENT.getCode());
      assertThat(outcome(response)).as(body).isEqualTo("quarantined");
    }
    // A redelivery: the same message again, in an envelope that differs only outside the message.
    HttpResponse<?> again = post(bodies.get(3).replace("\"subscription\"", "\"deliveryAttempt\":2,\"subscription\""));
    HttpResponse<?> same = post(bodies.get(0));

    assertThat(outcome(again)).isEqualTo("quarantined");
    assertThat(outcome(same)).isEqualTo("quarantined");
    List<QuarantinedMessage> shared =
        ledger.quarantinedMessages().stream().filter(m -> m.messageId().startsWith("m-shared#")).toList();
    assertThat(shared).extracting(QuarantinedMessage::rawPayload).containsExactlyInAnyOrderElementsOf(bodies);
    assertThat(shared).extracting(QuarantinedMessage::messageId).doesNotHaveDuplicates();
    assertThat(shared)
        .extracting(QuarantinedMessage::reason)
        .containsExactlyInAnyOrder(
            "message.attributes of message m-shared is not an object",
            "attribute eventType of message m-shared is not a string",
            "message.data of message m-shared is not a string",
            "message.data of message m-shared is not base64: Illegal base64 character 20",
            "attribute eventType is missing");
  }

  @Test
  void dataFileViolatingTheStrictPatternIsQuarantined() {
    String name = "raw/clicks/dt=latest/part-0.parquet";

    HttpResponse<?> response = post(Envelopes.finalized("m-strict", BUCKET, name, 13001, 10));

    assertThat(response.code()).isEqualTo(HttpStatus.NO_CONTENT.getCode());
    assertThat(outcome(response)).isEqualTo("quarantined");
    QuarantinedMessage quarantined = quarantined("m-strict");
    assertThat(quarantined.reason())
        .startsWith("profile \"clicks\": gs://landing/" + name + " does not match extract.batch-file.pattern");
    assertThat(quarantined.objectUri()).contains("gs://landing/" + name);
    assertThat(file(BUCKET, name, 13001)).isEmpty();
    assertThat(prometheus())
        .contains("files2iceberg_listener_quarantined_total{reason=\"rejected-by-matcher\"}");
  }

  @Test
  void dataFileMissingTheNonStrictPatternIsQuarantinedWithAWarningCounter() {
    String name = "raw/lenient/latest/part-0.csv";
    String counter = "files2iceberg_listener_pattern_mismatches_total{table=\"local.demo.lenient\"}";
    double before = counterWithLabels(counter);

    HttpResponse<?> response = post(Envelopes.finalized("m-lenient", BUCKET, name, 13501, 10));

    assertThat(response.code()).isEqualTo(HttpStatus.NO_CONTENT.getCode());
    assertThat(outcome(response)).isEqualTo("quarantined");
    QuarantinedMessage quarantined = quarantined("m-lenient");
    assertThat(quarantined.reason())
        .isEqualTo("profile \"lenient\": gs://landing/" + name + " does not match extract.batch-file.pattern"
            + " \".+/dt=(\\d{4}-\\d{2}-\\d{2})/[^/]+\" (strict-pattern off)");
    assertThat(quarantined.objectUri()).contains("gs://landing/" + name);
    assertThat(file(BUCKET, name, 13501)).isEmpty();
    assertThat(counterWithLabels(counter)).isEqualTo(before + 1);
    assertThat(prometheus()).contains("files2iceberg_listener_quarantined_total{reason=\"pattern-mismatch\"}");
  }

  @Test
  void dataFileWhoseDateDoesNotParseIsQuarantined() {
    String name = "raw/clicks/dt=2024-02-30/part-0.parquet";

    HttpResponse<?> response = post(Envelopes.finalized("m-baddate", BUCKET, name, 14001, 10));

    assertThat(outcome(response)).isEqualTo("quarantined");
    assertThat(quarantined("m-baddate").reason()).contains("does not parse with extract.batch-file.date-format");
  }

  @Test
  void lockedLedgerGets503AndTheRedeliveryIsRecordedOnce() throws Exception {
    String name = "raw/clicks/dt=2024-05-12/part-0.parquet";
    String envelope = Envelopes.finalized("m-locked", BUCKET, name, 15001, 10);
    String dbFile = profiles.deployment().ledger().sqlitePath();

    HttpResponse<?> whileLocked;
    try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + dbFile);
        Statement statement = other.createStatement()) {
      statement.execute("BEGIN IMMEDIATE");
      whileLocked = post(envelope);
      statement.execute("ROLLBACK");
    }
    HttpResponse<?> redelivered = post(envelope);
    HttpResponse<?> again = post(envelope);

    assertThat(whileLocked.code()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE.getCode());
    assertThat(outcome(whileLocked)).isEqualTo("retry");
    assertThat(redelivered.code()).isEqualTo(HttpStatus.NO_CONTENT.getCode());
    assertThat(outcome(redelivered)).isEqualTo("recorded");
    assertThat(outcome(again)).isEqualTo("duplicate");
    assertThat(file(BUCKET, name, 15001).orElseThrow().eventId()).isEqualTo("m-locked");
    assertThat(prometheus())
        .contains("files2iceberg_listener_messages_total{outcome=\"retry\",reason=\"ledger-unavailable\"}");
  }

  @Test
  void healthIsUpWhileTheLedgerAnswers() {
    HttpResponse<String> response =
        client.toBlocking().exchange(HttpRequest.GET("/health"), Argument.of(String.class));

    assertThat(response.code()).isEqualTo(HttpStatus.OK.getCode());
    // No details by default: ListenerApplication shows them where it binds loopback only (BindAddressTest).
    assertThat(response.body()).contains("\"status\":\"UP\"").doesNotContain("\"ledger\"");
  }

  @Test
  void prometheusShowsTheOutcomeCountersAndTheLedgerWriteTimer() {
    post(Envelopes.finalized("m-prom", BUCKET, "raw/clicks/dt=2024-05-13/part-0.parquet", 16001, 10));

    // The ledger-write timer: by operation and table, with histogram buckets.
    assertThat(prometheus())
        .contains("files2iceberg_listener_messages_total{outcome=\"recorded\",reason=\"new-file\"}")
        .contains("files2iceberg_listener_ledger_writes_seconds_count{operation=\"record-file\",table=\"" + CLICKS
            + "\"}")
        .contains("files2iceberg_listener_ledger_writes_seconds_bucket{operation=\"record-file\",table=\"" + CLICKS
            + "\",le=\"0.1\"}")
        .contains("files2iceberg_listener_ledger_writes_seconds_bucket{operation=\"record-file\",table=\"" + CLICKS
            + "\",le=\"+Inf\"}");
  }

  @Test
  void jsonLogLinesCarryThePushRequestsTraceAndTheMessagesLabels() throws Exception {
    String name = "raw/clicks/dt=2024-05-14/part-0.parquet";
    ch.qos.logback.classic.Logger root = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(
        org.slf4j.Logger.ROOT_LOGGER_NAME);
    java.io.ByteArrayOutputStream stdout = new java.io.ByteArrayOutputStream();
    ch.qos.logback.core.OutputStreamAppender<ch.qos.logback.classic.spi.ILoggingEvent> json =
        new ch.qos.logback.core.OutputStreamAppender<>();
    CloudLoggingLayout layout = new CloudLoggingLayout();
    layout.setProject("demo-project");
    layout.setContext(root.getLoggerContext());
    layout.start();
    ch.qos.logback.core.encoder.LayoutWrappingEncoder<ch.qos.logback.classic.spi.ILoggingEvent> encoder =
        new ch.qos.logback.core.encoder.LayoutWrappingEncoder<>();
    encoder.setLayout(layout);
    encoder.setContext(root.getLoggerContext());
    encoder.start();
    json.setEncoder(encoder);
    json.setOutputStream(stdout);
    json.setContext(root.getLoggerContext());
    json.start();
    root.addAppender(json);
    HttpResponse<?> response;
    try {
      response = post(Envelopes.finalized("m-trace", BUCKET, name, 17001, 10), MediaType.APPLICATION_JSON_TYPE,
          Map.of("X-Cloud-Trace-Context", "4bf92f3577b34da6a3ce929d0e0e4736/12345678901234567;o=1"));
    } finally {
      root.detachAppender(json);
      json.stop();
    }

    assertThat(outcome(response)).isEqualTo("recorded");
    com.fasterxml.jackson.databind.ObjectMapper mapper = new com.fasterxml.jackson.databind.ObjectMapper();
    List<com.fasterxml.jackson.databind.JsonNode> lines = new java.util.ArrayList<>();
    for (String line : stdout.toString(StandardCharsets.UTF_8).split("\n")) {
      lines.add(mapper.readTree(line));
    }
    com.fasterxml.jackson.databind.JsonNode recorded = lines.stream()
        .filter(line -> line.get("message").asText().startsWith("Message m-trace for gs://landing/" + name))
        .findFirst().orElseThrow(() -> new AssertionError("no line of the message in " + lines));
    assertThat(recorded.get("severity").asText()).isEqualTo("INFO");
    assertThat(recorded.get("logging.googleapis.com/trace").asText())
        .isEqualTo("projects/demo-project/traces/4bf92f3577b34da6a3ce929d0e0e4736");
    // 12345678901234567 in hex, as Cloud Logging wants the span.
    assertThat(recorded.get("logging.googleapis.com/spanId").asText()).isEqualTo("002bdc545d6b4b87");
    assertThat(recorded.get("logging.googleapis.com/trace_sampled").asBoolean()).isTrue();
    com.fasterxml.jackson.databind.JsonNode labels = recorded.get("logging.googleapis.com/labels");
    assertThat(labels.get("table").asText()).isEqualTo(CLICKS);
    assertThat(labels.get("partition").asText()).isEqualTo("2024-05-14");
    assertThat(labels.get("object_uri").asText()).isEqualTo("gs://landing/" + name);
    assertThat(labels.get("message_id").asText()).isEqualTo("m-trace");
    assertThat(recorded.has("traceId")).isFalse();
  }

  // --- helpers ----------------------------------------------------------------------------------

  /** Claims and commits every READY partition of the table, as a batch and its job would. */
  private void ingest(String table) {
    Optional<BatchRecord> batch;
    while ((batch = ledger.claimPartitions(new ClaimPartitions(table, 1000, Duration.ofMinutes(5), true)))
        .isPresent()) {
      ledger.markRunning(batch.get().batchId(), Duration.ofMinutes(5));
      ledger.commitBatch(new CommitBatch(batch.get().batchId(), 1L, BatchMetrics.EMPTY));
    }
  }

  private HttpResponse<?> post(String body) {
    return post(body, MediaType.APPLICATION_JSON_TYPE);
  }

  private HttpResponse<?> post(String body, MediaType contentType) {
    return post(body, contentType, Map.of());
  }

  private HttpResponse<?> post(String body, MediaType contentType, Map<String, String> headers) {
    try {
      return client.toBlocking().exchange(HttpRequest.POST("/pubsub/push", body).contentType(contentType)
          .headers(h -> headers.forEach(h::add)));
    } catch (HttpClientResponseException e) {
      return e.getResponse();
    }
  }

  private static String outcome(HttpResponse<?> response) {
    return response.header(PushController.OUTCOME_HEADER);
  }

  private String prometheus() {
    return client.toBlocking().retrieve(HttpRequest.GET("/prometheus"));
  }

  /** The value of an unlabelled counter in /prometheus, 0 when absent. */
  private double counter(String name) {
    return prometheus()
        .lines()
        .filter(line -> line.startsWith(name + " "))
        .mapToDouble(line -> Double.parseDouble(line.substring(name.length() + 1).trim()))
        .findFirst()
        .orElse(0);
  }

  /** The value of a counter in /prometheus given with its labels, 0 when absent. */
  private double counterWithLabels(String nameAndLabels) {
    return prometheus()
        .lines()
        .filter(line -> line.startsWith(nameAndLabels + " "))
        .mapToDouble(line -> Double.parseDouble(line.substring(nameAndLabels.length() + 1).trim()))
        .findFirst()
        .orElse(0);
  }

  private void createBlob(String name, long generation, String content) {
    storage.create(
        BlobInfo.newBuilder(BlobId.of(BUCKET, name, generation)).build(),
        content.getBytes(StandardCharsets.UTF_8));
  }

  private Optional<FileRecord> file(String bucket, String name, long generation) {
    return ledger.file(LedgerSchema.fileId(bucket, name, generation));
  }

  /** How many files the ledger holds for the table, in any state. */
  private long filesOf(String table) {
    return ledger.tableStatus(table).filesByState().values().stream().mapToLong(Long::longValue).sum();
  }

  private PartitionRecord partition(String table, String partition) {
    return ledger.partition(table, partition).orElseThrow();
  }

  /** The one record of a message: its id, with the digest of its content when it was unreadable. */
  private QuarantinedMessage quarantined(String messageId) {
    return ledger.quarantinedMessages().stream()
        .filter(m -> m.messageId().equals(messageId) || m.messageId().startsWith(messageId + "#sha256:"))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no quarantine record for " + messageId));
  }

  private QuarantinedMessage quarantinedWithPayload(String payload) {
    return ledger.quarantinedMessages().stream()
        .filter(m -> m.rawPayload().equals(payload))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no quarantine record with payload " + payload));
  }
}
