package io.files2iceberg.batcher.engine;

import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.DeploymentLoader;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.contrib.nio.testing.LocalStorageHelper;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.BatchManifestCodec;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.match.Glob;
import io.files2iceberg.core.profile.TableProfile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Listings for mode full and backfills, and where manifests are written; no Spark. */
class StorageListingTest {
  @TempDir Path dir;

  @Test
  void localListingKeepsDataFilesOfMarkedPartitionsWithTheListenersIdentity() throws Exception {
    try (Landing landing = Landing.inMemory(dir)) {
      landing.profile("clicks", "");
      Path a = landing.write("clicks", "p1", "part-0.csv", "1,10");
      Path b = landing.write("clicks", "p1", "part-1.csv", "2,20");
      landing.markReady("clicks", "p1");
      Files.writeString(a.resolveSibling(".part-0.csv.crc"), "x");
      Files.writeString(a.resolveSibling("empty.csv"), "");
      landing.write("clicks", "p2", "part-0.csv", "3,30"); // no marker yet
      TableProfile profile = landing.registry().byName("clicks").orElseThrow();

      List<ManifestFile> files = new StorageListing(() -> null).list(profile);

      assertThat(files).extracting(ManifestFile::uri)
          .containsExactly("file://" + a.toAbsolutePath(), "file://" + b.toAbsolutePath());
      assertThat(files).extracting(ManifestFile::partition).containsOnly("p1");
      assertThat(files).extracting(ManifestFile::eventId).containsOnly(StorageListing.LISTING_EVENT);
      // The same id the listener gives the file, so a listed file and a notified one are one file.
      assertThat(files.get(0).fileId()).isEqualTo(landing.record(a));
      assertThat(files.get(0).generation()).isEqualTo(Landing.generation(a));
      assertThat(files.get(0).size()).isEqualTo(Files.size(a));
    }
  }

  @Test
  void localListingWithoutTheSuccessFilterTakesEveryPartition() throws Exception {
    try (Landing landing = Landing.inMemory(dir)) {
      landing.profile("clicks", "extract.batch-file.success-file-filter = false\n");
      landing.write("clicks", "p1", "part-0.csv", "1,10");
      landing.write("clicks", "p2", "part-0.csv", "2,20");
      TableProfile profile = landing.registry().byName("clicks").orElseThrow();

      assertThat(new StorageListing(() -> null).list(profile)).extracting(ManifestFile::partition)
          .containsExactly("p1", "p2");
    }
  }

  @Test
  void aGlobWithClassesAndEscapesListsFromItsUnescapedPrefixAndFindsOnlyTheFoldersTheClassAllows() throws Exception {
    try (Landing landing = Landing.inMemory(dir)) {
      Path folder = landing.landing.resolve("clicks[eu]+(1)");
      landing.profile("clicks", "extract.path = \"file://"
          + Glob.escape(folder.toAbsolutePath().toString()).replace("\\", "\\\\") + "/p[0-9]/part-*.csv\"\n");
      Path p1 = landing.write("clicks[eu]+(1)", "p1", "part-0.csv", "1,10");
      landing.write("clicks[eu]+(1)", "p2", "part-0.csv", "2,20"); // no marker yet
      landing.write("clicks[eu]+(1)", "px", "part-0.csv", "3,30"); // not a folder of the class
      Files.writeString(folder.resolve("p1/_SUCCESS"), "");
      Files.writeString(folder.resolve("px/_SUCCESS"), "");
      TableProfile profile = landing.registry().byName("clicks").orElseThrow();
      StorageListing listing = new StorageListing(() -> null);

      assertThat(listing.list(profile)).extracting(ManifestFile::uri).containsExactly("file://" + p1.toAbsolutePath());
      assertThat(listing.partitionFolders(profile)).extracting(StorageListing.PartitionFolder::uri)
          .containsExactly("file://" + folder.toAbsolutePath() + "/p1/", "file://" + folder.toAbsolutePath() + "/p2/");
    }
  }

  @Test
  void withRecursiveFileLookupAListingTakesFilesInSubfoldersIntoTheirPartitionFoldersPartition() throws Exception {
    try (Landing landing = Landing.inMemory(dir)) {
      landing.profile("clicks", "extract.recursive-file-lookup = true\n");
      Path direct = landing.write("clicks", "p1", "part-0.csv", "1,10");
      Path nested = landing.write("clicks", "p1/sub/deeper", "part-1.csv", "2,20");
      landing.write("clicks", "p1/.staging", "part-2.csv", "3,30"); // hidden: not data
      landing.markReady("clicks", "p1");
      TableProfile profile = landing.registry().byName("clicks").orElseThrow();
      StorageListing listing = new StorageListing(() -> null);

      List<ManifestFile> files = listing.list(profile);
      List<StorageListing.PartitionFolder> folders = listing.partitionFolders(profile);
      StorageListing.Scan scan = listing.scan(profile, List.of(folders.get(0).prefix()));

      assertThat(files).extracting(ManifestFile::uri)
          .containsExactly("file://" + direct.toAbsolutePath(), "file://" + nested.toAbsolutePath());
      assertThat(files).extracting(ManifestFile::partition).containsOnly("p1");
      assertThat(folders).extracting(StorageListing.PartitionFolder::token).containsExactly(Optional.of("p1"));
      assertThat(scan.data()).extracting(found -> found.object().location().uri())
          .containsExactly("file://" + direct.toAbsolutePath(), "file://" + nested.toAbsolutePath());
    }
  }

  @Test
  void withoutRecursiveFileLookupAListingLeavesFilesInSubfoldersOut() throws Exception {
    try (Landing landing = Landing.inMemory(dir)) {
      landing.profile("clicks", "");
      Path direct = landing.write("clicks", "p1", "part-0.csv", "1,10");
      landing.write("clicks", "p1/sub", "part-1.csv", "2,20");
      landing.markReady("clicks", "p1");
      TableProfile profile = landing.registry().byName("clicks").orElseThrow();

      assertThat(new StorageListing(() -> null).list(profile)).extracting(ManifestFile::uri)
          .containsExactly("file://" + direct.toAbsolutePath());
    }
  }

  @Test
  void aFullListingFailsNamingAFileThatMissesAStrictPatternAndLeavesItOutOtherwise() throws Exception {
    try (Landing landing = Landing.inMemory(dir)) {
      landing.profile("strict", "extract.batch-file { pattern = \".*/(p[0-9]+)/[^/]+\", strict-pattern = true }\n");
      landing.profile("lenient", "extract.batch-file { pattern = \".*/(p[0-9]+)/[^/]+\", strict-pattern = false }\n");
      for (String table : List.of("strict", "lenient")) {
        landing.write(table, "p1", "part-0.csv", "1,10");
        landing.write(table, "latest", "part-0.csv", "2,20");
        landing.markReady(table, "p1");
      }
      ProfileRegistry registry = landing.registry();
      StorageListing listing = new StorageListing(() -> null);
      Path strictBad = landing.landing.resolve("strict/latest/part-0.csv");

      assertThatThrownBy(() -> listing.list(registry.byName("strict").orElseThrow()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("file://" + strictBad.toAbsolutePath() + " does not match extract.batch-file.pattern")
          .hasMessageContaining("(strict-pattern on)");
      assertThat(listing.list(registry.byName("lenient").orElseThrow())).extracting(ManifestFile::partition)
          .containsExactly("p1");
    }
  }

  @Test
  void gcsListingPagesThroughTheFixedPrefixAndWritesManifestsBesideIt() throws Exception {
    // LocalStorageHelper keeps no generations of its own: each object is created with one.
    Storage storage = LocalStorageHelper.getOptions().getService();
    List<String> names = List.of("raw/clicks/p1/part-0.csv", "raw/clicks/p1/part-1.csv", "raw/clicks/p1/_SUCCESS",
        "raw/clicks/p2/part-0.csv", "raw/other/p1/part-0.csv");
    for (int i = 0; i < names.size(); i++) {
      storage.create(BlobInfo.newBuilder(BlobId.of("bucket", names.get(i), 1000L + i)).build(),
          "id,amount\n1,10\n".getBytes(StandardCharsets.UTF_8));
    }
    try (Landing landing = Landing.inMemory(dir)) {
      Files.writeString(landing.config.resolve("clicks.conf"), """
          extract { path = "gs://bucket/raw/clicks/*/*.csv", format = csv }
          load.iceberg.table = "local.test.clicks"
          metadata.path = "gs://bucket/meta/clicks/"
          """);
      TableProfile profile = landing.registry().byName("clicks").orElseThrow();

      List<ManifestFile> files = new StorageListing(() -> storage).list(profile);

      assertThat(files).extracting(ManifestFile::uri)
          .containsExactly("gs://bucket/raw/clicks/p1/part-0.csv", "gs://bucket/raw/clicks/p1/part-1.csv");
      ManifestFile first = files.get(0);
      long generation = 1000L;
      assertThat(first.generation()).isEqualTo(generation);
      assertThat(first.fileId()).isEqualTo(LedgerSchema.fileId("bucket", "raw/clicks/p1/part-0.csv", generation));

      BatchManifest manifest = new BatchManifest(BatchManifest.CURRENT_VERSION, "full-20261130T120000-00000000",
          profile, DeploymentLoader.defaults(new Home(Path.of("home"))), IngestionType.FULL, false, Instant.parse("2026-11-30T12:00:00Z"), files);
      String uri = new ManifestStore(() -> storage).write(manifest);

      assertThat(uri).isEqualTo("gs://bucket/meta/clicks/batches/full-20261130T120000-00000000.json");
      String written = new String(storage.readAllBytes(BlobId.of("bucket",
          "meta/clicks/batches/full-20261130T120000-00000000.json")), StandardCharsets.UTF_8);
      assertThat(BatchManifestCodec.fromJson(written, uri)).isEqualTo(manifest);
    }
  }
}
