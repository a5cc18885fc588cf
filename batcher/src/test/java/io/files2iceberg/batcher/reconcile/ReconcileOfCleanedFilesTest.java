package io.files2iceberg.batcher.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.batcher.engine.StorageListing;
import io.files2iceberg.batcher.listing.PartitionRange;
import io.files2iceberg.batcher.replay.Replay;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CleanedObject;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.memory.InMemoryLedgerStore;
import io.files2iceberg.core.match.ObjectLocation;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.profile.TableProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code reconcile} and landing cleanup: a cleaned file's landed object is expected to be gone; a
 * moved file whose archive copy is gone is drift.
 */
class ReconcileOfCleanedFilesTest {
  private static final String TABLE = "local.demo.clicks";

  @TempDir Path dir;
  private final Ledger ledger = InMemoryLedgerStore.ledger(Clock.systemUTC());

  @AfterEach
  void close() {
    ledger.close();
  }

  private StorageListing listing() {
    return new StorageListing(() -> {
      throw new AssertionError("no Storage client for a landing folder");
    });
  }

  private FileRecord file(String name) {
    return ledger.filesOfPartition(TABLE, "2026-12-01").stream().filter(f -> f.name().endsWith(name)).findFirst()
        .orElseThrow();
  }

  @Test
  void cleanedObjectsAreExpectedGoneAndAMissingArchiveCopyIsDrift() throws Exception {
    Path landing = Files.createDirectories(dir.resolve("landing/dt=2026-12-01"));
    Path conf = Files.writeString(dir.resolve("clicks.conf"), """
        extract {
          path = "file://%s/dt=*/*.csv"
          format = csv
          batch-file { partition-type = date, pattern = ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+", date-format = "yyyy-MM-dd" }
        }
        load { iceberg.table = "%s", primary-key = [id] }
        """.formatted(dir.resolve("landing"), TABLE));
    TableProfile profile = ProfileRegistry.load(conf, new Home(dir.resolve("home"))).profiles().get(0);
    Files.writeString(landing.resolve("a.csv"), "id\n1\n");
    Files.writeString(landing.resolve("b.csv"), "id\n2\n");
    Files.writeString(landing.resolve("_SUCCESS"), "");
    new Replay(listing(), ledger, Clock.systemUTC()).run(profile, PartitionRange.all(), false, false, line -> {});
    BatchRecord batch = ledger.claimPartitions(new ClaimPartitions(TABLE, 10, Duration.ofMinutes(5), true))
        .orElseThrow();
    ledger.commitBatch(new CommitBatch(batch.batchId(), 1L, BatchMetrics.EMPTY));
    Path copy = Files.createDirectories(dir.resolve("archive")).resolve("b.csv");
    Files.copy(landing.resolve("b.csv"), copy, StandardCopyOption.COPY_ATTRIBUTES);
    long copyGeneration = ObjectLocation.localGeneration(Files.readAttributes(copy, BasicFileAttributes.class));
    ledger.cleanFiles(TABLE, List.of(
        new Ledger.CleanFile(file("a.csv").fileId(), CleanedObject.deleted(Instant.now())),
        new Ledger.CleanFile(file("b.csv").fileId(),
            CleanedObject.archived(ObjectLocation.file(copy).uri(), copyGeneration, Instant.now()))));
    ledger.confirmRemoved(List.of(file("a.csv").fileId(), file("b.csv").fileId()));
    Files.delete(landing.resolve("a.csv"));
    Files.delete(landing.resolve("b.csv"));
    Reconcile reconcile = new Reconcile(listing(), ledger, Clock.systemUTC());

    Reconcile.Report clean = reconcile.run(profile, PartitionRange.all(), Duration.ofHours(1), false, line -> {});

    assertThat(clean.hasDrift()).as(clean.toString()).isFalse();

    Files.delete(copy);
    Reconcile.Report drift = reconcile.run(profile, PartitionRange.all(), Duration.ofHours(1), false, line -> {});

    assertThat(drift.deletedFiles()).isEmpty();
    assertThat(drift.archiveMissing()).containsExactly(file("b.csv").uri() + "#" + file("b.csv").generation()
        + " (archive " + ObjectLocation.file(copy).uri() + "#" + copyGeneration + ")");
    assertThat(drift.hasDriftLeft()).isTrue();
  }
}
