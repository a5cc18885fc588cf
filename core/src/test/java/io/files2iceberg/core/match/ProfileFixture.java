package io.files2iceberg.core.match;

import io.files2iceberg.core.profile.BatchFile;
import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.core.profile.BatchFile.PartitionType;
import io.files2iceberg.core.profile.Catalog;
import io.files2iceberg.core.profile.Extract;
import io.files2iceberg.core.profile.Load;
import io.files2iceberg.core.profile.Metadata;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.core.profile.Transform;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Builds table profiles from the records directly, so these tests do not depend on the loader.
 * Only the extract settings vary; the table is {@code local.raw.<name>}.
 */
final class ProfileFixture {

  private final String name;
  private final String path;
  private PartitionType partitionType = PartitionType.STRING;
  private Optional<String> pattern = Optional.empty();
  private Optional<String> dateFormat = Optional.empty();
  private boolean strictPattern;
  private boolean successFileFilter = true;
  private String successFileName = "_SUCCESS";
  private boolean recursiveFileLookup;

  private ProfileFixture(String name, String path) {
    this.name = name;
    this.path = path;
  }

  static ProfileFixture profile(String name, String path) {
    return new ProfileFixture(name, path);
  }

  ProfileFixture datePartitions(String format) {
    partitionType = PartitionType.DATE;
    dateFormat = Optional.of(format);
    return this;
  }

  ProfileFixture pattern(String regex) {
    pattern = Optional.of(regex);
    return this;
  }

  ProfileFixture strictPattern() {
    strictPattern = true;
    return this;
  }

  ProfileFixture recursiveFileLookup() {
    recursiveFileLookup = true;
    return this;
  }

  ProfileFixture successFileFilterOff() {
    successFileFilter = false;
    return this;
  }

  ProfileFixture successFileName(String fileName) {
    successFileName = fileName;
    return this;
  }

  TableProfile build() {
    BatchFile batchFile =
        new BatchFile(
            IngestionType.INCREMENTAL,
            partitionType,
            pattern,
            "partition",
            dateFormat,
            strictPattern,
            successFileFilter,
            successFileName);
    Path home = Path.of("/tmp/files2iceberg-test");
    return new TableProfile(
        name,
        home.resolve(name + ".conf"),
        new Extract(
            path,
            Extract.Format.PARQUET,
            Map.of(),
            recursiveFileLookup,
            batchFile,
            10,
            true,
            1000,
            List.of(),
            false,
            Extract.OnOverwrite.IGNORE),
        new Transform(List.of(), Map.of(), Map.of(), Transform.BadRecordPolicy.FAIL),
        new Load(
            new Load.TableId("local", "raw", name),
            Load.SaveMode.APPEND,
            List.of(),
            List.of(),
            Optional.empty(),
            Load.SchemaEvolution.ADD_NEW_COLUMNS,
            Map.of(),
            Load.MissingColumns.KEEP),
        new Metadata(home.resolve("metadata").resolve(name).toString()),
        new Catalog(
            Catalog.CatalogType.JDBC,
            "jdbc:sqlite:" + home.resolve("catalog.db"),
            home.resolve("warehouse").toString(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            false,
            Map.of()),
        io.files2iceberg.core.profile.Maintain.NONE);
  }
}
