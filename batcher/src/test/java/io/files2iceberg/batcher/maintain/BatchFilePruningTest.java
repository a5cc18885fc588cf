package io.files2iceberg.batcher.maintain;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.BatchIds;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.FailBatch;
import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.MutableClock;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileLoader;
import io.files2iceberg.core.profile.StorageSettings;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.core.storage.StorageStandIn;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which batch files {@code maintain} deletes: a ledger (SQLite in a temp file) with a batch in
 * every state, old and new, and their manifests, results, logs and pid files in a local metadata
 * folder and on the Cloud Storage stand-in.
 */
class BatchFilePruningTest {
  private static final String TABLE = "local.demo.clicks";
  private static final Instant NOW = Instant.parse("2026-12-01T00:00:00Z");
  private static final Instant OLD = NOW.minus(Duration.ofDays(10));
  private static final Instant RECENT = NOW.minus(Duration.ofDays(1));
  private static final Instant CUTOFF = NOW.minus(Duration.ofDays(7));

  @TempDir Path home;

  private SqliteLedger ledger;
  /** The ledger's time, at which the batches are recorded, claimed and settled. */
  private final MutableClock clock = new MutableClock(OLD);
  private final List<StorageStandIn> standIns = new ArrayList<>();

  private String committedOld;
  private String committedRecently;
  private String failedOld;
  private String runningOld;
  private String plannedOld;
  /** Pruned from the ledger after its commit long ago: only its files are left. */
  private final String prunedOld = BatchIds.ledger(OLD.minus(Duration.ofDays(30)));
  /** A full load the ledger never held, written recently. */
  private final String fullRecently = BatchIds.of("full", RECENT);

  @BeforeEach
  void ledgerWithABatchInEveryState() {
    ledger = SqliteLedger.open(home.resolve("ledger.db"), clock);
    committedOld = claim("d1").batchId();
    commit(committedOld);
    failedOld = claim("d2").batchId();
    ledger.failBatch(new FailBatch(failedOld, "files2iceberg: rejected", 1, false));
    runningOld = claim("d3").batchId();
    ledger.markRunning(runningOld, Duration.ofMinutes(5));
    plannedOld = claim("d4").batchId();
    clock.set(RECENT);
    committedRecently = claim("d5").batchId();
    commit(committedRecently);
  }

  @AfterEach
  void close() {
    ledger.close();
    standIns.forEach(StorageStandIn::close);
  }

  private BatchRecord claim(String partition) {
    String name = "landing/clicks/" + partition + "/part-0.csv";
    ledger.recordFile(new RecordFile(TABLE, partition, "", name, 1, "file:///" + name, 10, "evt-" + partition,
        clock.instant(), Optional.empty(), false));
    ledger.markReady(new MarkReady(TABLE, partition, "file:///landing/clicks/" + partition + "/", "m" + partition,
        clock.instant()));
    return ledger.claimPartitions(new ClaimPartitions(TABLE, 1, Duration.ofMinutes(5), false)).orElseThrow();
  }

  private void commit(String batchId) {
    ledger.markRunning(batchId, Duration.ofMinutes(5));
    ledger.commitBatch(new CommitBatch(batchId, 4242, new BatchMetrics(1, 10, 2, 0, 2, 0, 0, 1, 1, 1, 1, 1)));
  }

  private TableProfile profile(String metadataPath) throws Exception {
    return ProfileLoader.parse("""
        extract.path = "file:///landing/clicks/*/*.csv"
        extract.format = csv
        load.iceberg.table = local.demo.clicks
        metadata.path = "%s"
        """.formatted(metadataPath), home.resolve("clicks.conf"), new Home(home));
  }

  /** Every batch's manifest, first result and (locally) log and pid file, last written at {@code when}. */
  private static List<String> batchFiles(String batchId) {
    return List.of("batches/" + batchId + ".json", "batches/" + batchId + "-attempt1.result.json",
        "logs/" + batchId + "-attempt1.log", "logs/" + batchId + "-attempt1.pid");
  }

  private void writeLocal(Path metadata, String name, Instant written) throws Exception {
    Path file = metadata.resolve(name);
    Files.createDirectories(file.getParent());
    Files.writeString(file, "{}");
    Files.setLastModifiedTime(file, FileTime.from(written));
  }

  private Path localHome() throws Exception {
    Path metadata = home.resolve("metadata");
    for (String batch : List.of(committedOld, failedOld, runningOld, plannedOld, prunedOld)) {
      for (String name : batchFiles(batch)) {
        writeLocal(metadata, name, OLD);
      }
    }
    for (String batch : List.of(committedRecently, fullRecently)) {
      for (String name : batchFiles(batch)) {
        writeLocal(metadata, name, RECENT);
      }
    }
    // Not batch files, however old: a manifest's temp file, other names, a maintenance log.
    writeLocal(metadata, "batches/" + committedOld + "8231.tmp", OLD);
    writeLocal(metadata, "batches/notes.txt", OLD);
    writeLocal(metadata, "batches/" + committedOld + "-attempt1.result.json.tmp", OLD);
    writeLocal(metadata, "logs/" + BatchIds.of("maintain", OLD) + ".log", OLD);
    Files.createDirectories(metadata.resolve("batches").resolve(prunedOld + "-attempt2.result.json"));
    return metadata;
  }

  private static List<String> filesUnder(Path metadata) throws Exception {
    try (Stream<Path> files = Files.walk(metadata)) {
      return files.filter(Files::isRegularFile).map(f -> metadata.relativize(f).toString()).sorted().toList();
    }
  }

  /** Prunes the batch files of a local metadata folder (and of the home's logs) settled before {@link #CUTOFF}. */
  private BatchFilePruning.Pruned pruneLocally(Path metadata, boolean dryRun) throws Exception {
    return BatchFilePruning.prune(ledger, profile(metadata.toString()), home.resolve("logs"), StorageSettings.GOOGLE,
        CUTOFF, dryRun);
  }

  @Test
  void deletesTheFilesOfBatchesCommittedOrGoneBeforeTheCutoffAndKeepsEveryOther() throws Exception {
    Path metadata = localHome();
    List<String> before = filesUnder(metadata);

    BatchFilePruning.Pruned pruned = pruneLocally(metadata, false);

    List<String> deleted = new ArrayList<>(batchFiles(committedOld));
    deleted.addAll(batchFiles(prunedOld));
    List<String> kept = new ArrayList<>(before);
    kept.removeAll(deleted);
    assertThat(before).containsAll(deleted);
    assertThat(filesUnder(metadata)).containsExactlyElementsOf(kept);
    assertThat(kept).containsAll(batchFiles(failedOld)).containsAll(batchFiles(runningOld))
        .containsAll(batchFiles(plannedOld)).containsAll(batchFiles(committedRecently))
        .containsAll(batchFiles(fullRecently)).contains("batches/notes.txt");
    assertThat(Files.isDirectory(metadata.resolve("batches").resolve(prunedOld + "-attempt2.result.json"))).isTrue();
    assertThat(pruned).isEqualTo(new BatchFilePruning.Pruned(TABLE, false, CUTOFF, 8, Map.of()));
  }

  @Test
  void aBatchTheLedgerDoesNotHoldIsAsOldAsItsNewestFile() throws Exception {
    Path metadata = home.resolve("metadata");
    String full = BatchIds.of("full", OLD);
    writeLocal(metadata, "batches/" + full + ".json", OLD);
    writeLocal(metadata, "logs/" + full + "-attempt1.log", RECENT);

    BatchFilePruning.Pruned pruned = pruneLocally(metadata, false);

    assertThat(pruned.deleted()).isZero();
    assertThat(filesUnder(metadata)).containsExactly("batches/" + full + ".json", "logs/" + full + "-attempt1.log");
  }

  @Test
  void aDryRunCountsTheFilesAndDeletesNothing() throws Exception {
    Path metadata = localHome();
    List<String> before = filesUnder(metadata);

    BatchFilePruning.Pruned pruned = pruneLocally(metadata, true);

    assertThat(pruned).isEqualTo(new BatchFilePruning.Pruned(TABLE, true, CUTOFF, 8, Map.of()));
    assertThat(filesUnder(metadata)).isEqualTo(before);
    assertThat(MaintainFormat.human(pruned)).isEqualTo("local.demo.clicks: would delete 8 batch file(s) of batches"
        + " settled before 2026-11-24T00:00:00Z\n");
  }

  private StorageStandIn standIn() throws Exception {
    StorageStandIn standIn = StorageStandIn.start(Files.createTempDirectory(home, "gcs"));
    standIns.add(standIn);
    standIn.createBucket("lake-metadata");
    return standIn;
  }

  @Test
  void onCloudStorageTheSameObjectsGoAndAnObjectWrittenAgainSinceItWasListedStays() throws Exception {
    StorageStandIn gcs = standIn();
    // Every object is older than this cutoff; one batch is committed after it.
    Instant cutoff = Instant.now().plusSeconds(60);
    clock.set(cutoff.plus(Duration.ofHours(1)));
    String committedAfter = claim("d6").batchId();
    commit(committedAfter);
    byte[] json = "{}".getBytes(StandardCharsets.UTF_8);
    List<String> all = new ArrayList<>();
    for (String batch : List.of(committedOld, failedOld, runningOld, plannedOld, prunedOld, committedRecently,
        committedAfter)) {
      for (String name : batchFiles(batch).subList(0, 2)) {
        gcs.put("lake-metadata", "clicks/" + name, json);
        all.add("clicks/" + name);
      }
    }
    gcs.put("lake-metadata", "clicks/batches/notes.txt", json);
    gcs.put("lake-metadata", "clicks/batches/" + prunedOld + "/nested.json", json);
    StorageSettings storage = new StorageSettings(Optional.of(gcs.endpoint()), StorageSettings.Credentials.NONE);
    TableProfile profile = profile("gs://lake-metadata/clicks");

    BatchFilePruning.Pruned dry = BatchFilePruning.prune(ledger, profile, home.resolve("logs"), storage, cutoff, true);
    assertThat(dry.deleted()).isEqualTo(6);
    assertThat(all).allMatch(name -> gcs.generation("lake-metadata", name).isPresent());

    BatchFilePruning.Pruned pruned =
        BatchFilePruning.prune(ledger, profile, home.resolve("logs"), storage, cutoff, false);

    assertThat(pruned).isEqualTo(new BatchFilePruning.Pruned(TABLE, false, cutoff, 6, Map.of()));
    List<String> gone = new ArrayList<>();
    for (String batch : List.of(committedOld, prunedOld, committedRecently)) {
      batchFiles(batch).subList(0, 2).forEach(name -> gone.add("clicks/" + name));
    }
    for (String name : all) {
      assertThat(gcs.generation("lake-metadata", name).isPresent()).as(name).isEqualTo(!gone.contains(name));
    }
    assertThat(gcs.generation("lake-metadata", "clicks/batches/notes.txt")).isPresent();
    assertThat(gcs.generation("lake-metadata", "clicks/batches/" + prunedOld + "/nested.json")).isPresent();

    // Listed at one generation, written again before the delete: the new object is not this batch file.
    String manifest = "clicks/batches/" + prunedOld + ".json";
    long listed = gcs.put("lake-metadata", manifest, json);
    long rewritten = gcs.put("lake-metadata", manifest, json);
    BatchFilePruning.Found found =
        new BatchFilePruning.Found(prunedOld, "gs://lake-metadata/" + manifest, cutoff.minusSeconds(3600), listed);
    assertThat(BatchFilePruning.delete(found, storage)).isFalse();
    assertThat(gcs.generation("lake-metadata", manifest)).hasValue(rewritten);
  }

  @Test
  void aFolderThatCannotBeListedIsReportedAndTheOtherFilesAreStillPruned() throws Exception {
    StorageStandIn gcs = standIn();
    Path logs = home.resolve("logs");
    for (String name : batchFiles(committedOld).subList(2, 4)) {
      writeLocal(logs.resolve("clicks"), name.substring("logs/".length()), OLD);
    }
    StorageSettings storage = new StorageSettings(Optional.of(gcs.endpoint()), StorageSettings.Credentials.NONE);

    BatchFilePruning.Pruned pruned = BatchFilePruning.prune(ledger, profile("gs://no-such-bucket/clicks"), logs,
        storage, CUTOFF, false);

    assertThat(pruned.deleted()).isEqualTo(2);
    assertThat(pruned.failed()).containsOnlyKeys("gs://no-such-bucket/clicks/batches/");
    assertThat(pruned.failed().get("gs://no-such-bucket/clicks/batches/")).startsWith("cannot list: ");
    assertThat(filesUnder(logs)).isEmpty();
    assertThat(MaintainFormat.human(pruned)).isEqualTo("local.demo.clicks: deleted 2 batch file(s) of batches"
        + " settled before 2026-11-24T00:00:00Z; 1 failure(s), see the errors above\n");
  }
}
