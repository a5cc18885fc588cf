package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ProfileFixtures.registryErrors;
import static io.files2iceberg.core.profile.ProfileFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.match.Glob;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProfileRegistryTest {

  @TempDir Path dir;

  private Home home() {
    return new Home(dir.resolve("home"));
  }

  private static String profile(String glob, String table) {
    return "extract.path = \"" + glob + "\"\nload.iceberg.table = \"" + table + "\"\n";
  }

  @Test
  void folderOfTheIssueExampleLoadsAndFindsItsProfileByTableAndName() throws Exception {
    ProfileRegistry registry = ProfileRegistry.load(Path.of("src/test/resources/profiles"), home());

    assertThat(registry.profiles()).extracting(TableProfile::name).containsExactly("clickstream");
    assertThat(registry.byTable("prod_catalog.raw.clickstream")).isPresent();
    assertThat(registry.byName("clickstream"))
        .isEqualTo(registry.byTable("prod_catalog.raw.clickstream"));
    assertThat(registry.byTable("prod_catalog.raw.other")).isEmpty();
    assertThat(registry.byName("other")).isEmpty();
  }

  @Test
  void profilesOfAllFormatsAreLoadedSortedByFileNameAndOtherFilesIgnored() throws Exception {
    write(
        dir,
        "b_orders.yml",
        "extract.path: gs://bucket/raw/orders/*.csv\nload.iceberg.table: p.raw.orders\n");
    write(dir, "a_clicks.conf", profile("gs://bucket/raw/clicks/*.parquet", "p.raw.clicks"));
    write(
        dir,
        "part-00000.parquet.yaml",
        profile("gs://bucket/raw/views/*.parquet", "p.raw.views").replace(" = ", ": "));
    write(dir, "README.md", "not a profile");
    write(dir, "part-00000.parquet", "not a profile either");
    write(dir.resolve("nested"), "c.conf", "not read: the folder is not searched recursively");

    ProfileRegistry registry = ProfileRegistry.load(dir, home());

    assertThat(registry.profiles())
        .extracting(TableProfile::name)
        .containsExactly("a_clicks", "b_orders", "part-00000.parquet");
  }

  @Test
  void singleFileIsARegistryOfOne() throws Exception {
    Path file = write(dir, "clicks.conf", profile("gs://bucket/raw/*.parquet", "p.raw.clicks"));

    assertThat(ProfileRegistry.load(file, home()).profiles())
        .extracting(TableProfile::table)
        .containsExactly("p.raw.clicks");
  }

  @Test
  void overlappingGlobsAreRejectedNamingBothFiles() {
    write(dir, "a.conf", profile("gs://bucket/raw/clicks/dt=*/*.parquet", "p.raw.clicks"));
    Path b = write(dir, "b.conf", profile("gs://bucket/raw/**", "p.raw.everything"));

    assertThat(registryErrors(dir, home()))
        .containsExactly(
            b.toAbsolutePath()
                + ": extract.path: \"gs://bucket/raw/**\" can claim the same objects as"
                + " \"gs://bucket/raw/clicks/dt=*/*.parquet\" in a.conf; each object must belong to"
                + " one profile");
  }

  @Test
  void globsOverlappingThroughBracesOrWildcardsInTheMiddleAreRejected() {
    assertThat(
            Glob.parse("gs://b/raw/{clicks,views}/*.parquet").overlaps(Glob.parse("gs://b/raw/views/x.parquet")))
        .isTrue();
    assertThat(Glob.parse("gs://b/raw/*/x.parquet").overlaps(Glob.parse("gs://b/raw/clicks/*.parquet")))
        .isTrue();
    assertThat(Glob.parse("gs://b/raw/**/*.csv").overlaps(Glob.parse("gs://b/raw/a.csv"))).isTrue();
  }

  @Test
  void globsOfDifferentFoldersBucketsOrExtensionsDoNotOverlap() throws Exception {
    write(dir, "a.conf", profile("gs://bucket/raw/clicks/dt=*/*.parquet", "p.raw.clicks"));
    write(dir, "b.conf", profile("gs://bucket/raw/clicks/other/*.parquet", "p.raw.other"));
    write(dir, "c.conf", profile("gs://bucket/raw/clicks/dt=*/*.csv", "p.raw.csv")
        + "extract.batch-file.success-file-name = _CSV_DONE\n");
    write(dir, "d.conf", profile("gs://bucket-2/raw/clicks/dt=*/*.parquet", "p.raw.clicks2"));

    assertThat(ProfileRegistry.load(dir, home()).profiles()).hasSize(4);
    assertThat(Glob.parse("gs://b/raw/*").overlaps(Glob.parse("gs://b/raw/clicks/*.parquet"))).isFalse();
  }

  @Test
  void profilesSharingAFolderMustWaitForMarkersOfDifferentNames() {
    write(dir, "a.conf", profile("gs://bucket/raw/*.csv", "p.raw.csv"));
    Path b = write(dir, "b.conf", profile("gs://bucket/raw/*.json", "p.raw.json"));

    assertThat(registryErrors(dir, home()))
        .containsExactly(
            b.toAbsolutePath()
                + ": extract.batch-file.success-file-name: a success marker \"_SUCCESS\" in a folder of"
                + " \"gs://bucket/raw/*.json\" would also complete a partition of \"gs://bucket/raw/*.csv\""
                + " in a.conf; give one of them another success-file-name");
  }

  @Test
  void profilesSharingAFolderLoadWithDistinctMarkersOrWithoutMarkers() throws Exception {
    write(dir, "a.conf", profile("gs://bucket/raw/*.csv", "p.raw.csv"));
    write(dir, "b.conf", profile("gs://bucket/raw/*.json", "p.raw.json")
        + "extract.batch-file.success-file-name = _JSON_SUCCESS\n");
    write(dir, "c.conf", profile("gs://bucket/raw/*.avro", "p.raw.avro")
        + "extract.batch-file.success-file-filter = false\n");

    assertThat(ProfileRegistry.load(dir, home()).profiles()).hasSize(3);
    assertThat(Glob.parse("gs://b/raw/dt=*/*.csv").sharesFolders(Glob.parse("gs://b/raw/**/*.json"))).isTrue();
    assertThat(Glob.parse("gs://b/raw/clicks/*.csv").sharesFolders(Glob.parse("gs://b/raw/views/*.csv"))).isFalse();
    assertThat(Glob.parse("gs://b/raw/*.csv").sharesFolders(Glob.parse("gs://other/raw/*.csv"))).isFalse();
  }

  @Test
  void twoProfilesForOneTableAreRejectedNamingBothFiles() {
    write(dir, "a.conf", profile("gs://bucket/raw/a/*.parquet", "p.raw.clicks"));
    Path b = write(dir, "b.conf", profile("gs://bucket/raw/b/*.parquet", "p.raw.clicks"));

    assertThat(registryErrors(dir, home()))
        .containsExactly(
            b.toAbsolutePath()
                + ": load.iceberg.table: table \"p.raw.clicks\" is also loaded by a.conf; one"
                + " profile per table");
  }

  @Test
  void twoFilesWithOneProfileNameAreRejected() {
    write(dir, "clicks.conf", profile("gs://bucket/raw/a/*.parquet", "p.raw.a"));
    Path yaml =
        write(
            dir,
            "clicks.yaml",
            "extract.path: gs://bucket/raw/b/*.parquet\nload.iceberg.table: p.raw.b\n");

    assertThat(registryErrors(dir, home()))
        .containsExactly(
            yaml.toAbsolutePath() + ": has the same profile name \"clicks\" as clicks.conf");
  }

  @Test
  void profilesOfOldWithDifferentLedgersAreRejectedNamingBothFiles() {
    write(dir, "a.conf", profile("gs://bucket/raw/a/*.parquet", "p.raw.a") + "ledger.type = sqlite\n");
    Path b =
        write(
            dir,
            "b.conf",
            profile("gs://bucket/raw/b/*.parquet", "p.raw.b")
                + "ledger { type = test-sqlite, properties.file = /tmp/t.db }\n");

    assertThat(registryErrors(dir, home()))
        .containsExactly(
            b.toAbsolutePath()
                + ": ledger.type: is \"test-sqlite\" here but \"sqlite\" in a.conf;"
                + " a deployment has one ledger (better: move the sections to one deployment file)",
            b.toAbsolutePath()
                + ": ledger.properties: is {\"file\":\"/tmp/t.db\"} here but {} in a.conf;"
                + " a deployment has one ledger (better: move the sections to one deployment file)");
  }

  @Test
  void profilesOfOldWithDifferentListenersAreRejectedNamingBothFiles() {
    write(dir, "a.conf", profile("gs://bucket/raw/a/*.parquet", "p.raw.a") + "listener.port = 8081\n");
    Path b =
        write(
            dir,
            "b.conf",
            profile("gs://bucket/raw/b/*.parquet", "p.raw.b") + "listener.port = 9090\n");

    assertThat(registryErrors(dir, home()))
        .containsExactly(
            b.toAbsolutePath()
                + ": listener.port: is 9090 here but 8081 in a.conf; a deployment has one"
                + " listener (better: move the sections to one deployment file)");
  }

  @Test
  void oneCatalogNameWithDifferentSettingsIsRejected() throws Exception {
    write(dir, "a.conf", profile("gs://bucket/raw/a/*.parquet", "p.raw.a"));
    Path b =
        write(
            dir,
            "b.conf",
            profile("gs://bucket/raw/b/*.parquet", "p.raw.b") + "catalog.type = hadoop\n");
    write(
        dir,
        "c.conf",
        profile("gs://bucket/raw/c/*.parquet", "q.raw.c") + "catalog.type = hadoop\n");

    assertThat(registryErrors(dir, home()))
        .containsExactly(
            b.toAbsolutePath()
                + ": catalog.type: is \"hadoop\" here but \"jdbc\" in a.conf;"
                + " both use catalog \"p\", and a catalog name has one set of settings",
            b.toAbsolutePath()
                + ": catalog.uri: is \"\" here but \"jdbc:sqlite:"
                + home().catalogDb()
                + "\" in a.conf; both use catalog \"p\", and a catalog name has one set of"
                + " settings");
  }

  @Test
  void problemsOfEveryFileAreReportedTogether() {
    Path a = write(dir, "a.conf", "extract.path = \"gs://bucket/raw/*.parquet\"\n");
    Path b = write(dir, "b.yaml", "load.iceberg.table: p.raw.b\n");

    assertThat(registryErrors(dir, home()))
        .containsExactly(
            a + ": load.iceberg.table: required key is missing",
            b + ": extract.path: required key is missing");
  }

  @Test
  void emptyOrMissingFolderIsRejected() {
    assertThat(registryErrors(dir, home()))
        .containsExactly(dir + ": holds no .conf, .yaml or .yml profile");
    assertThat(registryErrors(dir.resolve("absent"), home()))
        .containsExactly(dir.resolve("absent") + ": no such file or folder");
  }
}
