package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ProfileFixtures.loadErrors;
import static io.files2iceberg.core.profile.ProfileFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code maintain} section: the order {@code maintain --sort} rewrites a table in. */
class MaintainKeysTest {
  private static final String TABLE = """
      extract.path = "gs://bucket/raw/clicks/*.parquet"
      load.iceberg.table = "prod.raw.clicks"
      """;

  @TempDir Path dir;

  private Home home() {
    return new Home(dir.resolve("home"));
  }

  @Test
  void sortByParsesEachColumnWithItsDirectionAndNullOrder() throws Exception {
    TableProfile profile = ProfileLoader.load(write(dir, "clicks.conf", TABLE
        + "maintain.sort-by = [event_date, \"user_id desc\", \"ts ASC NULLS LAST\", \"score DESC NULLS FIRST\"]\n"),
        home());

    assertThat(profile.maintain().sortFields()).containsExactly(
        new Maintain.SortField("event_date", true, true),
        new Maintain.SortField("user_id", false, false),
        new Maintain.SortField("ts", true, false),
        new Maintain.SortField("score", false, true));
    assertThat(profile.maintain().zOrderBy()).isEmpty();
  }

  @Test
  void withoutTheSectionThereIsNoOrder() throws Exception {
    assertThat(ProfileLoader.load(write(dir, "clicks.conf", TABLE), home()).maintain()).isEqualTo(Maintain.NONE);
  }

  @Test
  void zOrderByTakesColumnNames() throws Exception {
    TableProfile profile = ProfileLoader.load(write(dir, "clicks.conf", TABLE
        + "maintain.z-order-by = [lat, lon]\n"), home());

    assertThat(profile.maintain().zOrderBy()).containsExactly("lat", "lon");
  }

  @Test
  void sortByAndZOrderByTogetherIsAnErrorNamingBoth() {
    Path file = write(dir, "clicks.conf", TABLE + "maintain { sort-by = [ts], z-order-by = [lat, lon] }\n");

    assertThat(loadErrors(file, home())).containsExactly(file + ": maintain.z-order-by: cannot go with"
        + " maintain.sort-by: a table's files are rewritten in one order; keep maintain.sort-by (a sort) or"
        + " maintain.z-order-by (a z-order), not both");
  }

  @Test
  void anElementThatIsNoColumnIsAnErrorNamingIt() {
    Path file = write(dir, "clicks.conf", TABLE
        + "maintain.sort-by = [\"ts DESCENDING\"]\nmaintain.z-order-by = [\"lower(lat)\"]\n");

    List<String> errors = loadErrors(file, home());

    assertThat(errors).contains(file + ": maintain.sort-by[0]: expected a column with an optional ASC or DESC and NULLS"
        + " FIRST or NULLS LAST, such as \"event_time DESC NULLS LAST\", got \"ts DESCENDING\"",
        file + ": maintain.z-order-by[0]: expected a column name, such as \"user_id\", got \"lower(lat)\"");
  }

  @Test
  void theOrderSurvivesTheRenderedProfileTheJobsReceive() throws Exception {
    TableProfile profile = ProfileLoader.load(write(dir, "clicks.conf", TABLE
        + "maintain.sort-by = [\"ts DESC\"]\n"), home());

    TableProfile rendered = ProfileLoader.parse(ProfileJson.toJson(profile), profile.source(), home());

    assertThat(rendered.maintain()).isEqualTo(profile.maintain());
  }
}
