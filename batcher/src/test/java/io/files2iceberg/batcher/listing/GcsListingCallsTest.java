package io.files2iceberg.batcher.listing;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.Storage.BlobListOption;
import com.google.cloud.storage.contrib.nio.testing.LocalStorageHelper;
import io.files2iceberg.batcher.backfill.Backfill;
import io.files2iceberg.batcher.engine.StorageListing;
import io.files2iceberg.batcher.reconcile.Reconcile;
import io.files2iceberg.batcher.replay.Replay;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.memory.InMemoryLedgerStore;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.profile.TableProfile;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The list calls the operator commands make on GCS, through {@link LocalStorageHelper} behind a
 * proxy that records each {@code list} call's bucket and options: which prefixes, delimiter or
 * not, and how many.
 */
class GcsListingCallsTest {
  private static final String BUCKET = "landing";
  private static final String TABLE = "lake.raw.clicks";

  @TempDir Path dir;
  private final Storage gcs = LocalStorageHelper.getOptions().getService();
  private final List<String> calls = new ArrayList<>();
  private StorageListing listing;
  private Ledger ledger;
  private TableProfile profile;

  @BeforeEach
  void setUp() throws Exception {
    Storage counted = (Storage) Proxy.newProxyInstance(Storage.class.getClassLoader(), new Class<?>[] {Storage.class},
        (proxy, method, args) -> {
          if (method.getName().equals("list")) {
            calls.add(args[0] + " " + Arrays.toString((Object[]) args[1]));
          }
          try {
            return method.invoke(gcs, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    listing = new StorageListing(() -> counted);
    Home home = new Home(dir.resolve("home"));
    ledger = InMemoryLedgerStore.ledger(Clock.systemUTC());
    Path conf = Files.writeString(dir.resolve("clicks.conf"), """
        extract {
          path = "gs://landing/raw/clicks/dt=*/*.json"
          format = json
          batch-file { partition-type = date, pattern = ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+", date-format = "yyyy-MM-dd" }
        }
        load.iceberg.table = "lake.raw.clicks"
        """);
    profile = ProfileRegistry.load(conf, home).profiles().get(0);
    for (String day : List.of("2024-01-01", "2024-01-02", "2024-01-03")) {
      put("raw/clicks/dt=" + day + "/part-0.json", "{\"id\":1}");
      put("raw/clicks/dt=" + day + "/part-1.json", "{\"id\":2}");
      put("raw/clicks/dt=" + day + "/_SUCCESS", "");
    }
    put("raw/other/x.json", "{}");
  }

  @AfterEach
  void close() {
    ledger.close();
  }

  private void put(String name, String content) {
    gcs.create(BlobInfo.newBuilder(BlobId.of(BUCKET, name, 1L)).build(), content.getBytes(StandardCharsets.UTF_8));
  }

  private static String prefix(String prefix) {
    return BUCKET + " " + Arrays.toString(new Object[] {BlobListOption.prefix(prefix)});
  }

  private static String folders(String prefix) {
    return BUCKET + " " + Arrays.toString(new Object[] {BlobListOption.prefix(prefix), BlobListOption.currentDirectory()});
  }

  @Test
  void partitionFoldersComeFromOneDelimiterListingOfTheGlobsFixedPrefix() {
    List<StorageListing.PartitionFolder> folders = listing.partitionFolders(profile);

    assertThat(calls).containsExactly(folders("raw/clicks/dt="));
    assertThat(listing.listCalls()).isEqualTo(1);
    assertThat(folders).extracting(StorageListing.PartitionFolder::uri).containsExactly(
        "gs://landing/raw/clicks/dt=2024-01-01/", "gs://landing/raw/clicks/dt=2024-01-02/",
        "gs://landing/raw/clicks/dt=2024-01-03/");
    assertThat(folders).extracting(f -> f.token().orElseThrow())
        .containsExactly("2024-01-01", "2024-01-02", "2024-01-03");
  }

  @Test
  void backfillListsEachPartitionByItsPrefixAndAResumeOnlyTheFolders() {
    Backfill backfill = new Backfill(listing, ledger, Clock.systemUTC());

    Backfill.Report first = backfill.run(profile, PartitionRange.all(), 2, false, line -> {});

    assertThat(calls).containsExactly(folders("raw/clicks/dt="), prefix("raw/clicks/dt=2024-01-01/"),
        prefix("raw/clicks/dt=2024-01-02/"));
    assertThat(first.listCalls()).isEqualTo(3);
    assertThat(first.filesRecorded()).isEqualTo(4);
    calls.clear();

    Backfill.Report resumed = backfill.run(profile, PartitionRange.all(), 0, false, line -> {});

    assertThat(calls).containsExactly(folders("raw/clicks/dt="), prefix("raw/clicks/dt=2024-01-03/"));
    assertThat(resumed.skipped()).containsExactly("2024-01-01", "2024-01-02");
    assertThat(ledger.partitions(TABLE)).extracting(p -> p.state()).containsOnly(PartitionState.READY);
    assertThat(ledger.filesOfPartition(TABLE, "2024-01-03")).extracting(FileRecord::uri).containsExactly(
        "gs://landing/raw/clicks/dt=2024-01-03/part-0.json", "gs://landing/raw/clicks/dt=2024-01-03/part-1.json");
  }

  @Test
  void replayOfAPartitionWhoseFolderTheLedgerKnowsIsOnePrefixListing() {
    new Backfill(listing, ledger, Clock.systemUTC()).run(profile, PartitionRange.all(), 0, false, line -> {});
    calls.clear();

    Replay.Report report = new Replay(listing, ledger, Clock.systemUTC())
        .run(profile, PartitionRange.only(profile, "2024-01-02"), false, false, line -> {});

    assertThat(calls).containsExactly(prefix("raw/clicks/dt=2024-01-02/"));
    assertThat(report.listCalls()).isEqualTo(1);
    assertThat(report.known()).isEqualTo(2);
    assertThat(report.recorded()).isEmpty();
  }

  @Test
  void reconcileOfARangeListsTheFoldersThenOnlyThePartitionsInIt() {
    Reconcile.Report report = new Reconcile(listing, ledger, Clock.systemUTC())
        .run(profile, PartitionRange.of(profile, "2024-01-02", null), Duration.ofHours(6), false, line -> {});

    assertThat(calls).containsExactly(folders("raw/clicks/dt="), prefix("raw/clicks/dt=2024-01-02/"),
        prefix("raw/clicks/dt=2024-01-03/"));
    assertThat(report.listCalls()).isEqualTo(3);
    assertThat(report.missingFiles()).hasSize(4);
    assertThat(report.markedNotReady()).containsExactly("2024-01-02", "2024-01-03");
  }
}
