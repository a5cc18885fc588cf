package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ProfileFixtures.MINIMAL;
import static io.files2iceberg.core.profile.ProfileFixtures.loadErrors;
import static io.files2iceberg.core.profile.ProfileFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each problem a profile can have, as the user reads it: file, key path, reason. */
class ProfileValidationTest {

  @TempDir Path dir;

  private Path file;

  /** The errors of a HOCON profile: the minimal profile plus {@code extra}. */
  private List<String> errors(String extra) {
    return errorsOf("clicks.conf", MINIMAL + extra);
  }

  private List<String> errorsOf(String fileName, String content) {
    file = write(dir, fileName, content);
    return loadErrors(file, new Home(dir.resolve("home")));
  }

  private String error(String keyPath, String reason) {
    return file + ": " + keyPath + ": " + reason;
  }

  @Test
  void onOverwriteIgnoreIsRefusedWithSaveModeOverwrite() {
    assertThat(errors("""
        extract.on-overwrite = ignore
        load { save-mode = Overwrite, partition-by = [partition] }
        """))
        .containsExactly(error("extract.on-overwrite", "ignore cannot go with load.save-mode = Overwrite: an"
            + " Overwrite writes the partition's live files, in which a rewritten object's old generation is gone;"
            + " use reload"));
  }

  @Test
  void backfillWithoutCheckpointIsRefusedForAnAppendTableWithoutKeyAndAllowedWithAKey() throws Exception {
    assertThat(errors("extract.save-checkpoint = false\n"))
        .containsExactly(error("extract.save-checkpoint", "false cannot go with an Append table without"
            + " load.primary-key: every run would append every listed file's rows again; add a primary key, use"
            + " load.save-mode = Overwrite, or keep the checkpoint and load old partitions with"
            + " bin/files2iceberg backfill"));
    ProfileLoader.load(write(dir, "keyed.conf", MINIMAL + "extract.save-checkpoint = false\nload.primary-key = [id]\n"),
        new Home(dir.resolve("home")));
    ProfileLoader.load(write(dir, "last.conf", MINIMAL
        + "extract.save-checkpoint = false\nextract.batch-file.ingestion-type = last\n"), new Home(dir.resolve("home")));
  }

  @Test
  void timezoneMustBeAZoneJavaKnows() {
    assertThat(errors("extract.timezone = \"Mars/Olympus\""))
        .containsExactly(error("extract.timezone", "not a time zone (a region such as \"Europe/Paris\" or an offset"
            + " such as \"+01:00\"), got \"Mars/Olympus\""));
  }

  @Test
  void onOverwriteMustBeIgnoreOrReload() {
    assertThat(errors("extract.on-overwrite = skip"))
        .containsExactly(error("extract.on-overwrite", "expected one of ignore, reload, got \"skip\""));
  }

  @Test
  void onOverwriteDefaultsToIgnoreForAppendWithoutKeyAndToReloadWithAKeyOrOverwrite() throws Exception {
    Home home = new Home(dir.resolve("home"));
    assertThat(ProfileLoader.load(write(dir, "append.conf", MINIMAL), home).extract().onOverwrite())
        .isEqualTo(Extract.OnOverwrite.IGNORE);
    assertThat(ProfileLoader.load(write(dir, "keyed.conf", MINIMAL + "load.primary-key = [id]\n"), home)
        .extract().onOverwrite()).isEqualTo(Extract.OnOverwrite.RELOAD);
    assertThat(ProfileLoader.load(write(dir, "overwrite.conf",
        MINIMAL + "load { save-mode = Overwrite, partition-by = [partition] }\n"), home)
        .extract().onOverwrite()).isEqualTo(Extract.OnOverwrite.RELOAD);
    assertThat(ProfileLoader.load(write(dir, "reload.conf", MINIMAL + "extract.on-overwrite = reload\n"), home)
        .extract().onOverwrite()).isEqualTo(Extract.OnOverwrite.RELOAD);
  }

  @Test
  void unknownKeyIsRejectedWithTheNearestKnownKey() {
    assertThat(errors("load.save-mod = Append"))
        .containsExactly(error("load.save-mod", "unknown key; did you mean 'save-mode'?"));
  }

  @Test
  void keyInTheWrongSectionSuggestsItsPathInThatSection() {
    assertThat(errors("extract.pattern = \"(.+)\""))
        .containsExactly(
            error("extract.pattern", "unknown key; did you mean 'batch-file.pattern'?"));
  }

  @Test
  void unknownSectionIsRejectedWithTheNearestSection() {
    assertThat(errors("listner.port = 9090"))
        .containsExactly(error("listner", "unknown key; did you mean 'listener'?"));
  }

  @Test
  void unknownKeyFarFromEveryKnownKeyListsTheKnownKeys() {
    assertThat(errors("metadata.location-of-files = x"))
        .containsExactly(error("metadata.location-of-files", "unknown key; expected one of path"));
  }

  @Test
  void sectionGivenAsAValueIsRejected() {
    assertThat(errors("listener = on"))
        .containsExactly(error("listener", "expected an object, got \"on\""));
  }

  @Test
  void missingRequiredKeysAreEachReported() {
    assertThat(errorsOf("clicks.conf", "extract.format = csv"))
        .containsExactly(
            error("extract.path", "required key is missing"),
            error("load.iceberg.table", "required key is missing"));
  }

  @Test
  void wholeNumberGivenAsAWordIsRejectedWithTheValue() {
    assertThat(errors("extract.max-batch-size = ten"))
        .containsExactly(error("extract.max-batch-size", "expected a whole number, got \"ten\""));
  }

  @Test
  void fractionalNumberIsRejected() {
    assertThat(errors("job.max-attempts = 1.5"))
        .containsExactly(error("job.max-attempts", "expected a whole number, got 1.5"));
  }

  @Test
  void numericAndBooleanStringsAreAccepted() throws Exception {
    Path accepted =
        write(
            dir,
            "clicks.conf",
            MINIMAL
                + """
                  extract { max-batch-size = "250", save-checkpoint = "false" }
                  load.primary-key = [id]
                  """);

    Extract extract = ProfileLoader.load(accepted, new Home(dir)).extract();

    assertThat(extract.maxBatchSize()).isEqualTo(250);
    assertThat(extract.saveCheckpoint()).isFalse();
  }

  @Test
  void booleanGivenAsAnotherWordIsRejected() {
    assertThat(errors("extract.recursive-file-lookup = maybe"))
        .containsExactly(
            error("extract.recursive-file-lookup", "expected true or false, got \"maybe\""));
  }

  @Test
  void listGivenAsAStringIsRejected() {
    assertThat(errors("load.primary-key = click_id"))
        .containsExactly(error("load.primary-key", "expected a list, got \"click_id\""));
  }

  @Test
  void objectGivenForAStringIsRejected() {
    assertThat(errors("job.master { local = 2 }"))
        .containsExactly(error("job.master", "expected a string, got an object"));
  }

  @Test
  void mapGivenAsAListIsRejected() {
    assertThat(errors("extract.options = [header]"))
        .containsExactly(error("extract.options", "expected an object, got a list"));
  }

  @Test
  void unquotedDottedHoconKeyInAFreeFormMapIsRejectedWithAHint() {
    assertThat(errors("job.spark-properties { spark.executor.memory = 4g }"))
        .containsExactly(
            error(
                "job.spark-properties.spark",
                "expected a string, got an object; in HOCON, quote keys"
                    + " that contain dots, as in \"spark.executor.memory\" = 4g"));
  }

  @Test
  void pathWithAnotherSchemeIsRejected() {
    assertThat(
            errorsOf(
                "clicks.conf",
                """
                extract.path = "s3://bucket/raw/*.parquet"
                load.iceberg.table = "prod.raw.clicks"
                """))
        .containsExactly(
            error(
                "extract.path",
                "must start with gs:// or file://, got \"s3://bucket/raw/*.parquet\""));
  }

  @Test
  void gsPathWithoutABucketIsRejected() {
    assertThat(
            errorsOf(
                "clicks.conf",
                """
                extract.path = "gs:///raw/*.parquet"
                load.iceberg.table = "prod.raw.clicks"
                """))
        .containsExactly(
            error(
                "extract.path",
                "must name a bucket, as in gs://my-bucket/raw/*.parquet, got"
                    + " \"gs:///raw/*.parquet\""));
  }

  @Test
  void relativeFilePathIsRejected() {
    assertThat(
            errorsOf(
                "clicks.conf",
                """
                extract.path = "file://landing/*.parquet"
                load.iceberg.table = "prod.raw.clicks"
                """))
        .containsExactly(
            error(
                "extract.path",
                "a file:// path must be absolute, as in"
                    + " file:///data/landing/*.parquet, got \"file://landing/*.parquet\""));
  }

  @Test
  void unclosedBraceInThePathIsRejected() {
    assertThat(
            errorsOf(
                "clicks.conf",
                """
                extract.path = "gs://bucket/raw/{a,b/*.parquet"
                load.iceberg.table = "prod.raw.clicks"
                """))
        .containsExactly(
            error("extract.path", "glob \"gs://bucket/raw/{a,b/*.parquet\": unclosed '{' at \"{a,b/*.parquet\""));
  }

  @Test
  void unclosedBracketInThePathIsRejectedNotTakenLiterally() {
    assertThat(
            errorsOf(
                "clicks.conf",
                """
                extract.path = "gs://bucket/raw/part-[1-2.parquet"
                load.iceberg.table = "prod.raw.clicks"
                """))
        .containsExactly(
            error("extract.path", "glob \"gs://bucket/raw/part-[1-2.parquet\": unclosed '[' at \"[1-2.parquet\";"
                + " write \\[ for a literal '['"));
  }

  @Test
  void anEscapedBraceIsNotAnUnclosedOne() throws ProfileException {
    file = write(dir, "clicks.conf", """
        extract.path = "gs://bucket/raw/\\\\{a/*.parquet"
        load.iceberg.table = "prod.raw.clicks"
        """);

    assertThat(ProfileLoader.load(file, new Home(dir.resolve("home"))).extract().path())
        .isEqualTo("gs://bucket/raw/\\{a/*.parquet");
  }

  @Test
  void unknownFormatListsTheAllowedValues() {
    assertThat(errors("extract.format = xml"))
        .containsExactly(
            error("extract.format", "expected one of parquet, orc, avro, json, csv, got \"xml\""));
  }

  @Test
  void deltaFormatIsRefusedSayingWhyAndWhatToUseInstead() {
    assertThat(errors("extract.format = Delta"))
        .containsExactly(error("extract.format", ProfileLoader.DELTA_REFUSED));
    assertThat(ProfileLoader.DELTA_REFUSED)
        .contains("_delta_log")
        .contains("deletion vectors")
        .contains("parquet")
        .contains("Limitations");
  }

  @Test
  void unknownIngestionTypeListsTheAllowedValues() {
    assertThat(errors("extract.batch-file.ingestion-type = daily"))
        .containsExactly(
            error(
                "extract.batch-file.ingestion-type",
                "expected one of incremental, last, full, got \"daily\""));
  }

  @Test
  void patternWithTwoGroupsIsRejectedNamingTheKey() {
    assertThat(errors("extract.batch-file.pattern = \"(.+)/dt=(.+)/.+\""))
        .containsExactly(
            error("extract.batch-file.pattern", "must have exactly one capture group, has 2"));
  }

  @Test
  void patternWithoutAGroupIsRejected() {
    assertThat(errors("extract.batch-file.pattern = \".+/(?:dt=).+\""))
        .containsExactly(
            error("extract.batch-file.pattern", "must have exactly one capture group, has 0"));
  }

  @Test
  void namedGroupIsTheOneCaptureGroup() throws Exception {
    Path accepted =
        write(
            dir,
            "clicks.conf",
            MINIMAL
                + """
                  extract.batch-file.pattern = ".+/dt=(?<day>[^/]+)/.+"
                  """);

    assertThat(ProfileLoader.load(accepted, new Home(dir)).extract().batchFile().pattern())
        .contains(".+/dt=(?<day>[^/]+)/.+");
  }

  @Test
  void invalidRegexIsRejectedWithItsDescription() {
    assertThat(errors("extract.batch-file.pattern = \"dt=(.+\""))
        .containsExactly(
            error(
                "extract.batch-file.pattern",
                "is not a valid regular expression: Unclosed group near index 6 of \"dt=(.+\""));
  }

  @Test
  void dateFormatWithoutTheDayIsRejectedBecauseItDoesNotRoundTrip() {
    assertThat(
            errors(
                """
                extract.batch-file { partition-type = date, date-format = "yyyy-MM" }
                """))
        .containsExactly(
            error(
                "extract.batch-file.date-format",
                "date format \"yyyy-MM\" does not round-trip a date: 2024-01-31 formats as"
                    + " \"2024-01\", which does not parse back to a date"));
  }

  @Test
  void timeFormatIsRejectedBecauseItCannotFormatADate() {
    assertThat(
            errors(
                """
                extract.batch-file { partition-type = date, date-format = "HH:mm" }
                """))
        .containsExactly(
            error(
                "extract.batch-file.date-format",
                "date format \"HH:mm\" cannot format a date: Unsupported field: HourOfDay"));
  }

  @Test
  void dateFormatWithAnUnknownLetterIsRejected() {
    assertThat(
            errors(
                """
                extract.batch-file { partition-type = date, date-format = "yyyy-bb" }
                """))
        .containsExactly(
            error(
                "extract.batch-file.date-format",
                "is not a valid date format: Unknown pattern letter: b"));
  }

  @Test
  void datePartitionsRequireADateFormat() {
    assertThat(errors("extract.batch-file.partition-type = date"))
        .containsExactly(
            error(
                "extract.batch-file.date-format",
                "is required when extract.batch-file.partition-type = date"));
  }

  @Test
  void dateFormatWithStringPartitionsIsRejected() {
    assertThat(errors("extract.batch-file.date-format = yyyy-MM-dd"))
        .containsExactly(
            error(
                "extract.batch-file.date-format",
                "date-format is only used with partition-type = date"));
  }

  @Test
  void precombineFieldWithoutPrimaryKeyIsRejected() {
    assertThat(errors("load.iceberg.precombine-field = updated_at"))
        .containsExactly(
            error("load.iceberg.precombine-field", "requires a non-empty load.primary-key"));
  }

  @Test
  void writeModeDefaultsToCopyOnWriteOrTheTablePropertiesAndMergeScopeToAuto() throws Exception {
    Home home = new Home(dir.resolve("home"));
    Load keyed = ProfileLoader.load(write(dir, "keyed.conf", MINIMAL + "load.primary-key = [id]\n"), home).load();
    assertThat(keyed.writeMode()).isEqualTo(Load.WriteMode.COPY_ON_WRITE);
    assertThat(keyed.mergeScope()).isEqualTo(Load.MergeScope.AUTO);
    Load declared = ProfileLoader.load(write(dir, "mor.conf", MINIMAL
        + "load { primary-key = [id], iceberg.table-properties { \"write.merge.mode\" = merge-on-read } }\n"), home)
        .load();
    assertThat(declared.writeMode()).isEqualTo(Load.WriteMode.MERGE_ON_READ);
    Load set = ProfileLoader.load(write(dir, "set.conf", MINIMAL
        + "load { primary-key = [id], partition-by = [partition], write-mode = merge-on-read, merge-scope = partitions }\n"),
        home).load();
    assertThat(set.writeMode()).isEqualTo(Load.WriteMode.MERGE_ON_READ);
    assertThat(set.mergeScope()).isEqualTo(Load.MergeScope.PARTITIONS);
  }

  @Test
  void mergeOnReadWithoutPrimaryKeyIsRejected() {
    assertThat(errors("load.write-mode = merge-on-read"))
        .containsExactly(error("load.write-mode",
            "merge-on-read applies to a MERGE and requires a non-empty load.primary-key"));
  }

  @Test
  void unknownWriteModeIsRejectedNamingTheChoices() {
    assertThat(errors("load { primary-key = [id], write-mode = delta }"))
        .singleElement().satisfies(e -> assertThat(e).contains(": load.write-mode: ").contains("copy-on-write")
            .contains("merge-on-read").contains("delta"));
  }

  @Test
  void writeModeContradictingTheTableProperties() {
    assertThat(errors("load { primary-key = [id], write-mode = merge-on-read,"
        + " iceberg.table-properties { \"write.update.mode\" = copy-on-write } }"))
        .containsExactly(error("load.write-mode",
            "is merge-on-read but load.iceberg.table-properties sets write.update.mode = copy-on-write"));
  }

  @Test
  void mergeScopeWithoutPrimaryKeyOrPartitionsIsRejected() {
    assertThat(errors("load.merge-scope = table"))
        .containsExactly(error("load.merge-scope", "table applies to a MERGE and requires a non-empty load.primary-key"));
    assertThat(errors("load { primary-key = [id], merge-scope = partitions }"))
        .containsExactly(error("load.merge-scope", "partitions requires load.partition-by: an unpartitioned table has"
            + " no partitions to restrict the MERGE to"));
    assertThat(errors("load { primary-key = [id], merge-scope = all }"))
        .singleElement().satisfies(e -> assertThat(e).contains(": load.merge-scope: ").contains("partitions"));
  }

  @Test
  void blankPrimaryKeyEntryIsRejectedNamingItsIndex() {
    assertThat(errors("load.primary-key = [click_id, \" \"]"))
        .containsExactly(error("load.primary-key[1]", "must not be blank"));
  }

  @Test
  void repeatedPrimaryKeyEntryIsRejectedNamingItsIndex() {
    assertThat(errors("load.primary-key = [click_id, user_id, click_id]"))
        .containsExactly(error("load.primary-key[2]", "duplicate entry \"click_id\""));
  }

  @Test
  void maxBatchSizeBelowOneIsRejected() {
    assertThat(errors("extract.max-batch-size = 0"))
        .containsExactly(error("extract.max-batch-size", "must be at least 1, got 0"));
  }

  @Test
  void tableNameWithoutThreePartsIsRejected() {
    assertThat(
            errorsOf(
                "clicks.conf",
                """
                extract.path = "gs://bucket/raw/*.parquet"
                load.iceberg.table = "raw.clicks"
                """))
        .containsExactly(
            error(
                "load.iceberg.table",
                "expected catalog.namespace.table, three names of letters, digits and _, got"
                    + " \"raw.clicks\""));
  }

  @Test
  void unsupportedPartitionTransformIsRejectedWithTheSupportedOnes() {
    assertThat(errors("load.partition-by = [dt, \"weeks(ts)\", \"bucket(0, id)\"]"))
        .containsExactly(
            error(
                "load.partition-by[1]",
                "expected a column or an Iceberg transform: col, identity(col), years(col),"
                    + " months(col), days(col), hours(col), bucket(N, col) or truncate(N, col); got"
                    + " \"weeks(ts)\""),
            error(
                "load.partition-by[2]",
                "the N of bucket(N, col) must be at least 1, got \"bucket(0, id)\""));
  }

  @Test
  void partitionColumnThatIsNotAColumnNameIsRejected() {
    assertThat(errors("extract.batch-file.partition-column = \"1st-day\""))
        .containsExactly(
            error(
                "extract.batch-file.partition-column",
                "expected a column name of letters, digits and _, not starting with a digit, got"
                    + " \"1st-day\""));
  }

  @Test
  void unknownLineageColumnListsTheAllowedValues() {
    assertThat(errors("extract.lineage-columns = [_batch_id, _file_name]"))
        .containsExactly(
            error(
                "extract.lineage-columns[1]",
                "expected one of _source_file, _source_generation, _batch_id, _ingested_at, got"
                    + " \"_file_name\""));
  }

  @Test
  void repeatedLineageColumnIsRejectedWhateverItsCase() {
    assertThat(errors("extract.lineage-columns = [_batch_id, _source_file, _BATCH_ID]"))
        .containsExactly(error("extract.lineage-columns[2]", "duplicate entry \"_BATCH_ID\""));
  }

  @Test
  void lineageColumnsGivenAsAStringAreRejected() {
    assertThat(errors("extract.lineage-columns = _batch_id"))
        .containsExactly(error("extract.lineage-columns", "expected a list, got \"_batch_id\""));
  }

  @Test
  void partitionColumnThatIsAlsoALineageColumnIsRejected() {
    assertThat(
            errors(
                """
                extract.lineage-columns = [_source_file, _batch_id]
                extract.batch-file.partition-column = _batch_id
                """))
        .containsExactly(
            error(
                "extract.batch-file.partition-column",
                "the partition column \"_batch_id\" is also in extract.lineage-columns; give the"
                    + " partition column another name"));
  }

  @Test
  void partitionColumnDerivedAsALineageColumnIsRejectedSayingWhereItCameFrom() {
    assertThat(
            errors(
                """
                extract.lineage-columns = [_ingested_at]
                extract.batch-file.pattern = ".+/_ingested_at=([^/]+)/.+"
                """))
        .containsExactly(
            error(
                "extract.batch-file.partition-column",
                "the partition column \"_ingested_at\" (derived from extract.batch-file.pattern)"
                    + " is also in extract.lineage-columns; give the partition column another"
                    + " name"));
  }

  @Test
  void quarantineBadFilesGivenAsAWordIsRejected() {
    assertThat(errors("extract.quarantine-bad-files = sometimes"))
        .containsExactly(
            error("extract.quarantine-bad-files", "expected true or false, got \"sometimes\""));
  }

  @Test
  void unknownBadRecordPolicyListsTheAllowedValues() {
    assertThat(errors("transform.on-bad-record = skip"))
        .containsExactly(
            error("transform.on-bad-record", "expected one of fail, reject, got \"skip\""));
  }

  @Test
  void rescuedDataColumnMustBeAColumnName() {
    assertThat(errors("transform.rescued-data-column = \"\""))
        .containsExactly(error("transform.rescued-data-column", "must not be blank"));
    assertThat(errors("transform.rescued-data-column = \"rescued data\""))
        .containsExactly(error("transform.rescued-data-column",
            "expected a column name of letters, digits and _, not starting with a digit, got \"rescued data\""));
  }

  @Test
  void rescuedDataColumnIsNeverAKeyNorAColumnTheJobOrTheTransformsProduce() {
    assertThat(errors("""
        transform.rescued-data-column = _rescued
        load { primary-key = [id, _rescued], iceberg.precombine-field = _rescued, partition-by = ["bucket(4, _rescued)"] }
        """))
        .containsExactly(
            error("transform.rescued-data-column", "\"_rescued\" is load.primary-key[1]; the rescued data column is"
                + " never a key"),
            error("transform.rescued-data-column", "\"_rescued\" is load.iceberg.precombine-field; the rescued data"
                + " column is never a key"),
            error("transform.rescued-data-column", "\"_rescued\" is in load.partition-by[0]; the rescued data column"
                + " is never a partition key"));
    assertThat(errors("""
        transform { rescued-data-column = partition, cast.columns { partition = INT } }
        """))
        .containsExactly(
            error("transform.rescued-data-column", "\"partition\" is the partition column the job adds"
                + " (extract.batch-file.partition-column)"),
            error("transform.rescued-data-column", "\"partition\" is a column of transform.cast.columns; the rescued"
                + " data column is always STRING"));
    assertThat(errors("""
        extract.lineage-columns = [_source_file]
        transform { rescued-data-column = _source_file, rename-columns { note = _source_file } }
        """))
        .containsExactly(
            error("transform.rescued-data-column", "\"_source_file\" is in extract.lineage-columns, a column the job"
                + " adds"),
            error("transform.rescued-data-column", "\"_source_file\" is the target of transform.rename-columns.note"));
    assertThat(errors("transform.rescued-data-column = _f2i_rescued"))
        .containsExactly(error("transform.rescued-data-column",
            "\"_f2i_rescued\" starts with _f2i_, which the job reserves for its own columns"));
  }

  @Test
  void rescuedDataColumnGoesWithEitherBadRecordPolicy() throws Exception {
    Home home = new Home(dir.resolve("home"));
    assertThat(ProfileLoader.load(write(dir, "fail.conf", MINIMAL + "transform.rescued-data-column = _rescued_data\n"),
        home).transform().rescuedDataColumn()).contains("_rescued_data");
    assertThat(ProfileLoader.load(write(dir, "reject.conf", MINIMAL
        + "transform { rescued-data-column = _rescued_data, on-bad-record = reject }\n"), home).transform()
        .rescuedDataColumn()).contains("_rescued_data");
    assertThat(ProfileLoader.load(write(dir, "none.conf", MINIMAL), home).transform().rescuedDataColumn()).isEmpty();
  }

  @Test
  void missingColumnsOtherThanKeepOrNullIsRejectedNamingTheValue() {
    assertThat(errors("load.missing-columns = drop"))
        .containsExactly(
            error("load.missing-columns", "expected one of keep, null, got \"drop\""));
  }

  @Test
  void schemaEvolutionGivenAsAWordThatIsNoModeIsRejected() {
    assertThat(errors("load.schema-evolution = additive"))
        .containsExactly(error("load.schema-evolution",
            "expected one of add-new-columns, fail-on-new-columns, rescue, none, got \"additive\""));
  }

  @Test
  void tablePropertiesGivenAsAListAreRejected() {
    assertThat(errors("load.iceberg.table-properties = [\"write.merge.mode\"]"))
        .containsExactly(error("load.iceberg.table-properties", "expected an object, got a list"));
  }

  @Test
  void unquotedDottedHoconKeyInTablePropertiesIsRejectedWithAHint() {
    assertThat(errors("load.iceberg.table-properties { write.merge.mode = merge-on-read }"))
        .containsExactly(
            error(
                "load.iceberg.table-properties.write",
                "expected a string, got an object; in HOCON, quote keys"
                    + " that contain dots, as in \"spark.executor.memory\" = 4g"));
  }

  @Test
  void incrementalOverwriteWithoutAKeyRequiresPartitioningByThePartitionColumn() {
    assertThat(
            errors(
                """
                extract.batch-file.pattern = ".+/dt=([^/]+)/.+"
                load { save-mode = Overwrite, partition-by = ["days(dt)", region] }
                """))
        .containsExactly(
            error(
                "load.save-mode",
                "Overwrite replaces the partitions a batch writes, so with"
                    + " extract.batch-file.ingestion-type = incremental and no load.primary-key"
                    + " the table must be partitioned by the partition column \"dt\": add \"dt\""
                    + " to load.partition-by"));
  }

  @Test
  void incrementalOverwriteWithoutAPatternNamesTheDefaultPartitionColumn() {
    assertThat(errors("load.save-mode = overwrite"))
        .containsExactly(
            error(
                "load.save-mode",
                "Overwrite replaces the partitions a batch writes, so with"
                    + " extract.batch-file.ingestion-type = incremental and no load.primary-key"
                    + " the table must be partitioned by the partition column \"partition\": add"
                    + " \"partition\" to load.partition-by"));
  }

  @Test
  void incrementalOverwriteIsAcceptedWhenPartitionedByThePartitionColumn() throws Exception {
    for (String partitionBy : List.of("[dt]", "[region, \"identity( dt )\"]")) {
      Path accepted =
          write(
              dir.resolve("accepted"),
              "clicks.conf",
              MINIMAL
                  + "extract.batch-file.pattern = \".+/dt=([^/]+)/.+\"\n"
                  + "load { save-mode = Overwrite, partition-by = "
                  + partitionBy
                  + " }\n");

      Load load = ProfileLoader.load(accepted, new Home(dir)).load();

      assertThat(load.saveMode()).as(partitionBy).isEqualTo(Load.SaveMode.OVERWRITE);
    }
  }

  @Test
  void overwriteNeedsNoPartitionColumnWithAKeyOrOutsideIncrementalIngestion() throws Exception {
    for (String extra :
        List.of(
            "load { save-mode = Overwrite, primary-key = [click_id] }",
            "load.save-mode = Overwrite\nextract.batch-file.ingestion-type = last",
            "load.save-mode = Overwrite\nextract.batch-file.ingestion-type = full")) {
      Path accepted = write(dir.resolve("accepted"), "clicks.conf", MINIMAL + extra + "\n");

      assertThat(ProfileLoader.load(accepted, new Home(dir)).load().saveMode())
          .as(extra)
          .isEqualTo(Load.SaveMode.OVERWRITE);
    }
  }

  @Test
  void overwriteRuleIsNotCheckedAgainstAnInvalidPattern() {
    assertThat(
            errors(
                """
                extract.batch-file.pattern = "(a)(b)"
                load.save-mode = Overwrite
                """))
        .containsExactly(
            error("extract.batch-file.pattern", "must have exactly one capture group, has 2"));
  }

  @Test
  void renderedNameOtherThanTheFileNameIsRejected() {
    assertThat(errors("name = orders"))
        .containsExactly(
            error(
                "name",
                "is \"orders\", but a profile's name is its file name without the extension,"
                    + " \"clicks\""));
  }

  @Test
  void renderedNameAndSourceOfTheFileAreAccepted() throws Exception {
    Path accepted =
        write(
            dir,
            "clicks.conf",
            MINIMAL + "name = clicks\nsource = \"/elsewhere/profiles/clicks.conf\"\n");

    TableProfile profile = ProfileLoader.load(accepted, new Home(dir));

    assertThat(profile.name()).isEqualTo("clicks");
    assertThat(profile.source()).isEqualTo(accepted.toAbsolutePath().normalize());
  }

  @Test
  void restCatalogRequiresUriAndWarehouse() {
    assertThat(errors("catalog.type = rest"))
        .containsExactly(
            error("catalog.uri", "is required when catalog.type = rest"),
            error("catalog.warehouse", "is required when catalog.type = rest"));
  }

  @Test
  void theLedgerProviderChecksTheLedgerSectionOfAProfileOfOld() {
    assertThat(errors("ledger.type = test-sqlite"))
        .containsExactly(
            error("ledger.properties.file", "is required when ledger.type = test-sqlite"));
  }

  @Test
  void leaseTimeoutWithoutAUnitIsRejected() {
    assertThat(errors("job.lease-timeout = 90"))
        .containsExactly(
            error(
                "job.lease-timeout",
                "expected a duration with a unit, such as 30m, 1h or 90s, got 90"));
  }

  @Test
  void listenerPortOutOfRangeAndRelativePushPathAreRejected() {
    assertThat(errors("listener { port = 70000, push-path = push }"))
        .containsExactly(
            error("listener.port", "must be at most 65535, got 70000"),
            error("listener.push-path", "must start with /, got \"push\""));
  }

  @Test
  void blankOptionalValueIsRejected() {
    assertThat(errors("job.dataproc-region = \"\""))
        .containsExactly(error("job.dataproc-region", "must not be blank"));
  }

  @Test
  void everyProblemOfAFileIsReportedAtOnceInFileOrder() {
    assertThat(
            errorsOf(
                "clicks.yaml",
                """
                extract:
                  path: gs://bucket/raw/clicks/dt=*/*.parquet
                  max-batch-size: ten
                  batch-file: {pattern: "(a)(b)", partition-type: date}
                load:
                  iceberg.table: prod.raw.clicks
                  save-mod: Append
                  primary-key: [id, ""]
                  iceberg.precombine-field: ts
                listener.port: 0
                """))
        .containsExactly(
            error("load.save-mod", "unknown key; did you mean 'save-mode'?"),
            error("extract.batch-file.pattern", "must have exactly one capture group, has 2"),
            error(
                "extract.batch-file.date-format",
                "is required when extract.batch-file.partition-type = date"),
            error("extract.max-batch-size", "expected a whole number, got \"ten\""),
            error("load.primary-key[1]", "must not be blank"),
            error("listener.port", "must be at least 1, got 0"));
  }
}
