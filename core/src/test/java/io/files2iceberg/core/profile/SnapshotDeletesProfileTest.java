package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ProfileFixtures.loadErrors;
import static io.files2iceberg.core.profile.ProfileFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.profile.Load.SnapshotDeletes;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code load.snapshot-deletes} and its guard {@code load.snapshot-deletes-max-fraction}: parsed,
 * refused where a batch is not the table's whole content, and never lost to HOCON's merging of a
 * boolean with a key below it.
 */
class SnapshotDeletesProfileTest {
  /** A keyed table fed whole snapshots. */
  static final String SNAPSHOTS = """
      extract {
        path = "gs://bucket/raw/customers/*/*.parquet"
        batch-file.ingestion-type = full
      }
      load {
        iceberg.table = "prod.raw.customers"
        primary-key = [customer_id]
      }
      """;

  /** {@link #SNAPSHOTS} in YAML, its load section open for more keys. */
  static final String SNAPSHOTS_YAML = """
      extract:
        path: "gs://bucket/raw/customers/*/*.parquet"
        batch-file.ingestion-type: full
      load:
        iceberg.table: prod.raw.customers
        primary-key: [customer_id]
      """;

  @TempDir Path dir;
  private Path file;

  private TableProfile load(String hocon) throws ProfileException {
    return ProfileLoader.load(write(dir, "customers.conf", hocon), new Home(dir.resolve("home")));
  }

  private List<String> errors(String name, String text) {
    file = write(dir, name, text);
    return loadErrors(file, new Home(dir.resolve("home")));
  }

  private List<String> errors(String hocon) {
    return errors("customers.conf", hocon);
  }

  private String error(String keyPath, String reason) {
    return file + ": " + keyPath + ": " + reason;
  }

  @Test
  void snapshotDeletesAreOffByDefault() throws Exception {
    assertThat(load(SNAPSHOTS).load().snapshotDeletes()).isEmpty();
  }

  @Test
  void snapshotDeletesWithoutAGuardDeleteAtMostHalfTheRowsInScope() throws Exception {
    assertThat(load(SNAPSHOTS + "load.snapshot-deletes = true\n").load().snapshotDeletes())
        .contains(new SnapshotDeletes(0.5));
  }

  @Test
  void theGuardIsAKeyBesideTheBooleanInEitherOrder() throws Exception {
    assertThat(load(SNAPSHOTS + "load.snapshot-deletes = true\nload.snapshot-deletes-max-fraction = 0.3\n")
        .load().snapshotDeletes()).contains(new SnapshotDeletes(0.3));
    assertThat(load(SNAPSHOTS + "load.snapshot-deletes-max-fraction = 1.0\nload.snapshot-deletes = true\n")
        .load().snapshotDeletes()).contains(new SnapshotDeletes(1.0));
  }

  @Test
  void lastModeTakesSnapshotDeletes() throws Exception {
    assertThat(load(SNAPSHOTS.replace("ingestion-type = full", "ingestion-type = last")
        + "load.snapshot-deletes = true\n").load().snapshotDeletes()).contains(new SnapshotDeletes(0.5));
  }

  @Test
  void incrementalModeIsRefusedNamingTheKeyAndTheReason() {
    assertThat(errors(SNAPSHOTS.replace("ingestion-type = full", "ingestion-type = incremental")
        + "load.snapshot-deletes = true\n"))
        .containsExactly(error("load.snapshot-deletes", "requires extract.batch-file.ingestion-type = last or full:"
            + " with incremental a batch holds only the files that arrived since the last one, not the table's whole"
            + " content, so a key absent from it was not deleted"));
  }

  @Test
  void aTableWithoutAKeyIsRefusedNamingTheKeyAndTheReason() {
    assertThat(errors(SNAPSHOTS.replace("primary-key = [customer_id]", "") + "load.snapshot-deletes = true\n"))
        .containsExactly(error("load.snapshot-deletes", "requires a non-empty load.primary-key: a stored row is"
            + " deleted when its key is absent from the batch"));
  }

  @Test
  void aGuardOutsideZeroToOneIsRefused() {
    assertThat(errors(SNAPSHOTS + "load { snapshot-deletes = true, snapshot-deletes-max-fraction = 1.5 }\n"))
        .containsExactly(error("load.snapshot-deletes-max-fraction", "must be from 0 to 1, got 1.5"));
    assertThat(errors(SNAPSHOTS + "load { snapshot-deletes = true, snapshot-deletes-max-fraction = half }\n"))
        .containsExactly(error("load.snapshot-deletes-max-fraction",
            "expected a number from 0 to 1, such as 0.5, got \"half\""));
  }

  @Test
  void aGuardBelowTheBooleanWrittenAfterItIsRefusedNotLost() {
    // HOCON turns load.snapshot-deletes into the object { max-fraction = 0.3 }: the boolean is gone.
    assertThat(errors(SNAPSHOTS + "load.snapshot-deletes = true\nload.snapshot-deletes.max-fraction = 0.3\n"))
        .containsExactly(error("load.snapshot-deletes.max-fraction", "is not a key: write"
            + " load.snapshot-deletes-max-fraction instead; load.snapshot-deletes is true or false, and in HOCON a key"
            + " below it and load.snapshot-deletes itself replace each other, whichever is written last"));
  }

  @Test
  void aGuardBelowTheBooleanWrittenBeforeItIsRefusedNotLost() {
    // HOCON keeps only the boolean: the guard would silently fall back to its default.
    assertThat(errors(SNAPSHOTS + "load { snapshot-deletes { max-fraction = 0.3 } }\nload.snapshot-deletes = true\n"))
        .singleElement().asString().startsWith(file + ": load.snapshot-deletes.max-fraction: is not a key: write"
            + " load.snapshot-deletes-max-fraction instead");
  }

  @Test
  void anObjectWithAnEnabledFieldIsRefusedNamingBothKeys() {
    assertThat(errors(SNAPSHOTS + "load.snapshot-deletes { enabled = true, max-fraction = 0.3 }\n"))
        .containsExactly(
            error("load.snapshot-deletes.enabled", "is not a key: write load.snapshot-deletes instead;"
                + " load.snapshot-deletes is true or false, and in HOCON a key below it and load.snapshot-deletes"
                + " itself replace each other, whichever is written last"),
            error("load.snapshot-deletes.max-fraction", "is not a key: write load.snapshot-deletes-max-fraction"
                + " instead; load.snapshot-deletes is true or false, and in HOCON a key below it and"
                + " load.snapshot-deletes itself replace each other, whichever is written last"));
  }

  @Test
  void yamlSettingTheBooleanAndAKeyBelowItIsRefused() {
    String yaml = SNAPSHOTS_YAML + "  snapshot-deletes: true\n  snapshot-deletes.max-fraction: 0.3\n";
    assertThat(errors("customers.yaml", yaml)).singleElement().asString()
        .isEqualTo(file + ": load.snapshot-deletes: is set twice, as a value and as an object (again on line 8)");
  }

  @Test
  void yamlObjectInPlaceOfTheBooleanIsRefusedNamingTheGuardsKey() {
    String yaml = SNAPSHOTS_YAML + "  snapshot-deletes:\n    max-fraction: 0.3\n";
    assertThat(errors("customers.yaml", yaml)).containsExactly(error("load.snapshot-deletes", "expected true or"
        + " false, got an object: the guard is the key load.snapshot-deletes-max-fraction, beside"
        + " load.snapshot-deletes; a key below it, such as load.snapshot-deletes.max-fraction, replaces the boolean"
        + " (HOCON keeps whichever is written last)"));
  }

  @Test
  void aGuardWithoutSnapshotDeletesLoadsWithAWarning() throws Exception {
    Path written = write(dir, "customers.conf", SNAPSHOTS + "load.snapshot-deletes-max-fraction = 0.2\n");
    ProfileRegistry registry = ProfileRegistry.load(written, new Home(dir.resolve("home")));

    assertThat(registry.warnings()).singleElement().asString().contains("load.snapshot-deletes-max-fraction: has no"
        + " effect: load.snapshot-deletes is not true");
    assertThat(load(SNAPSHOTS + "load.snapshot-deletes-max-fraction = 0.2\n").load().snapshotDeletes()).isEmpty();
  }

  @Test
  void theRenderedProfileLoadsBackWithItsGuard() throws Exception {
    TableProfile profile = load(SNAPSHOTS + "load.snapshot-deletes = true\nload.snapshot-deletes-max-fraction = 0.3\n");

    TableProfile parsed = ProfileLoader.parse(ProfileJson.toJson(profile), profile.source(),
        new Home(dir.resolve("home")));

    assertThat(parsed.load().snapshotDeletes()).isEqualTo(Optional.of(new SnapshotDeletes(0.3)));
    assertThat(parsed).isEqualTo(profile);
  }
}
