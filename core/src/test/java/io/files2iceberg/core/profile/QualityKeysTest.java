package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ProfileFixtures.EVERY_KEY_HOCON;
import static io.files2iceberg.core.profile.ProfileFixtures.EVERY_KEY_YAML;
import static io.files2iceberg.core.profile.ProfileFixtures.loadErrors;
import static io.files2iceberg.core.profile.ProfileFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.profile.Expectation.OnViolation;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code quality.expectations}: each kind read, every mistake named by its element and field. */
class QualityKeysTest {
  @TempDir Path dir;

  private static final String BASE = """
      extract.path = "file:///landing/orders/*/*.csv"
      extract.format = csv
      load.iceberg.table = local.sales.orders
      """;

  @Test
  void everyKindIsReadInOrderFromHoconAndYaml() throws Exception {
    List<Expectation> expected = List.of(
        Expectation.check("amount_positive", "amount > 0", OnViolation.REJECT),
        Expectation.minRows("enough_rows", 10, OnViolation.WARN),
        Expectation.maxNullFraction("sku_set", "sku", 0.1, OnViolation.FAIL));
    assertThat(ProfileLoader.load(write(dir, "orders.conf", EVERY_KEY_HOCON), home()).quality().expectations())
        .isEqualTo(expected);
    assertThat(ProfileLoader.load(write(dir, "orders.yaml", EVERY_KEY_YAML), home()).quality().expectations())
        .isEqualTo(expected);
  }

  @Test
  void onViolationDefaultsToFailAndTheRenderedProfileReadsBackEqual() throws Exception {
    TableProfile profile = load("quality.expectations = [{ name = id_set, check = \"id IS NOT NULL\" }]");
    assertThat(profile.quality().expectations())
        .containsExactly(Expectation.check("id_set", "id IS NOT NULL", OnViolation.FAIL));
    assertThat(ProfileJson.toJson(profile)).contains(
        "\"quality\":{\"expectations\":[{\"name\":\"id_set\",\"check\":\"id IS NOT NULL\",\"on-violation\":\"fail\"}]}");
    TableProfile again = ProfileLoader.parse(ProfileJson.toJson(profile), profile.source(), home());
    assertThat(again.quality()).isEqualTo(profile.quality());
  }

  @Test
  void noExpectationsIsTheDefault() throws Exception {
    assertThat(load("").quality()).isEqualTo(Quality.NONE);
  }

  @Test
  void anElementThatIsNotAnObjectIsNamed() throws Exception {
    assertThat(errors("quality.expectations = [{ name = ok, check = \"a > 0\" }, \"a > 0\"]"))
        .anySatisfy(e -> assertThat(e).contains("quality.expectations[1]: expected an object, got \"a > 0\""));
  }

  @Test
  void eachMistakeIsNamedByItsElementAndField() throws Exception {
    List<String> errors = errors("""
        quality.expectations = [
          { name = "amount positive", check = "amount > 0" }
          { name = ok, check = "a > 0", min-rows = 3 }
          { name = no_rule, on-violation = warn }
          { name = bad_action, check = "a > 0", on-violation = quarantine }
          { name = few, min-rows = 0 }
          { name = nulls, max-null-fraction = 1.5, column = c }
          { name = nulls_no_column, max-null-fraction = 0.5 }
          { name = col_on_check, check = "a > 0", column = a }
          { name = typo, check = "a > 0", on_violation = drop }
          { check = "a > 0" }
          { name = Dup, check = "a > 0" }
          { name = dup, check = "a > 1" }
        ]
        """);
    assertThat(String.join("\n", errors))
        .contains("quality.expectations[0].name: expected letters, digits and _")
        .contains("quality.expectations[1]: an expectation has one rule, got check and min-rows")
        .contains("quality.expectations[2]: an expectation needs one rule")
        .contains("quality.expectations[3].on-violation: expected one of fail, reject, drop, warn, got \"quarantine\"")
        .contains("quality.expectations[4].min-rows: must be at least 1, got 0")
        .contains("quality.expectations[5].max-null-fraction: must be from 0 to 1, got 1.5")
        .contains("quality.expectations[6].column: required field is missing")
        .contains("quality.expectations[7].column: goes only with max-null-fraction")
        .contains("quality.expectations[8].on_violation: unknown field")
        .contains("quality.expectations[9].name: required field is missing")
        .contains("quality.expectations[11].name: duplicate expectation name \"dup\"");
  }

  @Test
  void aListOfStringsIsRefusedWithTheShapeToWrite() {
    assertThat(String.join("\n", errors("quality.expectations = \"amount > 0\"")))
        .contains("quality.expectations: expected a list of objects, got \"amount > 0\"");
  }

  private TableProfile load(String quality) throws ProfileException {
    return ProfileLoader.load(write(dir, "orders.conf", BASE + quality), home());
  }

  private List<String> errors(String quality) {
    return loadErrors(write(dir, "orders.conf", BASE + quality), home());
  }

  private Home home() {
    return new Home(dir.resolve("home"));
  }
}
