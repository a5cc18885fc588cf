package io.files2iceberg.core.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.core.profile.DeploymentLoader;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileLoader;
import io.files2iceberg.core.profile.TableProfile;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BatchManifestCodecTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path home;
  private BatchManifest manifest;

  @BeforeEach
  void exampleBatch() throws Exception {
    TableProfile profile =
        ProfileLoader.load(Path.of("src/test/resources/profiles/clickstream.conf"), new Home(home));
    manifest =
        new BatchManifest(
            BatchManifest.CURRENT_VERSION,
            "20261130T120000-1a2b3c4d",
            profile,
            DeploymentLoader.defaults(new Home(home)),
            IngestionType.INCREMENTAL,
            true,
            Instant.parse("2026-11-30T12:00:00Z"),
            List.of(
                new ManifestFile(
                    "f1",
                    "gs://my-lakehouse-bucket/raw/clicks/dt=2026-11-29/part-0.parquet",
                    "2026-11-29",
                    1764460800123456L,
                    1048576,
                    "1234567890",
                    Instant.parse("2026-11-29T23:59:01Z")),
                new ManifestFile(
                    "f2",
                    "gs://my-lakehouse-bucket/raw/clicks/dt=2026-11-29/part-1.parquet",
                    "2026-11-29",
                    1764460800123457L,
                    2048,
                    "1234567891",
                    Instant.parse("2026-11-29T23:59:02Z"))));
  }

  @Test
  void manifestRoundTripsWithItsResolvedProfile() {
    BatchManifest read = BatchManifestCodec.fromJson(BatchManifestCodec.toJson(manifest), "m.json");

    assertThat(read.batchId()).isEqualTo(manifest.batchId());
    assertThat(read.files()).isEqualTo(manifest.files());
    assertThat(read.mode()).isEqualTo(IngestionType.INCREMENTAL);
    assertThat(read.saveCheckpoint()).isTrue();
    assertThat(read.createdAt()).isEqualTo(manifest.createdAt());
    assertThat(read.profile()).isEqualTo(manifest.profile());
    assertThat(read.eventIds()).containsExactly("1234567890", "1234567891");
  }

  @Test
  void anArchivedFileRoundTripsWithItsArchiveAndTheOthersHaveNone() throws Exception {
    ManifestFile landed = manifest.files().get(0);
    ManifestFile archived = new ManifestFile("f3", "gs://my-lakehouse-bucket/raw/clicks/dt=2026-10-01/part-0.parquet",
        "2026-10-01", 11L, 64, "1234567892", Instant.parse("2026-10-01T00:00:01Z"),
        java.util.Optional.of(new ManifestFile.Archive("gs://archive/raw/clicks/dt=2026-10-01/part-0.parquet", 99L)));
    BatchManifest withArchive = new BatchManifest(manifest.version(), manifest.batchId(), manifest.profile(),
        manifest.deployment(), manifest.mode(), manifest.saveCheckpoint(), manifest.createdAt(),
        List.of(landed, archived));

    String json = BatchManifestCodec.toJson(withArchive);
    BatchManifest read = BatchManifestCodec.fromJson(json, "m.json");

    assertThat(read.files()).containsExactly(landed, archived);
    assertThat(read.files().get(1).readUri()).isEqualTo("gs://archive/raw/clicks/dt=2026-10-01/part-0.parquet");
    assertThat(read.files().get(1).readGeneration()).isEqualTo(99L);
    assertThat(read.files().get(1).uri()).isEqualTo(archived.uri());
    assertThat(read.files().get(0).readUri()).isEqualTo(landed.uri());
    assertThat(JSON.readTree(json).path("files").get(0).has("archive")).isFalse();
  }

  @Test
  void anArchiveWithoutItsGenerationIsNamed() {
    assertThatThrownBy(() -> read(root -> ((ObjectNode) root.path("files").get(1)).putObject("archive")
        .put("uri", "gs://archive/part-1.parquet")))
        .hasMessage("Invalid manifest m.json: files[1].archive.generation: is missing");
  }

  @Test
  void notJsonIsRejectedNamingTheOrigin() {
    assertThatThrownBy(() -> BatchManifestCodec.fromJson("{not json", "gs://b/m.json"))
        .isInstanceOf(InvalidManifestException.class)
        .hasMessageStartingWith("Invalid manifest gs://b/m.json: not JSON");
  }

  @Test
  void newerVersionIsRejectedSayingSo() {
    assertThatThrownBy(() -> read(root -> root.put("version", 3)))
        .hasMessage(
            "Invalid manifest m.json: version: this build reads versions 1 to 2, the manifest is version 3"
                + " (written by a newer files2iceberg)");
  }

  /**
   * A batch launched by the build before the deployment file, run or recovered by this one: its
   * manifest is version 1, whose profile carries the ledger, listener and job sections.
   */
  @Test
  void versionOneWithTheDeploymentInTheProfileReadsAsTheSameBatch() throws Exception {
    BatchManifest read = read(root -> {
      root.put("version", 1);
      ObjectNode deployment = (ObjectNode) root.remove("deployment");
      ObjectNode profile = (ObjectNode) root.get("profile");
      deployment.fields().forEachRemaining(section -> profile.set(section.getKey(), section.getValue()));
    });

    assertThat(read).isEqualTo(manifest);
  }

  @Test
  void wrongFormatMarkerIsRejected() {
    assertThatThrownBy(() -> read(root -> root.put("format", "something-else")))
        .hasMessageContaining("format: expected \"files2iceberg-batch-manifest\"");
  }

  @Test
  void missingFieldIsNamed() {
    assertThatThrownBy(() -> read(root -> root.remove("batchId")))
        .hasMessage("Invalid manifest m.json: batchId: is missing");
  }

  @Test
  void unknownModeListsTheAllowedOnes() {
    assertThatThrownBy(() -> read(root -> root.put("mode", "sometimes")))
        .hasMessage(
            "Invalid manifest m.json: mode: expected one of incremental, last, full, got \"sometimes\"");
  }

  @Test
  void fileFieldErrorsNameTheFileIndex() {
    assertThatThrownBy(
            () -> read(root -> ((ObjectNode) root.withArray("files").get(1)).put("generation", "x")))
        .hasMessage("Invalid manifest m.json: files[1].generation: expected a whole number, got \"x\"");
    assertThatThrownBy(
            () -> read(root -> ((ObjectNode) root.withArray("files").get(0)).put("eventTime", "yesterday")))
        .hasMessageContaining("files[0].eventTime: expected an ISO-8601 instant");
  }

  @Test
  void emptyFileListIsRejected() {
    assertThatThrownBy(() -> read(root -> root.putArray("files")))
        .hasMessageContaining("files: expected a non-empty list of files");
  }

  @Test
  void aFileListedTwiceIsRejected() {
    assertThatThrownBy(
            () ->
                read(
                    root -> {
                      ArrayNode files = root.withArray("files");
                      files.add(files.get(0).deepCopy());
                    }))
        .hasMessageContaining("files[2].fileId: file f1 (gs://my-lakehouse-bucket/raw/clicks/dt=2026-11-29/part-0.parquet) is listed twice");
  }

  @Test
  void tableThatDisagreesWithTheProfileIsRejected() {
    assertThatThrownBy(() -> read(root -> root.put("table", "local.demo.other")))
        .hasMessage(
            "Invalid manifest m.json: table: is \"local.demo.other\" but the profile loads"
                + " \"prod_catalog.raw.clickstream\"");
  }

  @Test
  void invalidProfileIsRejectedWithItsKeyPath() {
    assertThatThrownBy(
            () -> read(root -> ((ObjectNode) root.get("profile").get("extract")).put("max-batch-size", 0)))
        .hasMessageContaining("Invalid manifest m.json: profile: ")
        .hasMessageContaining("extract.max-batch-size");
  }

  private BatchManifest read(Consumer<ObjectNode> edit) throws Exception {
    ObjectNode root = (ObjectNode) JSON.readTree(BatchManifestCodec.toJson(manifest));
    edit.accept(root);
    return BatchManifestCodec.fromJson(JSON.writeValueAsString(root), "m.json");
  }
}
