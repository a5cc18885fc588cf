package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ProfileFixtures.EVERY_KEY_HOCON;
import static io.files2iceberg.core.profile.ProfileFixtures.EVERY_KEY_YAML;
import static io.files2iceberg.core.profile.ProfileFixtures.MINIMAL;
import static io.files2iceberg.core.profile.ProfileFixtures.loadErrors;
import static io.files2iceberg.core.profile.ProfileFixtures.withSource;
import static io.files2iceberg.core.profile.ProfileFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.core.profile.BatchFile.PartitionType;
import io.files2iceberg.core.profile.Catalog.CatalogType;
import io.files2iceberg.core.profile.Extract.Format;
import io.files2iceberg.core.profile.Extract.LineageColumn;
import io.files2iceberg.core.profile.Extract.OnOverwrite;
import io.files2iceberg.core.profile.Load.MissingColumns;
import io.files2iceberg.core.profile.Load.SaveMode;
import io.files2iceberg.core.profile.Load.TableId;
import io.files2iceberg.core.profile.Transform.BadRecordPolicy;
import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProfileLoaderTest {

  private static final Path EXAMPLE_CONF = Path.of("src/test/resources/profiles/clickstream.conf");
  private static final Path EXAMPLE_YAML =
      Path.of("src/test/resources/profiles-yaml/clickstream.yaml");

  @TempDir Path dir;

  private static Map<String, String> orderedMap(String... keysAndValues) {
    Map<String, String> map = new java.util.LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      map.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return map;
  }

  private Home home() {
    return new Home(dir.resolve("home"));
  }

  @Test
  void everyKeyParsesToItsRecordField() throws Exception {
    TableProfile profile = ProfileLoader.load(write(dir, "orders.conf", EVERY_KEY_HOCON), home());

    assertThat(profile.name()).isEqualTo("orders");
    assertThat(profile.source()).isEqualTo(dir.resolve("orders.conf").toAbsolutePath().normalize());
    assertThat(profile.extract())
        .isEqualTo(
            new Extract(
                "gs://sales-bucket/raw/orders/*/*.csv",
                Format.CSV,
                Map.of("header", "true", "sep", ";"),
                true,
                new BatchFile(
                    IngestionType.FULL,
                    PartitionType.DATE,
                    Optional.of("raw/orders/(?<day>[0-9]{8})/.+"),
                    "order_day",
                    Optional.of("yyyyMMdd"),
                    true,
                    false,
                    "_DONE"),
                7,
                false,
                250,
                List.of(
                    LineageColumn.BATCH_ID,
                    LineageColumn.SOURCE_FILE,
                    LineageColumn.SOURCE_GENERATION,
                    LineageColumn.INGESTED_AT),
                true,
                OnOverwrite.RELOAD,
                OptionalLong.of(1_048_576),
                Extract.DatetimeRebase.LEGACY,
                Optional.of(java.time.ZoneId.of("Europe/Paris")),
                orderedMap("amount", "DECIMAL(12,2)", "order ts", "TIMESTAMP"),
                true));
    assertThat(profile.extract().schemaHints().keySet()).containsExactly("amount", "order ts");
    assertThat(profile.transform())
        .isEqualTo(
            new Transform(
                List.of("amount > 0", "region IS NOT NULL"),
                Map.of("amt", "amount", "cust", "customer_id"),
                Map.of("amount", "DECIMAL(12,2)"),
                BadRecordPolicy.REJECT,
                Optional.of("_rescued")));
    assertThat(profile.transform().renameColumns().keySet()).containsExactly("amt", "cust");
    assertThat(profile.load())
        .isEqualTo(
            new Load(
                new TableId("lake", "sales", "orders"),
                SaveMode.OVERWRITE,
                List.of("order_id", "region"),
                List.of("region", "days(order_ts)", "bucket(16, customer_id)", "truncate(4, sku)"),
                Optional.of("updated_at"),
                Load.SchemaEvolution.NONE,
                Map.of(
                    "write.merge.mode", "merge-on-read",
                    "write.update.mode", "merge-on-read",
                    "format-version", "2"),
                MissingColumns.NULL,
                Load.WriteMode.MERGE_ON_READ,
                Load.MergeScope.PARTITIONS,
                Optional.empty(),
                Optional.of(new Load.SnapshotDeletes(0.25)), Duration.ofDays(7)));
    assertThat(profile.load().tableProperties().keySet())
        .containsExactly("write.merge.mode", "write.update.mode", "format-version");
    assertThat(profile.metadata()).isEqualTo(new Metadata("gs://sales-bucket/metadata/orders/"));
    assertThat(profile.catalog())
        .isEqualTo(
            new Catalog(
                CatalogType.REST,
                "https://biglake.googleapis.com/iceberg/v1beta/restcatalog",
                "gs://sales-bucket/warehouse",
                Optional.of("sales-project"),
                Optional.of("org.example.Auth"),
                Optional.of("org.example.FileIO"),
                true,
                Map.of("header.X-Iceberg-Access-Delegation", "vended-credentials")));
    assertThat(profile.isEmbeddedCatalog()).isFalse();
  }

  @Test
  void everyKeyProfileSetsEveryKnownKey() {
    Problems problems = new Problems(dir);
    ProfileValues values =
        ProfileTree.read(write(dir, "orders.conf", EVERY_KEY_HOCON), problems)
            .map(tree -> new ProfileValues(tree, problems))
            .orElseThrow();

    // load.cdc needs a keyed incremental table and takes one of two styles: CdcProfileTest sets its keys.
    // maintain.z-order-by cannot go with maintain.sort-by: MaintainKeysTest sets it.
    // load.after-ingest cannot go with snapshot deletes (mode last or full): AfterIngestProfileTest sets its keys.
    assertThat(ProfileKeys.keys().stream().filter(key -> !key.path().startsWith("load.cdc."))
        .filter(key -> !key.path().startsWith("load.after-ingest."))
        .filter(key -> !key.path().equals("maintain.z-order-by")))
        .allSatisfy(key -> assertThat(values.isSet(key)).as(key.path()).isTrue());
  }

  @Test
  void yamlWithDottedKeysGivesTheSameProfileAsHocon() throws Exception {
    TableProfile hocon =
        ProfileLoader.load(write(dir.resolve("conf"), "orders.conf", EVERY_KEY_HOCON), home());
    Path yamlFile = write(dir.resolve("yaml"), "orders.yml", EVERY_KEY_YAML);

    TableProfile yaml = ProfileLoader.load(yamlFile, home());

    assertThat(withSource(yaml, hocon.source())).isEqualTo(hocon);
  }

  @Test
  void missingColumnsWrittenAsTheUnquotedNullLiteralMeansNull() throws Exception {
    Path file = write(dir, "clicks.conf", MINIMAL + "\nload.missing-columns = null\n");

    TableProfile profile = ProfileLoader.load(file, home());

    assertThat(profile.load().missingColumns()).isEqualTo(MissingColumns.NULL);
  }

  @Test
  void defaultsFillEveryKeyAMinimalProfileLeavesOut() throws Exception {
    Path file =
        write(
            dir,
            "clicks.conf",
            """
            extract.path = "file:///data/landing/clicks/*.parquet"
            load.iceberg.table = "local.demo.clicks"
            """);
    Path home = dir.resolve("home").toAbsolutePath();

    TableProfile profile = ProfileLoader.load(file, home());

    assertThat(profile.extract())
        .isEqualTo(
            new Extract(
                "file:///data/landing/clicks/*.parquet",
                Format.PARQUET,
                Map.of(),
                false,
                new BatchFile(
                    IngestionType.INCREMENTAL,
                    PartitionType.STRING,
                    Optional.empty(),
                    "partition",
                    Optional.empty(),
                    false,
                    true,
                    "_SUCCESS"),
                50,
                true,
                100,
                List.of(),
                false,
                OnOverwrite.IGNORE));
    assertThat(profile.transform())
        .isEqualTo(new Transform(List.of(), Map.of(), Map.of(), BadRecordPolicy.FAIL));
    assertThat(profile.load())
        .isEqualTo(
            new Load(
                new TableId("local", "demo", "clicks"),
                SaveMode.APPEND,
                List.of(),
                List.of(),
                Optional.empty(),
                Load.SchemaEvolution.ADD_NEW_COLUMNS,
                Map.of(),
                MissingColumns.KEEP));
    assertThat(profile.metadata().path())
        .isEqualTo(home.resolve("metadata").resolve("clicks") + File.separator);
    assertThat(profile.catalog())
        .isEqualTo(
            new Catalog(
                CatalogType.JDBC,
                "jdbc:sqlite:" + home.resolve("catalog.db"),
                home.resolve("warehouse").toString(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                false,
                Map.of()));
    assertThat(profile.isEmbeddedCatalog()).isTrue();
  }

  @Test
  void partitionColumnIsDerivedFromThePatternUnlessSet() throws Exception {
    String pattern = "extract.batch-file.pattern = \".+/dt=([^/]+)/.+\"\n";
    Path derived = write(dir.resolve("derived"), "clicks.conf", MINIMAL + pattern);
    Path set =
        write(
            dir.resolve("set"),
            "clicks.conf",
            MINIMAL + pattern + "extract.batch-file.partition-column = event_date\n");

    assertThat(ProfileLoader.load(derived, home()).extract().batchFile().partitionColumn())
        .isEqualTo("dt");
    assertThat(ProfileLoader.load(set, home()).extract().batchFile().partitionColumn())
        .isEqualTo("event_date");
  }

  @Test
  void lineageColumnsKeepTheirOrderInAnyCase() throws Exception {
    String lineage = "extract.lineage-columns = [_INGESTED_AT, _source_file]\n";
    Path file = write(dir, "clicks.conf", MINIMAL + lineage);

    assertThat(ProfileLoader.load(file, home()).extract().lineageColumns())
        .containsExactly(LineageColumn.INGESTED_AT, LineageColumn.SOURCE_FILE);
  }

  @Test
  void yamlTablePropertyKeysStayLiteralAndHoconOnesAreQuoted() throws Exception {
    Path yaml =
        write(
            dir,
            "clicks.yaml",
            """
            extract.path: gs://bucket/raw/clicks/*.parquet
            load:
              iceberg.table: prod.raw.clicks
              iceberg.table-properties:
                write.merge.mode: merge-on-read
                write.delete.mode: copy-on-write
            """);
    Path hocon =
        write(
            dir,
            "clicks.conf",
            MINIMAL
                + """
                  load.iceberg.table-properties {
                    "write.merge.mode" = merge-on-read
                    "write.delete.mode" = copy-on-write
                  }
                  """);
    Map<String, String> expected =
        Map.of("write.merge.mode", "merge-on-read", "write.delete.mode", "copy-on-write");

    assertThat(ProfileLoader.load(yaml, home()).load().tableProperties()).isEqualTo(expected);
    assertThat(ProfileLoader.load(hocon, home()).load().tableProperties()).isEqualTo(expected);
  }

  @Test
  void parsedTextIsTheProfileLoadedFromAConfFileOfThatText() throws Exception {
    Path file = write(dir, "orders.conf", EVERY_KEY_HOCON);

    assertThat(ProfileLoader.parse(EVERY_KEY_HOCON, file, home()))
        .isEqualTo(ProfileLoader.load(file, home()));
  }

  @Test
  void parseNamesTheProfileAfterTheSource() throws Exception {
    Path source = Path.of("profiles", "clicks.conf");

    TableProfile profile = ProfileLoader.parse(MINIMAL, source, home());

    assertThat(profile.name()).isEqualTo("clicks");
    assertThat(profile.source()).isEqualTo(source.toAbsolutePath().normalize());
  }

  @Test
  void parseReportsEveryProblemWithTheSourceAndKeyPath() {
    Path source = Path.of("profiles", "clicks.conf");

    ProfileException failure =
        catchThrowableOfType(
            ProfileException.class,
            () ->
                ProfileLoader.parse(
                    "extract.path = \"s3://bucket/*.parquet\"\nload.save-mode = always\n",
                    source,
                    home()));

    assertThat(failure.errors())
        .map(ProfileError::toString)
        .containsExactly(
            source + ": extract.path: must start with gs:// or file://, got"
                + " \"s3://bucket/*.parquet\"",
            source + ": load.iceberg.table: required key is missing",
            source + ": load.save-mode: expected one of Append, Overwrite, got \"always\"");
    assertThat(failure)
        .hasMessageContaining(source + ": load.iceberg.table: required key is missing");
  }

  @Test
  void maxBatchBytesIsABytesCountOrASizeWithAUnitAndUnsetByDefault() throws Exception {
    Path source = Path.of("profiles", "clicks.conf");

    assertThat(ProfileLoader.parse(MINIMAL, source, home()).extract().maxBatchBytes()).isEmpty();
    assertThat(ProfileLoader.parse(MINIMAL + "\nextract.max-batch-bytes = 1048576\n", source, home())
        .extract().maxBatchBytes()).hasValue(1_048_576L);
    assertThat(ProfileLoader.parse(MINIMAL + "\nextract.max-batch-bytes = 512MB\n", source, home())
        .extract().maxBatchBytes()).hasValue(512L * 1000 * 1000);
    assertThat(ProfileLoader.parse(MINIMAL + "\nextract.max-batch-bytes = 2GiB\n", source, home())
        .extract().maxBatchBytes()).hasValue(2L * 1024 * 1024 * 1024);
  }

  @Test
  void maxBatchBytesThatIsNoSizeOrBelowOneByteIsRefusedNamingTheKey() {
    Path source = Path.of("profiles", "clicks.conf");

    ProfileException zero = catchThrowableOfType(ProfileException.class,
        () -> ProfileLoader.parse(MINIMAL + "\nextract.max-batch-bytes = 0\n", source, home()));
    ProfileException words = catchThrowableOfType(ProfileException.class,
        () -> ProfileLoader.parse(MINIMAL + "\nextract.max-batch-bytes = lots\n", source, home()));

    assertThat(zero.errors()).map(ProfileError::toString)
        .containsExactly(source + ": extract.max-batch-bytes: must be at least 1 byte, got 0");
    assertThat(words.errors()).map(ProfileError::toString)
        .containsExactly(source + ": extract.max-batch-bytes: expected a size in bytes, such as 536870912, 512MB"
            + " or 2GiB, got \"lots\"");
  }

  @Test
  void parseSyntaxErrorNamesTheSourceAndLine() {
    Path source = Path.of("profiles", "clicks.conf");

    ProfileException failure =
        catchThrowableOfType(
            ProfileException.class,
            () -> ProfileLoader.parse("extract {\n  path = \"gs://b/x/*\"\n", source, home()));

    assertThat(failure.errors())
        .map(ProfileError::toString)
        .singleElement(STRING)
        .startsWith(source + ": line ")
        .contains("HOCON syntax error");
  }

  @Test
  void aMissingClosingBraceIsReportedAsTheBraceWithTheLineItOpensOn() throws Exception {
    Path file = write(dir, "clicks.conf", """
        # a "quoted" { in a comment and in a string are no brackets
        extract {
          path = "gs://b/x/{a,b}/*"
          options { sep = "{" }
        load.iceberg.table = "local.demo.clicks"
        """);

    assertThat(loadErrors(file, home())).containsExactly(file + ": line 2: HOCON syntax error: the '{' opened on line 2"
        + " is never closed: a '}' is missing before the end of the file");
  }

  @Test
  void aMissingClosingBracketOfAListIsReportedAsThatBracket() {
    Path source = Path.of("profiles", "clicks.conf");

    ProfileException failure = catchThrowableOfType(ProfileException.class, () -> ProfileLoader.parse(
        "extract.path = \"gs://b/x/*\"\nload.iceberg.table = a.b.c\nload.primary-key = [id, name\n", source, home()));

    assertThat(failure.errors()).map(ProfileError::toString).containsExactly(source + ": line 3: HOCON syntax error:"
        + " the '[' opened on line 3 is never closed: a ']' is missing before the end of the file");
  }

  @Test
  void restCatalogDefaultsToGoogleAuthAndGcsFileIo() throws Exception {
    Path file =
        write(
            dir,
            "clicks.conf",
            ProfileFixtures.MINIMAL
                + """
catalog { type = REST, uri = "https://biglake.example.com", warehouse = "gs://bucket/wh" }
""");

    Catalog catalog = ProfileLoader.load(file, home()).catalog();

    assertThat(catalog.authType()).contains(Catalog.GOOGLE_AUTH_MANAGER);
    assertThat(catalog.ioImpl()).contains(Catalog.GCS_FILE_IO);
    assertThat(catalog.userProject()).isEmpty();
  }

  @Test
  void hadoopCatalogNeedsNoUri() throws Exception {
    Path file = write(dir, "clicks.conf", ProfileFixtures.MINIMAL + "catalog.type = hadoop\n");

    Catalog catalog = ProfileLoader.load(file, home()).catalog();

    assertThat(catalog.uri()).isEmpty();
    assertThat(catalog.warehouse()).isEqualTo(home().warehouse().toString());
  }

  @Test
  void theIssueExampleReadsTheSameFromHoconAndYaml() throws Exception {
    TableProfile hocon = ProfileLoader.load(EXAMPLE_CONF, home());
    TableProfile yaml = ProfileLoader.load(EXAMPLE_YAML, home());

    assertThat(withSource(yaml, hocon.source())).isEqualTo(hocon);
    assertThat(hocon.table()).isEqualTo("prod_catalog.raw.clickstream");
    assertThat(hocon.extract().batchFile().pattern()).contains(".+/dt=(\\d{4}-\\d{2}-\\d{2})/.+");
    assertThat(hocon.extract().batchFile().dateFormat()).contains("yyyy-MM-dd");
    assertThat(hocon.extract().batchFile().partitionType()).isEqualTo(PartitionType.DATE);
    assertThat(hocon.transform().castColumns()).isEqualTo(Map.of("user_id", "BIGINT"));
    assertThat(hocon.load().precombineField()).contains("click_time");
    assertThat(hocon.metadata().path()).isEqualTo("gs://my-lakehouse-bucket/metadata/clickstream/");
  }

  @Test
  void shippedExamplesValidate() throws Exception {
    assertThat(ProfileLoader.load(Path.of("../examples/profiles/clickstream.conf"), home()))
        .isEqualTo(
            withSource(
                ProfileLoader.load(EXAMPLE_CONF, home()),
                Path.of("../examples/profiles/clickstream.conf").toAbsolutePath().normalize()));
    TableProfile local = ProfileLoader.load(Path.of("../examples/local/clicks.conf"), home());
    assertThat(local.isEmbeddedCatalog()).isTrue();
    assertThat(local.table()).isEqualTo("local.demo.clicks");
  }

  @Test
  void yamlKeySetTwiceIsRejectedWithItsLine() {
    Path file =
        write(
            dir,
            "clicks.yaml",
            """
            extract.path: gs://bucket/raw/clicks/*.parquet
            load:
              iceberg.table: prod.raw.clicks
              iceberg:
                table: prod.raw.other
            """);

    assertThat(loadErrors(file, home()))
        .containsExactly(file + ": load.iceberg.table: is set twice (again on line 4)");
  }

  @Test
  void hoconSyntaxErrorNamesTheFileAndLine() {
    Path file =
        write(
            dir,
            "clicks.conf",
            """
            extract {
              path = "gs://bucket/raw/*.parquet"
            load.iceberg.table = "prod.raw.clicks"
            """);

    assertThat(loadErrors(file, home()))
        .singleElement(STRING)
        .startsWith(file + ": line ")
        .contains("HOCON syntax error");
  }

  @Test
  void yamlSyntaxErrorNamesTheFileAndLine() {
    Path file =
        write(
            dir,
            "clicks.yaml",
            """
            extract:
              path: "gs://bucket/raw/*.parquet
            load.iceberg.table: prod.raw.clicks
            """);

    assertThat(loadErrors(file, home()))
        .singleElement(STRING)
        .startsWith(file + ": line ")
        .contains("YAML syntax error");
  }

  @Test
  void unresolvedHoconSubstitutionIsReported() {
    Path file =
        write(
            dir,
            "clicks.conf",
            """
            extract.path = ${NO_SUCH_VARIABLE_FOR_FILES2ICEBERG}
            load.iceberg.table = "prod.raw.clicks"
            """);

    assertThat(loadErrors(file, home()))
        .singleElement(STRING)
        .startsWith(file + ": line 1: ")
        .contains("NO_SUCH_VARIABLE_FOR_FILES2ICEBERG");
  }

  @Test
  void missingFileAndWrongExtensionAreReported() {
    assertThat(loadErrors(dir.resolve("absent.conf"), home()))
        .containsExactly(dir.resolve("absent.conf") + ": no such file");
    Path json = write(dir, "clicks.json", "{}");
    assertThat(loadErrors(json, home()))
        .containsExactly(json + ": a profile file must end with .conf, .yaml or .yml");
  }
}
