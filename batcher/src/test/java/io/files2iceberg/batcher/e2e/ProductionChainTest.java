package io.files2iceberg.batcher.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.Storage;
import io.files2iceberg.batcher.local.SparkMain;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.TableStatus;
import io.files2iceberg.core.manifest.AttemptResult;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.storage.StorageClients;
import io.files2iceberg.ledger.firestore.FirestoreEmulator;
import io.files2iceberg.ledger.firestore.FirestoreEmulatorExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The production chain end to end ({@link ProductionChain}): click Parquet files land in the
 * Cloud Storage stand-in in three day folders with {@code _SUCCESS} last; Pub/Sub (the emulator)
 * pushes their notifications to the listener; the ledger is the Firestore emulator; {@code batch
 * serve} runs the job in its warm driver on the module's Spark standalone cluster ({@link
 * SparkStandaloneCluster}), whose executors, JVMs of their own, read the files through the GCS
 * connector. One
 * object is rewritten between its notification and its batch, one file is corrupt, one file is
 * late, and the batcher is SIGKILLed once while a batch runs. The table is compared with Spark SQL
 * over the files that should have landed.
 */
class ProductionChainTest {
  @RegisterExtension static final FirestoreEmulatorExtension FIRESTORE = new FirestoreEmulatorExtension();

  private static final String TABLE = "local.demo.clicks";
  private static final Duration WAIT = Duration.ofMinutes(3);

  @TempDir Path root;

  /**
   * Object names a user may pick: every printable ASCII punctuation character but {@code /},
   * spaces, non-ASCII letters and percent-escapes; each must load through gs:// as it is named.
   */
  private static final List<String> ANY_NAMES = List.of(
      "a!\"#$%&'()*+,-.parquet",
      "b.:;<=>?@.parquet",
      "c[1]\\^_`{|}~.parquet",
      "d name  with spaces .parquet",
      "e-\u00e9\u65e5\u672c-\u00fc.parquet",
      "f%20%2F%25.parquet");

  static final String PROFILE = """
      extract {
        path = "gs://landing/clicks/dt=*/*.parquet"
        quarantine-bad-files = true
        batch-file {
          partition-type = date
          pattern = ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+"
          date-format = "yyyy-MM-dd"
        }
      }
      load {
        iceberg.table = local.demo.clicks
        primary-key = [click_id]
        partition-by = [dt]
        iceberg.precombine-field = click_time
      }
      metadata.path = "gs://lake/files2iceberg/clicks"
      """;

  @Test
  void filesLandingInTheBucketEndInTheTableExactlyOnceThroughPubsubFirestoreAndTheGcsConnector() throws Exception {
    // The cluster starts while the demo's writer makes the files.
    CompletableFuture<SparkStandaloneCluster> cluster = SparkStandaloneCluster.sharedStarting();
    // Click data as an upstream system writes it: 3 files a day, and a late file of the first day.
    Path source = root.resolve("source");
    Path home = root.resolve("home");
    SparkMain.Result written = SparkMain.locate(System.getenv(), home).run(SparkMain.WRITE_DEMO_LANDING,
        List.of("--landing", source.resolve("landing").toString(), "--late", source.resolve("late").toString(),
            "--days", "4"), Duration.ofMinutes(5));
    assertThat(written.isSuccess()).as(written.stderr()).isTrue();
    Path days = source.resolve("landing/clicks");
    List<String> dayFolders;
    try (Stream<Path> list = Files.list(days)) {
      dayFolders = list.map(p -> p.getFileName().toString()).sorted().toList();
    }
    assertThat(dayFolders).hasSize(4);
    String day1 = dayFolders.get(0);
    String day4 = dayFolders.get(3);
    Path lateFile;
    try (Stream<Path> list = Files.list(source.resolve("late/clicks").resolve(day1))) {
      lateFile = list.filter(p -> p.toString().endsWith(".parquet")).findFirst().orElseThrow();
    }

    String prefix = FirestoreEmulator.newPrefix();
    try (ProductionChain chain = ProductionChain.start(root, FIRESTORE.emulator().host(), prefix, PROFILE,
        cluster.join().masterUrl())) {
      System.err.println("[chain] storage stand-in " + chain.storage().endpoint() + ", Pub/Sub "
          + (chain.viaPubsub() ? "emulator push subscription" : "envelopes posted by the stand-in")
          + ", Firestore emulator " + FIRESTORE.emulator().host());
      // Day 1: part-1 is rewritten after its notification and before any batch (a new generation
      // whose bytes are part-0's: the first generation's rows must not appear). Day 2 holds a
      // corrupt file. Markers come last in each day.
      for (String day : dayFolders.subList(0, 3)) {
        for (Path file : sortedParquet(days.resolve(day))) {
          put(chain, day, file.getFileName().toString(), Files.readAllBytes(file));
        }
        if (day.equals(day1)) {
          put(chain, day, "part-1.parquet", Files.readAllBytes(days.resolve(day).resolve("part-0.parquet")));
        }
        if (day.equals(dayFolders.get(1))) {
          put(chain, day, "part-9.parquet", "PAR1 this is not a Parquet file PAR1".getBytes());
        }
        if (day.equals(dayFolders.get(2))) {
          for (String name : ANY_NAMES) {
            put(chain, day, name, Files.readAllBytes(days.resolve(day).resolve("part-0.parquet")));
          }
        }
        put(chain, day, "_SUCCESS", new byte[0]);
      }

      var settings = ProfileRegistry.load(chain.profiles(), new Home(home)).deployment().ledger();
      try (Ledger ledger = FIRESTORE.emulator().openLedger(settings, Clock.systemUTC())) {
        awaitStatus(ledger, "every partition READY", s -> s.partitionsByState().getOrDefault(PartitionState.READY, 0L)
            == 3L, chain);

        chain.startBatcher();
        await(() -> ledger.tableStatus(TABLE).inFlight().stream().anyMatch(b -> b.state() == BatchState.RUNNING),
            "a batch RUNNING", chain);
        chain.killBatcher();
        System.err.println("[chain] batcher SIGKILLed while a batch ran; restarting it");
        chain.startBatcher();
        awaitStatus(ledger, "3 partitions INGESTED", s -> s.partitionsByState().getOrDefault(PartitionState.INGESTED,
            0L) == 3L && s.inFlight().isEmpty(), chain);

        // Pull delivery from here on. The late file re-opens its day and lands once; a fourth day
        // lands whole.
        chain.switchToPull();
        put(chain, day1, "part-late.parquet", Files.readAllBytes(lateFile));
        for (Path file : sortedParquet(days.resolve(day4))) {
          put(chain, day4, file.getFileName().toString(), Files.readAllBytes(file));
        }
        put(chain, day4, "_SUCCESS", new byte[0]);
        awaitStatus(ledger, "the late file and the fourth day INGESTED", s -> s.filesByState()
            .getOrDefault(FileState.INGESTED, 0L) == 19L && s.inFlight().isEmpty()
            && s.partitionsByState().getOrDefault(PartitionState.INGESTED, 0L) == 4L, chain);
        chain.stopBatcher();

        TableStatus status = ledger.tableStatus(TABLE);
        // Day 1: part-0, part-1 (second generation), part-2, the late file; days 2 to 4: 3 each
        // (plus 1 corrupt in day 2, and 6 odd names in day 3). Part-1's first generation is
        // superseded by its rewrite.
        assertThat(status.filesByState()).containsOnly(Map.entry(FileState.INGESTED, 19L),
            Map.entry(FileState.SUPERSEDED, 1L), Map.entry(FileState.QUARANTINED, 1L));
        assertThat(status.partitionsByState()).containsOnly(Map.entry(PartitionState.INGESTED, 4L));
        assertThat(ledger.quarantinedFiles()).singleElement().satisfies(file -> assertThat(file.uri())
            .isEqualTo("gs://landing/clicks/" + dayFolders.get(1) + "/part-9.parquet"));
        for (String name : ANY_NAMES) {
          assertThat(ledger.filesNamed(ProductionChain.LANDING_BUCKET, "clicks/" + dayFolders.get(2) + "/" + name))
              .as(name).extracting(file -> file.state()).containsExactly(FileState.INGESTED);
        }
        assertThat(ledger.filesNamed(ProductionChain.LANDING_BUCKET, "clicks/" + day1 + "/part-1.parquet"))
            .extracting(file -> file.state()).containsExactlyInAnyOrder(FileState.SUPERSEDED, FileState.INGESTED);
        assertThat(status.failedBatches()).isEmpty();
        assertThat(chain.deliveryFailures()).isEmpty();

        // Each committed batch's result object is in the stand-in's bucket, read back through a
        // Storage client of the deployment's settings.
        Storage client = StorageClients.create(chain.storageSettings());
        List<BatchRecord> committed = ledger.batchesSettledSince(TABLE, Instant.EPOCH).stream()
            .filter(b -> b.state() == BatchState.COMMITTED).toList();
        assertThat(committed).isNotEmpty();
        List<String> results = new ArrayList<>();
        for (Blob blob : client.list(ProductionChain.LAKE_BUCKET).iterateAll()) {
          if (blob.getName().endsWith(".result.json")) {
            results.add(new String(client.readAllBytes(BlobId.of(blob.getBucket(), blob.getName()))));
          }
        }
        assertThat(results).hasSizeGreaterThanOrEqualTo(committed.size());
        assertThat(results.stream().map(r -> AttemptResult.fromJson(r, "result")).filter(AttemptResult::isInTable).count())
            .isGreaterThanOrEqualTo(committed.size());
      }

      // The job read its data files through gs://, in the cluster's executors: the connector's
      // media reads are in the stand-in's request log, and the executors' logs (never the
      // driver's) name the gs:// files their tasks read.
      assertThat(chain.storage().requests()).anyMatch(r -> r.contains("/landing/o/clicks%2F") && r.contains(
          "alt=media"));
      String driverLog = Files.readString(chain.driverLog());
      String readLine = "Reading File path: gs://landing/clicks/" + day1 + "/";
      assertThat(driverLog).doesNotContain(readLine);
      assertThat(cluster.join().executorLogs(SparkStandaloneCluster.applicationOf(driverLog))).contains(readLine);

      // The table equals Spark SQL over the files that should have landed.
      List<String> landed = new ArrayList<>();
      for (String day : dayFolders) {
        for (Path file : sortedParquet(days.resolve(day))) {
          if (!(day.equals(day1) && file.getFileName().toString().equals("part-1.parquet"))) {
            landed.add(file.toString());
          }
        }
      }
      landed.add(lateFile.toString());
      // One sql session: the digest of the landed files, then the table's.
      List<JsonNode> digests = SqlQueries.sql(new Home(home), digest(landed), DIGEST + " FROM " + TABLE);
      assertThat(digests.get(1).toString()).isEqualTo(digests.get(0).toString());
    }
  }

  private static List<Path> sortedParquet(Path day) throws Exception {
    try (Stream<Path> list = Files.list(day)) {
      return list.filter(p -> p.getFileName().toString().endsWith(".parquet")).sorted().toList();
    }
  }

  private static void put(ProductionChain chain, String day, String name, byte[] bytes) {
    chain.storage().put(ProductionChain.LANDING_BUCKET, "clicks/" + day + "/" + name, bytes);
  }

  /** The count, the keys and a digest of each key's click time, selected from a query of them. */
  private static final String DIGEST = "SELECT count(*) AS n, count(DISTINCT click_id) AS keys,"
      + " sha2(concat_ws(',', sort_array(collect_list(concat(click_id, '@', CAST(click_time AS STRING))))), 256)"
      + " AS digest";

  /** {@link #DIGEST} of each key's newest click time over these Parquet files. */
  private static String digest(List<String> files) {
    String union = String.join(" UNION ALL ", files.stream()
        .map(f -> "SELECT click_id, click_time FROM parquet.`" + f + "`").toList());
    return DIGEST + " FROM (SELECT click_id, max(click_time) AS click_time FROM (" + union + ")"
        + " WHERE click_id IS NOT NULL GROUP BY click_id)";
  }

  private static void awaitStatus(Ledger ledger, String what, Predicate<TableStatus> done, ProductionChain chain)
      throws Exception {
    await(() -> done.test(ledger.tableStatus(TABLE)), what + " (last: " + "%s)", chain,
        () -> ledger.tableStatus(TABLE).toString());
  }

  private interface Check {
    boolean holds() throws Exception;
  }

  private static void await(Check check, String what, ProductionChain chain) throws Exception {
    await(check, what, chain, () -> "");
  }

  private static void await(Check check, String what, ProductionChain chain,
      java.util.concurrent.Callable<String> last) throws Exception {
    Instant deadline = Instant.now().plus(WAIT);
    while (Instant.now().isBefore(deadline)) {
      if (check.holds()) {
        return;
      }
      Thread.sleep(250);
    }
    throw new AssertionError("not within " + WAIT + ": " + what.formatted(last.call()) + "\n--- batcher log\n"
        + tail(chain.batcherLog()) + "\n--- driver log\n" + tail(chain.driverLog()) + "\n--- listener log\n"
        + tail(chain.listenerLog()) + "\n--- delivery failures " + chain.deliveryFailures());
  }

  private static String tail(Path log) throws Exception {
    if (!Files.isRegularFile(log)) {
      return "(none)";
    }
    List<String> lines = Files.readAllLines(log);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
  }
}
