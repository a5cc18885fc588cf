package io.files2iceberg.batcher.quarantine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.NoCredentials;
import com.google.cloud.ServiceOptions;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import com.google.cloud.storage.contrib.nio.testing.LocalStorageHelper;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import io.files2iceberg.core.ledger.memory.InMemoryLedgerStore;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Releasing quarantined messages about GCS objects, against an in-memory Cloud Storage. */
class MessageReleaseTest {
  private static final String TABLE = "local.test.clicks";

  @TempDir Path dir;
  private final Storage storage = LocalStorageHelper.getOptions().getService();
  private Ledger ledger;
  private MessageRelease release;

  @BeforeEach
  void open() throws Exception {
    Files.writeString(dir.resolve("clicks.conf"), """
        extract {
          path = "gs://bucket/raw/clicks/dt=*/*.csv"
          format = csv
          batch-file {
            partition-type = date
            pattern = ".+/dt=([^/]+)/.+"
            date-format = "yyyy-MM-dd"
          }
        }
        load.iceberg.table = "local.test.clicks"
        """);
    Home home = new Home(dir.resolve("home"));
    ledger = InMemoryLedgerStore.ledger(Clock.systemUTC());
    release = new MessageRelease(ledger, ProfileRegistry.load(dir.resolve("clicks.conf"), home), () -> storage);
  }

  @AfterEach
  void close() {
    ledger.close();
  }

  private void object(String name, long generation) {
    storage.create(BlobInfo.newBuilder(BlobId.of("bucket", name, generation)).build(),
        "id\n1\n".getBytes(StandardCharsets.UTF_8));
  }

  private void quarantined(String messageId, String objectUri) {
    ledger.quarantineMessage(new QuarantinedMessage(messageId, "listing failed", "{}", Optional.of(objectUri),
        Instant.parse("2026-11-30T12:00:00Z")));
  }

  @Test
  void markerMessageRecordsTheFolderFromStorageThenMarksThePartitionReady() {
    object("raw/clicks/dt=2026-11-28/part-0.csv", 11);
    object("raw/clicks/dt=2026-11-28/part-1.csv", 12);
    object("raw/clicks/dt=2026-11-28/_SUCCESS", 13);
    object("raw/clicks/dt=2026-11-29/part-0.csv", 14);
    quarantined("m-1", "gs://bucket/raw/clicks/dt=2026-11-28/_SUCCESS");

    MessageRelease.Released dry = release.release("m-1", false, true);
    assertThat(dry.action()).isEqualTo("would record the 2 data file(s) of gs://bucket/raw/clicks/dt=2026-11-28/ the"
        + " ledger does not know yet and mark table " + TABLE + " partition 2026-11-28 READY");
    assertThat(ledger.tables()).isEmpty();

    MessageRelease.Released done = release.release("m-1", false, false);

    assertThat(done.action()).isEqualTo("recorded 2 new data file(s) of gs://bucket/raw/clicks/dt=2026-11-28/; table "
        + TABLE + " partition 2026-11-28 is READY");
    List<FileRecord> files = ledger.filesOfPartition(TABLE, "2026-11-28");
    assertThat(files).extracting(FileRecord::uri).containsExactly(
        "gs://bucket/raw/clicks/dt=2026-11-28/part-0.csv", "gs://bucket/raw/clicks/dt=2026-11-28/part-1.csv");
    assertThat(files).extracting(FileRecord::generation).containsExactly(11L, 12L);
    assertThat(files).extracting(FileRecord::eventId).containsOnly("listing:m-1");
    assertThat(ledger.partition(TABLE, "2026-11-28").orElseThrow().state()).isEqualTo(PartitionState.READY);
    assertThat(ledger.partition(TABLE, "2026-11-29")).isEmpty();
    assertThat(ledger.quarantinedMessages()).isEmpty();
  }

  @Test
  void dataFileMessageIsRecordedWithItsGenerationFromStorage() {
    object("raw/clicks/dt=2026-11-28/part-0.csv", 42);
    quarantined("m-2", "gs://bucket/raw/clicks/dt=2026-11-28/part-0.csv");

    assertThat(release.release("m-2", false, false).action()).isEqualTo("recorded gs://bucket/raw/clicks/dt=2026-11-28/"
        + "part-0.csv generation 42 in table " + TABLE + " partition 2026-11-28 (OPEN)");
    assertThat(ledger.filesNamed("bucket", "raw/clicks/dt=2026-11-28/part-0.csv")).singleElement()
        .satisfies(file -> assertThat(file.eventId()).isEqualTo("m-2"));
  }

  @Test
  void objectStillRejectedKeepsTheMessageNamingTheReason() {
    object("raw/clicks/dt=2026-02-30/part-0.csv", 7);
    quarantined("m-3", "gs://bucket/raw/clicks/dt=2026-02-30/part-0.csv");

    assertThatThrownBy(() -> release.release("m-3", true, false))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("cannot release message m-3: profile \"clicks\" still rejects it: ")
        .hasMessageContaining("2026-02-30");
    assertThat(ledger.quarantinedMessages()).extracting(QuarantinedMessage::messageId).containsExactly("m-3");
    assertThat(ledger.tables()).isEmpty();
  }

  @Test
  void objectGoneFromStorageIsOnlyDiscardedWithDiscard() {
    quarantined("m-4", "gs://bucket/raw/clicks/dt=2026-11-28/gone.csv");

    assertThatThrownBy(() -> release.release("m-4", false, false))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("cannot release message m-4: gs://bucket/raw/clicks/dt=2026-11-28/gone.csv is not in storage any"
            + " more; pass --discard to delete it");
    assertThat(ledger.quarantinedMessages()).hasSize(1);

    assertThat(release.release("m-4", true, false).action())
        .isEqualTo("discarded (gs://bucket/raw/clicks/dt=2026-11-28/gone.csv is not in storage any more)");
    assertThat(ledger.quarantinedMessages()).isEmpty();
  }

  @Test
  void storageThatCannotBeReachedKeepsTheMessageAndSaysWhy() throws Exception {
    quarantined("m-5", "gs://bucket/raw/clicks/dt=2026-11-28/_SUCCESS");
    // The real client, pointed at a host under .invalid, which never resolves: as offline.
    Storage offline = StorageOptions.newBuilder().setProjectId("test").setCredentials(NoCredentials.getInstance())
        .setHost("http://storage.files2iceberg-test.invalid")
        .setRetrySettings(ServiceOptions.getNoRetrySettings()).build().getService();
    MessageRelease unreachable = new MessageRelease(ledger, ProfileRegistry.load(dir.resolve("clicks.conf"),
        new Home(dir.resolve("home"))), () -> offline);

    assertThatThrownBy(() -> unreachable.release("m-5", false, false))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("cannot release message m-5: cannot read gs://bucket/raw/clicks/dt=2026-11-28/_SUCCESS from"
            + " Cloud Storage: cannot resolve storage.files2iceberg-test.invalid (no network or DNS?); the message"
            + " stays quarantined");
    assertThat(ledger.quarantinedMessages()).extracting(QuarantinedMessage::messageId).containsExactly("m-5");
  }
}
