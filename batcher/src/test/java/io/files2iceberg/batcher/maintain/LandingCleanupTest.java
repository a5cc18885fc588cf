package io.files2iceberg.batcher.maintain;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.storage.Storage;
import io.files2iceberg.batcher.status.StatusFormat;
import io.files2iceberg.batcher.status.StatusReport;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CleanedObject;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.MutableClock;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.ledger.TableChange;
import io.files2iceberg.core.ledger.memory.InMemoryLedgerStore;
import io.files2iceberg.core.match.ObjectLocation;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.profile.StorageSettings;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.core.storage.StorageClients;
import io.files2iceberg.core.storage.StorageStandIn;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
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
 * Landing cleanup ({@code load.after-ingest}) on a landing folder and on {@code gs://} through the
 * storage stand-in, with the in-memory ledger: the ledger first, the object after, each removal
 * pinned to the loaded generation; files look old through the cleanup's clock.
 */
class LandingCleanupTest {
  private static final String TABLE = "local.demo.clicks";
  private static final Instant LOADED = Instant.parse("2026-11-01T00:00:00Z");
  private static final Instant LATER = LOADED.plus(Duration.ofDays(31));

  @TempDir Path dir;
  private final MutableClock clock = new MutableClock(LOADED);
  private Ledger ledger;
  private StorageStandIn gcs;

  @BeforeEach
  void open() {
    ledger = InMemoryLedgerStore.ledger(clock);
  }

  @AfterEach
  void close() {
    ledger.close();
    if (gcs != null) {
      gcs.close();
    }
  }

  private TableProfile profile(String path, String afterIngest) throws Exception {
    Path conf = Files.writeString(dir.resolve("clicks.conf"), """
        extract.path = "%s"
        extract.format = csv
        load.iceberg.table = "%s"
        load.after-ingest { %s }
        """.formatted(path, TABLE, afterIngest));
    return ProfileRegistry.load(conf, new Home(dir.resolve("home"))).profiles().get(0);
  }

  private Path landed(String name, String content) throws Exception {
    Path file = dir.resolve("landing").resolve(name);
    Files.createDirectories(file.getParent());
    return Files.writeString(file, content);
  }

  private static long generation(Path file) throws Exception {
    return ObjectLocation.localGeneration(Files.readAttributes(file, BasicFileAttributes.class));
  }

  private void record(String bucket, String name, long generation, String uri) {
    ledger.recordFile(new RecordFile(TABLE, "p", bucket, name, generation, uri, 3, "e-" + name + generation,
        LOADED, Optional.empty(), true));
  }

  private void recordLocal(Path file) throws Exception {
    ObjectLocation location = ObjectLocation.file(file);
    record("", location.name(), generation(file), location.uri());
  }

  /** Claims and commits every recorded file of the table: INGESTED at the clock's time. */
  private BatchRecord loadAll() {
    BatchRecord batch = ledger.claimPartitions(new ClaimPartitions(TABLE, 100, Duration.ofMinutes(5), true))
        .orElseThrow();
    ledger.commitBatch(new CommitBatch(batch.batchId(), 1L, BatchMetrics.EMPTY));
    return batch;
  }

  private LandingCleanup cleanup(Instant now) {
    StorageSettings settings = gcs == null ? StorageSettings.GOOGLE
        : new StorageSettings(Optional.of(gcs.endpoint()), StorageSettings.Credentials.NONE);
    Storage[] client = new Storage[1];
    return new LandingCleanup(ledger, () -> client[0] != null ? client[0] : (client[0] = StorageClients.create(settings)),
        Clock.fixed(now, java.time.ZoneOffset.UTC));
  }

  private FileRecord fileNamed(String uri) {
    return ledger.filesOfPartition(TABLE, "p").stream().filter(f -> f.uri().equals(uri)).findFirst().orElseThrow();
  }

  @Test
  void deleteRemovesAnIngestedFileAndLeavesARewrittenOne() throws Exception {
    TableProfile profile = profile("file://" + dir.resolve("landing") + "/*.csv", "action = delete");
    Path kept = landed("a.csv", "1\n");
    Path rewritten = landed("b.csv", "2\n");
    recordLocal(kept);
    recordLocal(rewritten);
    loadAll();
    String rewrittenUri = ObjectLocation.file(rewritten).uri();
    Files.writeString(rewritten, "2 again\n");
    Files.setLastModifiedTime(rewritten, FileTime.from(LOADED.plusSeconds(5)));

    LandingCleanup.Cleaned young = cleanup(LOADED.plus(Duration.ofDays(29))).clean(profile, false).orElseThrow();
    assertThat(young.deleted() + young.alreadyGone()).isZero();
    assertThat(kept).exists();

    LandingCleanup.Cleaned cleaned = cleanup(LATER).clean(profile, false).orElseThrow();

    assertThat(cleaned.deleted()).isEqualTo(1);
    assertThat(cleaned.alreadyGone()).isEqualTo(1);
    assertThat(cleaned.failed()).isEmpty();
    assertThat(kept).doesNotExist();
    assertThat(rewritten).hasContent("2 again");
    CleanedObject deleted = fileNamed(ObjectLocation.file(kept).uri()).cleaned().orElseThrow();
    assertThat(deleted.action()).isEqualTo(CleanedObject.Action.DELETED);
    assertThat(deleted.removedAt()).isPresent();
    assertThat(fileNamed(rewrittenUri).cleaned().orElseThrow().action()).isEqualTo(CleanedObject.Action.DELETED);
    assertThat(MaintainFormat.human(cleaned)).isEqualTo("local.demo.clicks: landing cleanup (delete, loaded before "
        + LATER.minus(Duration.ofDays(30)) + "): 1 deleted, 0 archived, 1 already gone, 0 finished from an earlier"
        + " run\n");
  }

  @Test
  void moveCopiesTheGenerationUnderTheFolderKeepingItsModificationTime() throws Exception {
    Path archive = dir.resolve("archive");
    TableProfile profile = profile("file://" + dir.resolve("landing") + "/*.csv",
        "action = move, move-to = \"file://" + archive + "/\", retention = 1d");
    Path file = landed("a.csv", "1\n");
    recordLocal(file);
    long generation = generation(file);
    loadAll();

    LandingCleanup.Cleaned cleaned = cleanup(LATER).clean(profile, false).orElseThrow();

    assertThat(cleaned.archived()).isEqualTo(1);
    assertThat(file).doesNotExist();
    Path copy = archive.resolve(dir.resolve("landing/a.csv").toString().substring(1));
    assertThat(copy).hasContent("1");
    CleanedObject archived = fileNamed(ObjectLocation.file(file).uri()).cleaned().orElseThrow();
    assertThat(archived.archiveUri()).contains(ObjectLocation.file(copy).uri());
    assertThat(archived.archiveGeneration()).contains(generation);
    assertThat(archived.removedAt()).isPresent();
  }

  @Test
  void aRunFinishesTheRemovalsAnEarlierOneDecidedAndADryRunChangesNothing() throws Exception {
    TableProfile profile = profile("file://" + dir.resolve("landing") + "/*.csv", "action = delete");
    Path decided = landed("a.csv", "1\n");
    Path candidate = landed("b.csv", "2\n");
    recordLocal(decided);
    recordLocal(candidate);
    loadAll();
    // A run that stopped between the ledger and the storage.
    ledger.cleanFiles(TABLE, List.of(new Ledger.CleanFile(fileNamed(ObjectLocation.file(decided).uri()).fileId(),
        CleanedObject.deleted(LATER))));

    StatusReport pending = StatusReport.read(ledger, Optional.empty(), Optional.of(TABLE), clock);
    assertThat(pending.tables().get(0).cleanupPending()).isEqualTo(1);
    assertThat(StatusFormat.human(pending)).contains("LANDING CLEANUP UNFINISHED (load.after-ingest)\n"
        + "  local.demo.clicks: 1 file(s) decided, their landed objects not removed yet; the next maintain finishes"
        + " them\n");

    LandingCleanup.Cleaned dry = cleanup(LATER).clean(profile, true).orElseThrow();
    assertThat(dry.finished()).isEqualTo(1);
    assertThat(dry.deleted()).isEqualTo(1);
    assertThat(dry.files()).containsExactly(ObjectLocation.file(candidate).uri() + "#" + generation(candidate));
    assertThat(decided).exists();
    assertThat(candidate).exists();

    LandingCleanup.Cleaned cleaned = cleanup(LATER).clean(profile, false).orElseThrow();

    assertThat(cleaned.finished()).isEqualTo(1);
    assertThat(cleaned.deleted()).isEqualTo(1);
    assertThat(decided).doesNotExist();
    assertThat(candidate).doesNotExist();
    assertThat(ledger.filesBeingCleaned(TABLE, 10)).isEmpty();
    assertThat(StatusReport.read(ledger, Optional.empty(), Optional.of(TABLE), clock).tables().get(0)
        .cleanupPending()).isZero();
  }

  @Test
  void nothingIsCleanedWhileARollbackOfTheTableIsUnfinished() throws Exception {
    TableProfile profile = profile("file://" + dir.resolve("landing") + "/*.csv", "action = delete");
    Path file = landed("a.csv", "1\n");
    recordLocal(file);
    BatchRecord batch = loadAll();
    ledger.intendChange(new TableChange("rollback-1", TABLE, TableChange.ChangeKind.ROLLBACK,
        TableChange.ChangeState.INTENDED, Optional.of(2L), Optional.of(1L), List.of(batch.batchId()), List.of(),
        List.of("p"), false, "ops", Optional.of("test"), Optional.empty(), LOADED, LOADED));

    LandingCleanup.Cleaned cleaned = cleanup(LATER).clean(profile, false).orElseThrow();

    assertThat(cleaned.failed()).containsOnlyKeys("the ledger");
    assertThat(cleaned.failed().get("the ledger")).contains("rollback rollback-1 is unfinished");
    assertThat(file).exists();
  }

  @Test
  void onCloudStorageEachDeleteAndCopyCarriesTheLoadedGenerationAsPrecondition() throws Exception {
    gcs = StorageStandIn.start(Files.createDirectories(dir.resolve("gcs")));
    gcs.createBucket("landing");
    gcs.createBucket("archive");
    byte[] bytes = "1\n".getBytes(StandardCharsets.UTF_8);
    long kept = gcs.put("landing", "raw/a.csv", bytes);
    long first = gcs.put("landing", "raw/b.csv", bytes);
    record("landing", "raw/a.csv", kept, "gs://landing/raw/a.csv");
    record("landing", "raw/b.csv", first, "gs://landing/raw/b.csv");
    loadAll();
    long second = gcs.put("landing", "raw/b.csv", "2\n".getBytes(StandardCharsets.UTF_8));

    TableProfile delete = profile("gs://landing/raw/*.csv", "action = delete");
    LandingCleanup.Cleaned deleted = cleanup(LATER).clean(delete, false).orElseThrow();

    assertThat(deleted.deleted()).isEqualTo(1);
    assertThat(deleted.alreadyGone()).isEqualTo(1);
    assertThat(gcs.generation("landing", "raw/a.csv")).isEmpty();
    assertThat(gcs.generation("landing", "raw/b.csv")).hasValue(second);
    assertThat(gcs.requests()).contains(
        "DELETE /storage/v1/b/landing/o/raw%2Fa.csv?ifGenerationMatch=" + kept,
        "DELETE /storage/v1/b/landing/o/raw%2Fb.csv?ifGenerationMatch=" + first);
  }

  @Test
  void onCloudStorageAMoveCopiesTheGenerationThenDeletesItAndAGoneOneIsRecordedDeleted() throws Exception {
    gcs = StorageStandIn.start(Files.createDirectories(dir.resolve("gcs")));
    gcs.createBucket("landing");
    gcs.createBucket("archive");
    long moved = gcs.put("landing", "raw/a.csv", "1\n".getBytes(StandardCharsets.UTF_8));
    long first = gcs.put("landing", "raw/b.csv", "2\n".getBytes(StandardCharsets.UTF_8));
    // An earlier generation's copy holds the plain archive name already.
    long older = gcs.put("archive", "old/landing/raw/a.csv", "0\n".getBytes(StandardCharsets.UTF_8));
    record("landing", "raw/a.csv", moved, "gs://landing/raw/a.csv");
    record("landing", "raw/b.csv", first, "gs://landing/raw/b.csv");
    loadAll();
    gcs.put("landing", "raw/b.csv", "3\n".getBytes(StandardCharsets.UTF_8));

    TableProfile move = profile("gs://landing/raw/*.csv", "action = move, move-to = \"gs://archive/old/\"");
    LandingCleanup.Cleaned cleaned = cleanup(LATER).clean(move, false).orElseThrow();

    assertThat(cleaned.archived()).isEqualTo(1);
    assertThat(cleaned.alreadyGone()).isEqualTo(1);
    assertThat(cleaned.failed()).isEmpty();
    String copyName = "old/landing/raw/a.csv." + moved;
    long copy = gcs.generation("archive", copyName).orElseThrow();
    assertThat(gcs.generation("archive", "old/landing/raw/a.csv")).hasValue(older);
    assertThat(gcs.generation("landing", "raw/a.csv")).isEmpty();
    assertThat(Files.readString(gcs.file("archive", copyName))).isEqualTo("1\n");
    CleanedObject archived = fileNamed("gs://landing/raw/a.csv").cleaned().orElseThrow();
    assertThat(archived.archiveUri()).contains("gs://archive/" + copyName);
    assertThat(archived.archiveGeneration()).contains(copy);
    assertThat(fileNamed("gs://landing/raw/b.csv").cleaned().orElseThrow().action())
        .isEqualTo(CleanedObject.Action.DELETED);
    assertThat(gcs.requests()).anyMatch(r -> r.startsWith("POST /storage/v1/b/landing/o/raw%2Fa.csv/rewriteTo/b/archive/o/"
        + "old%2Flanding%2Fraw%2Fa.csv?") && r.contains("ifSourceGenerationMatch=" + moved)
        && r.contains("ifGenerationMatch=0"));
    assertThat(gcs.requests()).anyMatch(r -> r.startsWith("POST /storage/v1/b/landing/o/raw%2Fb.csv/rewriteTo/")
        && r.contains("ifSourceGenerationMatch=" + first));
    assertThat(gcs.requests()).contains("DELETE /storage/v1/b/landing/o/raw%2Fa.csv?ifGenerationMatch=" + moved);
  }
}
