package io.files2iceberg.batcher.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.files2iceberg.batcher.cli.AllowMissingOption;
import io.files2iceberg.batcher.engine.StorageListing;
import io.files2iceberg.batcher.listing.PartitionRange;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CleanedObject;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.TableChange;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.memory.InMemoryLedgerStore;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.profile.TableProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code replay --force} of a partition whose loaded files landing cleanup deleted: refused before
 * anything changes, naming them, unless {@code --allow-missing}; a moved file is no obstacle.
 */
class ReplayOfCleanedFilesTest {
  private static final String TABLE = "local.demo.clicks";

  @TempDir Path dir;
  private Ledger ledger;
  private TableProfile profile;
  private Path landing;

  @BeforeEach
  void load() throws Exception {
    ledger = InMemoryLedgerStore.ledger(Clock.systemUTC());
    landing = Files.createDirectories(dir.resolve("landing/dt=2026-12-01"));
    Path conf = Files.writeString(dir.resolve("clicks.conf"), """
        extract {
          path = "file://%s/dt=*/*.csv"
          format = csv
          batch-file { partition-type = date, pattern = ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+", date-format = "yyyy-MM-dd" }
        }
        load { iceberg.table = "%s", primary-key = [id] }
        """.formatted(dir.resolve("landing"), TABLE));
    profile = ProfileRegistry.load(conf, new Home(dir.resolve("home"))).profiles().get(0);
    Files.writeString(landing.resolve("a.csv"), "id\n1\n");
    Files.writeString(landing.resolve("b.csv"), "id\n2\n");
    Files.writeString(landing.resolve("_SUCCESS"), "");
    replay().run(profile, PartitionRange.all(), false, false, line -> {});
    BatchRecord batch = ledger.claimPartitions(new ClaimPartitions(TABLE, 10, Duration.ofMinutes(5), true))
        .orElseThrow();
    ledger.commitBatch(new CommitBatch(batch.batchId(), 1L, BatchMetrics.EMPTY));
  }

  @AfterEach
  void close() {
    ledger.close();
  }

  private Replay replay() {
    return new Replay(new StorageListing(() -> {
      throw new AssertionError("no Storage client for a landing folder");
    }), ledger, Clock.systemUTC());
  }

  private FileRecord file(String name) {
    return ledger.filesOfPartition(TABLE, "2026-12-01").stream().filter(f -> f.name().endsWith(name)).findFirst()
        .orElseThrow();
  }

  private void clean(String name, CleanedObject cleaned) throws Exception {
    ledger.cleanFiles(TABLE, List.of(new Ledger.CleanFile(file(name).fileId(), cleaned)));
    ledger.confirmRemoved(List.of(file(name).fileId()));
    Files.delete(landing.resolve(name));
  }

  private static AllowMissingOption allowMissing(boolean given) {
    return AllowMissingOption.of(given);
  }

  @Test
  void aForcedReplayOfDeletedFilesIsRefusedNamingThemUntilAllowMissing() throws Exception {
    clean("a.csv", CleanedObject.deleted(Instant.now()));
    clean("b.csv", CleanedObject.archived("file:///archive/b.csv", 7L, Instant.now()));

    assertThatThrownBy(() -> replay().run(profile, PartitionRange.all(), true, false, allowMissing(false),
        line -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("replay --force of table " + TABLE + " every partition would load 1 file(s) again whose object"
            + " landing cleanup deleted (load.after-ingest.action = delete): " + file("a.csv").uri() + "#"
            + file("a.csv").generation() + ". Their rows would be lost; pass --allow-missing if that is intended");
    assertThat(ledger.partition(TABLE, "2026-12-01").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);

    Replay.Report report = replay().run(profile, PartitionRange.all(), true, false, allowMissing(true), line -> {});

    assertThat(report.reopened()).containsExactly("2026-12-01");
    assertThat(file("a.csv").state()).isEqualTo(FileState.SUPERSEDED);
    assertThat(file("b.csv").state()).isEqualTo(FileState.RECORDED);
  }

  /**
   * A partition dropped after cleanup deleted one of its files: its files are DROPPED, and a forced
   * replay would load them again, so the deleted one is named as an INGESTED one is.
   */
  @Test
  void aForcedReplayOfADroppedPartitionWithADeletedFileIsRefusedToo() throws Exception {
    clean("a.csv", CleanedObject.deleted(Instant.now()));
    TableChange drop = ledger.intendChange(new TableChange("drop-1", TABLE, TableChange.ChangeKind.DROP_PARTITION,
        TableChange.ChangeState.INTENDED, Optional.of(1L), Optional.empty(), List.of(), List.of(),
        List.of("2026-12-01"), false, "ops@example.com", Optional.empty(), Optional.empty(), Instant.now(),
        Instant.now()));
    ledger.applyChange(drop.changeId());
    assertThat(file("a.csv").state()).isEqualTo(FileState.DROPPED);

    assertThatThrownBy(() -> replay().run(profile, PartitionRange.all(), true, false, allowMissing(false),
        line -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("would load 1 file(s) again whose object landing cleanup deleted")
        .hasMessageContaining(file("a.csv").uri() + "#" + file("a.csv").generation());
    assertThat(ledger.partition(TABLE, "2026-12-01").orElseThrow().state()).isEqualTo(PartitionState.DROPPED);

    replay().run(profile, PartitionRange.all(), true, false, allowMissing(true), line -> {});

    assertThat(file("a.csv").state()).isEqualTo(FileState.SUPERSEDED);
    assertThat(file("b.csv").state()).isEqualTo(FileState.RECORDED);
  }
}
