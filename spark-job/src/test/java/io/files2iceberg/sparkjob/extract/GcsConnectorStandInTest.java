package io.files2iceberg.sparkjob.extract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.files2iceberg.core.storage.StorageStandIn;
import io.files2iceberg.sparkjob.sql.TestSessions;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.iceberg.gcp.gcs.GCSFileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Spark reads {@code gs://} through the Hadoop GCS connector, and Iceberg's {@code GCSFileIO}
 * writes and reads, against the loopback {@link StorageStandIn}: the settings that point them at
 * it, and the JSON API calls they make (logged at the end of each test).
 */
class GcsConnectorStandInTest {
  private static final Logger LOG = LoggerFactory.getLogger(GcsConnectorStandInTest.class);
  private static final String BUCKET = "landing-connector";

  @TempDir
  static Path temp;

  private static StorageStandIn standIn;
  private static SparkSession spark;

  @BeforeAll
  static void startStandInAndPointTheConnectorAtIt() {
    standIn = StorageStandIn.start(temp.resolve("gcs"));
    standIn.createBucket(BUCKET);
    spark = TestSessions.newSession(Map.of());
    Configuration hadoop = spark.sparkContext().hadoopConfiguration();
    hadoop.set("fs.gs.impl", GoogleHadoopFileSystemWithoutOpenFile.class.getName());
    hadoop.set("fs.gs.storage.root.url", standIn.endpoint() + "/");
    hadoop.set("fs.gs.auth.type", "UNAUTHENTICATED");
    hadoop.set("fs.gs.project.id", "test-project");
  }

  @AfterAll
  static void stopStandIn() throws IOException {
    // The file system cache is keyed by bucket, not by endpoint: a later test's stand-in must not
    // meet this one's cached connector.
    FileSystem.get(URI.create("gs://" + BUCKET + "/"), spark.sparkContext().hadoopConfiguration()).close();
    standIn.close();
  }

  /** Parquet files written by Spark to a local folder, each put into the bucket under {@code folder}. */
  private static List<String> putParquet(String folder, int rows) throws IOException {
    Path local = temp.resolve("parquet-" + System.nanoTime());
    spark.range(rows).selectExpr("id", "concat('click-', id) AS label").coalesce(1)
        .write().parquet(local.toString());
    try (Stream<Path> files = Files.list(local)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".parquet")).map(f -> {
        try {
          String name = folder + f.getFileName();
          standIn.put(BUCKET, name, Files.readAllBytes(f), "application/octet-stream");
          return name;
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }).toList();
    }
  }

  private static void logRequests(String what, int from) {
    List<String> requests = standIn.requests();
    LOG.info("{}: {} requests\n  {}", what, requests.size() - from,
        String.join("\n  ", requests.subList(from, requests.size())));
  }

  @Test
  void sparkReadsOneParquetFileThroughGs() throws IOException {
    String name = putParquet("raw/one/", 5).get(0);
    int from = standIn.requests().size();

    List<Row> rows = spark.read().parquet("gs://" + BUCKET + "/" + name).orderBy("id").collectAsList();

    logRequests("one Parquet file", from);
    assertThat(rows).extracting(row -> row.getString(1))
        .containsExactly("click-0", "click-1", "click-2", "click-3", "click-4");
    assertThat(standIn.requests().subList(from, standIn.requests().size()))
        .anySatisfy(request -> assertThat(request).contains("alt=media"));
  }

  @Test
  void sparkReadsAFolderOfParquetFilesThroughGs() throws IOException {
    putParquet("raw/dt=2024-01-01/", 3);
    putParquet("raw/dt=2024-01-01/", 4);
    standIn.put(BUCKET, "raw/dt=2024-01-01/_SUCCESS", new byte[0]);
    int from = standIn.requests().size();

    long count = spark.read().parquet("gs://" + BUCKET + "/raw/dt=2024-01-01/").count();

    logRequests("a folder of Parquet files", from);
    assertThat(count).isEqualTo(7);
  }

  @Test
  void sparkReadsACsvFileThroughGs() {
    standIn.put(BUCKET, "csv/clicks 1.csv", "id,label\n1,a\n2,b\n".getBytes(StandardCharsets.UTF_8), "text/csv");
    int from = standIn.requests().size();

    List<Row> rows = spark.read().option("header", "true").csv("gs://" + BUCKET + "/csv/clicks 1.csv")
        .orderBy("id").collectAsList();

    logRequests("one CSV file with a space in its name", from);
    assertThat(rows).extracting(row -> row.getString(1)).containsExactly("a", "b");
  }

  @Test
  void bracketsInAPathAreAGlobUnlessEscaped() {
    standIn.put(BUCKET, "glob/file[1].csv", "id\n1\n".getBytes(StandardCharsets.UTF_8), "text/csv");
    int from = standIn.requests().size();

    // As a glob, [1] is the character class that matches "1": file1.csv, which is not there.
    assertThatThrownBy(() -> spark.read().option("header", "true").csv("gs://" + BUCKET + "/glob/file[1].csv").count())
        .hasMessageContaining("Path does not exist: gs://" + BUCKET + "/glob/file[1].csv");
    long escaped = spark.read().option("header", "true").csv("gs://" + BUCKET + "/glob/file\\[1\\].csv").count();

    logRequests("a name with [1], plain then escaped", from);
    assertThat(escaped).isEqualTo(1);
  }

  @Test
  void icebergGcsFileIoWritesAndReadsThroughTheStandIn() throws IOException {
    int from = standIn.requests().size();
    byte[] content = "{\"format-version\":2}\n".repeat(1000).getBytes(StandardCharsets.UTF_8);
    String location = "gs://" + BUCKET + "/warehouse/db/clicks/metadata/v1.metadata.json";

    try (GCSFileIO io = new GCSFileIO()) {
      io.initialize(Map.of("gcs.service.host", standIn.endpoint(), "gcs.no-auth", "true",
          "gcs.project-id", "test-project"));
      OutputFile out = io.newOutputFile(location);
      try (PositionOutputStream stream = out.create()) {
        stream.write(content);
      }
      InputFile in = io.newInputFile(location);
      byte[] tail = new byte[21];
      try (SeekableInputStream stream = in.newStream()) {
        stream.seek(content.length - 21);
        assertThat(stream.readNBytes(tail, 0, 21)).isEqualTo(21);
      }

      assertThat(in.exists()).isTrue();
      assertThat(in.getLength()).isEqualTo(content.length);
      assertThat(new String(tail, StandardCharsets.UTF_8)).isEqualTo("{\"format-version\":2}\n");
      assertThat(Files.readAllBytes(standIn.file(BUCKET, "warehouse/db/clicks/metadata/v1.metadata.json")))
          .isEqualTo(content);
      io.deleteFile(location);
      assertThat(io.newInputFile(location).exists()).isFalse();

      List<String> manifests = List.of("gs://" + BUCKET + "/warehouse/db/clicks/metadata/m1.avro",
          "gs://" + BUCKET + "/warehouse/db/clicks/metadata/m2.avro");
      for (String manifest : manifests) {
        try (PositionOutputStream stream = io.newOutputFile(manifest).createOrOverwrite()) {
          stream.write(1);
        }
      }
      io.deleteFiles(manifests);
      assertThat(manifests).noneMatch(manifest -> io.newInputFile(manifest).exists());
    }
    logRequests("GCSFileIO", from);
  }
}
