package io.files2iceberg.sparkjob.maintain;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileJson;
import io.files2iceberg.core.profile.ProfileLoader;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.SparkJavaOptions;
import io.files2iceberg.sparkjob.load.CommitMarker;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code maintain} killed with SIGKILL in the middle of each action can run again: the main runs
 * in a child JVM on the embedded catalog, is killed once its log says the action started and the
 * table's folder has changed (the action is writing or deleting files), and is then run again.
 * The table's rows, read through Iceberg's own reader, are the ones it had, every batch marker is
 * still found as the job looks for it, and the second run completes the action.
 */
class MaintainKilledTest {
  @TempDir static Path root;
  static Home home;
  static SparkSession spark;

  @BeforeAll
  static void session() {
    home = new Home(root);
    spark = TableMaintenanceTest.embeddedSession(home);
    spark.sql("CREATE NAMESPACE IF NOT EXISTS local.k");
  }

  @Test
  void aSortKilledMidwayRunsAgainToTheEnd() throws Exception {
    String table = "local.k.sorted";
    batches(table, 6);

    Table after = killThenRunAgain(table, "maintain.sort-by = [\"id DESC\"]\n", "sorting by", "--sort",
        "--target-file-size", "1048576", "--min-input-files", "2");

    assertThat(dataFiles(after)).hasSize(1);
  }

  @Test
  void aPositionDeleteRewriteKilledMidwayRunsAgainToTheEnd() throws Exception {
    String table = "local.k.deletes";
    TableMaintenanceTest.tableWithPositionDeletes(spark, table, "k");

    Table after = killThenRunAgain(table, "", "rewriting position delete files", "--rewrite-position-deletes",
        "--min-input-files", "2");

    assertThat(deleteFiles(after)).hasSize(1);
  }

  @Test
  void aManifestRewriteKilledMidwayRunsAgainToTheEnd() throws Exception {
    String table = "local.k.manifests";
    batches(table, 6);

    Table after = killThenRunAgain(table, "", "rewriting manifests", "--rewrite-manifests");

    assertThat(after.currentSnapshot().dataManifests(after.io())).hasSize(1);
  }

  @Test
  void anOrphanRemovalKilledMidwayRunsAgainToTheEnd() throws Exception {
    String table = "local.k.orphans";
    batches(table, 3);
    List<Path> orphans = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      orphans.add(TableMaintenanceTest.orphan(load(table), "orphan-" + i + ".parquet", Duration.ofDays(4)));
    }

    killThenRunAgain(table, "", "removing files under", "--remove-orphans-older-than",
        Instant.now().minus(Duration.ofDays(3)).toString());

    assertThat(orphans).noneMatch(Files::exists);
  }

  /** Batches appending two rows each, in descending id order, a file each. */
  private static void batches(String table, int count) throws Exception {
    spark.sql("CREATE TABLE " + table + " (id INT, v STRING) USING iceberg");
    for (int i = 0; i < count; i++) {
      String sql = "INSERT INTO " + table + " VALUES (" + (100 - i) + ", 'a" + i + "'), (" + (50 - i) + ", 'b" + i + "')";
      CommitMetadata.withCommitProperties(Map.of(CommitMarker.BATCH_ID, "k" + i), () -> spark.sql(sql).collectAsList(),
          RuntimeException.class);
    }
  }

  /**
   * Runs the main in a child JVM, kills it (SIGKILL) once its log names the action and a file of
   * the table's folder came or went, then runs the same request again here; asserts the rows and
   * the batch markers are the table's before, and that the second run succeeds.
   */
  private static Table killThenRunAgain(String table, String profileLines, String actionLogged, String... options)
      throws Exception {
    Table before = load(table);
    List<String> rowsBefore = TableMaintenanceTest.icebergRows(before);
    Set<String> markers = new java.util.TreeSet<>();
    before.snapshots().forEach(s -> Optional.ofNullable(s.summary().get(CommitMarker.BATCH_ID)).ifPresent(markers::add));
    Path folder = folder(before);
    List<String> args = arguments(table, profileLines, options);

    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(SparkJavaOptions.load());
    command.addAll(List.of("-Xmx1g", "-Dspark.master=local[1]", "-Dspark.ui.enabled=false",
        "-Dspark.sql.shuffle.partitions=2", "-cp", System.getProperty("java.class.path"), MaintainMain.class.getName()));
    command.addAll(args);
    Path log = root.resolve("maintain-" + table + ".log");
    Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      Instant deadline = Instant.now().plus(Duration.ofMinutes(3));
      while (!Files.readString(log).contains(actionLogged)) {
        assertThat(child.isAlive()).as("the child logs \"%s\" before it ends: %s", actionLogged, Files.readString(log))
            .isTrue();
        assertThat(Instant.now()).as("the child starts the action").isBefore(deadline);
        TimeUnit.MILLISECONDS.sleep(10);
      }
      Set<String> files = files(folder);
      Instant changeDeadline = Instant.now().plusSeconds(30);
      while (files.equals(files(folder)) && Instant.now().isBefore(changeDeadline) && child.isAlive()) {
        TimeUnit.MILLISECONDS.sleep(5);
      }
      assertThat(child.isAlive()).as("the child is still in the action when it is killed: %s", Files.readString(log))
          .isTrue();
    } finally {
      child.destroyForcibly(); // SIGKILL
      child.waitFor(1, TimeUnit.MINUTES);
    }
    assertThat(child.exitValue()).as("killed by SIGKILL").isEqualTo(137);
    assertThat(Files.readString(log)).doesNotContain("{\"files2iceberg-maintain\"");

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = MaintainMain.run(spark, MaintainRequest.parse(args.toArray(String[]::new)),
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));

    assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isEqualTo(MaintainMain.EXIT_OK);
    assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("{\"files2iceberg-maintain\":{\"table\":\"" + table
        + "\",\"dryRun\":false,");
    Table after = load(table);
    assertThat(TableMaintenanceTest.icebergRows(after)).isEqualTo(rowsBefore);
    assertThat(markers).isNotEmpty().allSatisfy(batch -> assertThat(CommitMarker.find(after, batch)).isPresent());
    return after;
  }

  private static List<String> arguments(String table, String profileLines, String... options) throws Exception {
    TableProfile profile = ProfileLoader.parse("extract.path = \"file:///landing/k/*.json\"\nextract.format = json\n"
        + "load.iceberg.table = \"" + table + "\"\n" + profileLines, Path.of("k.conf"), home);
    List<String> args = new ArrayList<>(List.of("--profile", ProfileJson.toJson(profile),
        "--retention-cutoff", Instant.now().minus(Duration.ofDays(7)).toString(), "--protect-newest", "10"));
    args.addAll(List.of(options));
    return args;
  }

  private static Table load(String table) throws Exception {
    Table loaded = Spark3Util.loadIcebergTable(spark, table);
    loaded.refresh();
    return loaded;
  }

  private static Path folder(Table table) {
    String location = table.location();
    return Path.of(java.net.URI.create(location.startsWith("file:") ? location : "file://" + location));
  }

  /** The files under the folder; a walk that meets a file as it goes stands for a change. */
  private static Set<String> files(Path folder) throws Exception {
    try (Stream<Path> walk = Files.walk(folder)) {
      return walk.filter(Files::isRegularFile).map(Path::toString).collect(Collectors.toSet());
    } catch (java.io.UncheckedIOException | java.io.IOException e) {
      return Set.of("(changing)");
    }
  }

  private static List<String> dataFiles(Table table) throws Exception {
    List<String> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(t -> files.add(t.file().location()));
    }
    return files;
  }

  private static Set<String> deleteFiles(Table table) throws Exception {
    Set<String> files = new java.util.HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(t -> t.deletes().forEach(d -> files.add(d.location())));
    }
    return files;
  }
}
