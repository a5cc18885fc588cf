package io.files2iceberg.listener.handle;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.listener.handle.ObjectListing.ListingFailedException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The handler's failure paths that HTTP tests cannot provoke with LocalStorageHelper: a listing
 * that fails (transiently or for good) and a quarantine write on a locked ledger. The listing
 * port is stood in by a lambda that fails as Cloud Storage would; the ledger is real SQLite.
 */
class NotificationHandlerTest {
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2024-05-01T12:00:00Z"), ZoneOffset.UTC);
  private static final String TABLE = "local.demo.clicks";
  private static final String MARKER = "raw/clicks/dt=2024-05-01/_SUCCESS";

  @TempDir Path dir;
  private ProfileRegistry profiles;
  private Ledger ledger;
  private SimpleMeterRegistry meters;

  @BeforeEach
  void loadProfilesAndOpenLedger() throws Exception {
    Files.writeString(
        dir.resolve("clicks.conf"),
        """
        extract.path = "gs://landing/raw/clicks/dt=*/*.parquet"
        extract.batch-file.pattern = ".+/dt=([^/]+)/.+"
        load.iceberg.table = "local.demo.clicks"
        """);
    profiles = ProfileRegistry.load(dir.resolve("clicks.conf"), new Home(dir.resolve("home")));
    ledger = SqliteLedger.open(dir.resolve("home/ledger.db"), CLOCK, Duration.ofMillis(200));
    meters = new SimpleMeterRegistry();
  }

  @AfterEach
  void closeLedger() {
    ledger.close();
  }

  @Test
  void retryableListingFailureIsRetriedAndLeavesThePartitionUntouched() {
    NotificationHandler handler =
        handler((object, subfolders) -> {
          throw new ListingFailedException("listing gs://landing/raw/ failed (503): backend error", true, null);
        });

    Outcome outcome = handler.handle(marker("m-1"));

    assertThat(outcome).isEqualTo(Outcome.RETRY);
    assertThat(outcome.isAck()).isFalse();
    assertThat(ledger.partition(TABLE, "2024-05-01")).isEmpty();
    assertThat(ledger.quarantinedMessages()).isEmpty();
    assertThat(count("retry", "listing-unavailable")).isEqualTo(1);
  }

  @Test
  void listingThatCanNeverSucceedQuarantinesTheMarkerWithoutMakingThePartitionReady() {
    NotificationHandler handler =
        handler((object, subfolders) -> {
          throw new ListingFailedException("listing gs://landing/raw/ failed (403): forbidden", false, null);
        });

    Outcome outcome = handler.handle(marker("m-2"));

    assertThat(outcome).isEqualTo(Outcome.QUARANTINED);
    assertThat(outcome.isAck()).isTrue();
    assertThat(ledger.partition(TABLE, "2024-05-01")).isEmpty();
    QuarantinedMessage quarantined = ledger.quarantinedMessages().get(0);
    assertThat(quarantined.messageId()).isEqualTo("m-2");
    assertThat(quarantined.reason()).isEqualTo("listing gs://landing/raw/ failed (403): forbidden");
    assertThat(quarantined.objectUri()).contains("gs://landing/" + MARKER);
    assertThat(quarantined.rawPayload()).isEqualTo("raw m-2");
  }

  @Test
  void unclassifiedFailureIsRetriedRatherThanQuarantined() {
    NotificationHandler handler =
        handler((object, subfolders) -> {
          throw new IllegalStateException("a bug");
        });

    assertThat(handler.handle(marker("m-3"))).isEqualTo(Outcome.RETRY);
    assertThat(ledger.quarantinedMessages()).isEmpty();
    assertThat(count("retry", "unexpected-error")).isEqualTo(1);
  }

  @Test
  void listedFileWithTheMarkerOnlyCountsFilesOfItsOwnPartition() {
    NotificationHandler handler =
        handler((object, subfolders) ->
            List.of(
                listed("raw/clicks/dt=2024-05-01/a.parquet", 11, 5),
                listed("raw/clicks/dt=2024-05-01/empty.parquet", 12, 0),
                listed(MARKER, 13, 0)));

    assertThat(handler.handle(marker("m-4"))).isEqualTo(Outcome.PARTITION_READY);

    assertThat(ledger.file(LedgerSchema.fileId("landing", "raw/clicks/dt=2024-05-01/a.parquet", 11)))
        .hasValueSatisfying(file -> assertThat(file.eventId()).isEqualTo("listing:m-4"));
    assertThat(ledger.file(LedgerSchema.fileId("landing", "raw/clicks/dt=2024-05-01/empty.parquet", 12))).isEmpty();
    assertThat(ledger.file(LedgerSchema.fileId("landing", MARKER, 13))).isEmpty();
  }

  @Test
  void quarantineOnALockedLedgerIsRetried() throws Exception {
    NotificationHandler handler = handler((object, subfolders) -> List.of());

    Outcome outcome;
    try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("home/ledger.db"));
        Statement statement = other.createStatement()) {
      statement.execute("BEGIN IMMEDIATE");
      outcome = handler.handleUnreadable("m-5", QuarantineReason.MALFORMED_ENVELOPE, "not JSON", "{");
      statement.execute("ROLLBACK");
    }

    assertThat(outcome).isEqualTo(Outcome.RETRY);
    assertThat(handler.handleUnreadable("m-5", QuarantineReason.MALFORMED_ENVELOPE, "not JSON", "{"))
        .isEqualTo(Outcome.QUARANTINED);
    assertThat(ledger.quarantinedMessages()).extracting(QuarantinedMessage::messageId).containsExactly("m-5");
  }

  @Test
  void unreadableNotificationsSharingAMessageIdAreKeptApartAndARedeliveryOnce() {
    NotificationHandler handler = handler((object, subfolders) -> List.of());
    Map<String, String> noGeneration = new LinkedHashMap<>(marker("m-7").attributes());
    noGeneration.remove("objectGeneration");
    Map<String, String> badGeneration = new LinkedHashMap<>(marker("m-7").attributes());
    badGeneration.put("objectGeneration", "seven");

    handler.handle(new ReceivedMessage("m-7", noGeneration, new byte[0], Optional.empty(), "delivery 1"));
    handler.handle(new ReceivedMessage("m-7", badGeneration, new byte[0], Optional.empty(), "other body"));
    // Pulled again: the same message, with another delivery attempt in its rendered envelope.
    Outcome redelivered =
        handler.handle(new ReceivedMessage("m-7", noGeneration, new byte[0], Optional.empty(), "delivery 2"));

    assertThat(redelivered).isEqualTo(Outcome.QUARANTINED);
    assertThat(ledger.quarantinedMessages())
        .extracting(QuarantinedMessage::rawPayload)
        .containsExactlyInAnyOrder("delivery 1", "other body");
    assertThat(ledger.quarantinedMessages())
        .extracting(QuarantinedMessage::messageId)
        .allMatch(key -> key.matches("m-7#sha256:[0-9a-f]{16}"));
  }

  private NotificationHandler handler(ObjectListing listing) {
    return new NotificationHandler(ledger, profiles, listing, meters, CLOCK);
  }

  private static ReceivedMessage marker(String messageId) {
    Map<String, String> attributes = new LinkedHashMap<>();
    attributes.put("eventType", "OBJECT_FINALIZE");
    attributes.put("bucketId", "landing");
    attributes.put("objectId", MARKER);
    attributes.put("objectGeneration", "7");
    attributes.put("payloadFormat", "NONE");
    return new ReceivedMessage(messageId, attributes, new byte[0], Optional.empty(), "raw " + messageId);
  }

  private static ObjectListing.ListedObject listed(String name, long generation, long size) {
    return new ObjectListing.ListedObject(
        io.files2iceberg.core.match.ObjectLocation.gs("landing", name), generation, size, Optional.empty());
  }

  private double count(String outcome, String reason) {
    return meters.counter("files2iceberg.listener.messages", "outcome", outcome, "reason", reason).count();
  }
}
