package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ProfileFixtures.MINIMAL;
import static io.files2iceberg.core.profile.ProfileFixtures.loadErrors;
import static io.files2iceberg.core.profile.ProfileFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.profile.Load.SchemaEvolution;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code extract.schema-hints}, {@code extract.infer-column-types} and the modes of {@code
 * load.schema-evolution}, as a profile sets them and as {@code validate} refuses them.
 */
class SchemaKeysTest {

  @TempDir Path dir;

  private Path file;

  private TableProfile load(String extra) throws ProfileException {
    file = write(dir, "clicks.conf", MINIMAL + extra);
    return ProfileLoader.load(file, new Home(dir.resolve("home")));
  }

  private List<String> errors(String extra) {
    file = write(dir, "clicks.conf", MINIMAL + extra);
    return loadErrors(file, new Home(dir.resolve("home")));
  }

  private String error(String keyPath, String reason) {
    return file + ": " + keyPath + ": " + reason;
  }

  private List<ProfileError> warnings(String extra) throws ProfileException {
    file = write(dir, "clicks.conf", MINIMAL + extra);
    return ProfileRegistry.load(file, new Home(dir.resolve("home"))).warnings();
  }

  @Test
  void schemaHintsAreReadAsColumnNamesToTheirTypesInTheOrderGiven() throws Exception {
    TableProfile profile = load("""
        extract { format = csv, schema-hints = "amount DECIMAL(12,2), ts timestamp,`order id` BIGINT, tags ARRAY<STRING>" }
        """);

    assertThat(profile.extract().schemaHints()).containsExactly(
        java.util.Map.entry("amount", "DECIMAL(12,2)"), java.util.Map.entry("ts", "timestamp"),
        java.util.Map.entry("order id", "BIGINT"), java.util.Map.entry("tags", "ARRAY<STRING>"));
  }

  @Test
  void malformedSchemaHintsAreRefusedNamingTheKeyAndTheHint() {
    assertThat(errors("extract { format = csv, schema-hints = \"amount DECIMAL(12,2), ts\" }\n"))
        .containsExactly(error("extract.schema-hints", "hint \"ts\" has no type; expected \"column TYPE\", as in"
            + " \"amount DECIMAL(12,2), ts TIMESTAMP\""));
    assertThat(errors("extract { format = json, schema-hints = \"amount MONEY\" }\n"))
        .containsExactly(error("extract.schema-hints", "hint \"amount MONEY\": \"MONEY\" is not a Spark SQL type"
            + " (such as STRING, INT, BIGINT, DOUBLE, BOOLEAN, DATE, TIMESTAMP, DECIMAL(12,2), ARRAY<STRING>)"));
    assertThat(errors("extract { format = csv, schema-hints = \"amount DECIMAL(12,2, ts TIMESTAMP\" }\n"))
        .containsExactly(error("extract.schema-hints", "hint \"amount DECIMAL(12,2, ts TIMESTAMP\": a decimal's"
            + " precision and scale are DECIMAL(p) or DECIMAL(p,s), got \"DECIMAL(12,2, ts TIMESTAMP\""));
    assertThat(errors("extract { format = csv, schema-hints = \"a INT,, b INT\" }\n")).hasSize(1)
        .allSatisfy(e -> assertThat(e).startsWith(error("extract.schema-hints", "has an empty hint")));
    assertThat(errors("extract { format = csv, schema-hints = \"a INT, a BIGINT\" }\n"))
        .containsExactly(error("extract.schema-hints", "names column \"a\" twice"));
  }

  @Test
  void schemaHintsAndInferenceAreRefusedForFormatsThatCarryTheirTypes() {
    assertThat(errors("extract { schema-hints = \"a INT\", infer-column-types = true }\n")).containsExactly(
        error("extract.schema-hints", "applies to csv and json only: parquet files carry their columns' types (use"
            + " transform.cast.columns to change one)"),
        error("extract.infer-column-types", "applies to csv and json only: parquet files carry their columns' types"));
  }

  @Test
  void inferenceDefaultsToHowEachTextFormatWasReadBefore() throws Exception {
    assertThat(load("extract.format = csv\n").extract().inferColumnTypes()).isFalse();
    assertThat(load("extract.format = json\n").extract().inferColumnTypes()).isTrue();
    assertThat(load("extract { format = csv, infer-column-types = true }\n").extract().inferColumnTypes()).isTrue();
    assertThat(load("extract { format = json, infer-column-types = false }\n").extract().inferColumnTypes()).isFalse();
  }

  @Test
  void schemaEvolutionModesAreReadByTheirCodesInAnyCase() throws Exception {
    assertThat(load("").load().schemaEvolution()).isEqualTo(SchemaEvolution.ADD_NEW_COLUMNS);
    assertThat(load("load.schema-evolution = fail-on-new-columns\n").load().schemaEvolution())
        .isEqualTo(SchemaEvolution.FAIL_ON_NEW_COLUMNS);
    assertThat(load("load.schema-evolution = NONE\n").load().schemaEvolution()).isEqualTo(SchemaEvolution.NONE);
    assertThat(load("load.schema-evolution = rescue\ntransform.rescued-data-column = _rescued_data\n").load()
        .schemaEvolution()).isEqualTo(SchemaEvolution.RESCUE);
    assertThat(errors("load.schema-evolution = sometimes\n")).containsExactly(error("load.schema-evolution",
        "expected one of add-new-columns, fail-on-new-columns, rescue, none, got \"sometimes\""));
  }

  @Test
  void rescueWithoutARescuedDataColumnIsRefused() {
    assertThat(errors("load.schema-evolution = rescue\n")).containsExactly(error("load.schema-evolution",
        "rescue puts the values of new columns in the rescued data column, and transform.rescued-data-column is not"
            + " set; set it (such as _rescued_data) or choose none"));
  }

  @Test
  void theBooleanOfOldLoadsAsTheModeItMeantWithAWarningNamingTheKey() throws Exception {
    assertThat(load("load.schema-evolution = true\n").load().schemaEvolution())
        .isEqualTo(SchemaEvolution.ADD_NEW_COLUMNS);
    assertThat(load("load.schema-evolution = false\n").load().schemaEvolution())
        .isEqualTo(SchemaEvolution.FAIL_ON_NEW_COLUMNS);
    assertThat(load("load.schema-evolution = \"FALSE\"\ntransform.rescued-data-column = _rescued_data\n").load()
        .schemaEvolution()).isEqualTo(SchemaEvolution.RESCUE);

    assertThat(warnings("load.schema-evolution = true\n")).extracting(ProfileError::toString).containsExactly(
        error("load.schema-evolution", "true is the boolean of old, read as add-new-columns; write"
            + " load.schema-evolution = add-new-columns (one of [add-new-columns, fail-on-new-columns, rescue,"
            + " none])"));
    assertThat(warnings("load.schema-evolution = none\n")).isEmpty();
  }
}
