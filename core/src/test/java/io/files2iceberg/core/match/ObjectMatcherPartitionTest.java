package io.files2iceberg.core.match;

import static io.files2iceberg.core.match.ProfileFixture.profile;
import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.match.ObjectMatch.DataFile;
import io.files2iceberg.core.match.ObjectMatch.Ignored;
import io.files2iceberg.core.match.ObjectMatch.Rejected;
import io.files2iceberg.core.profile.TableProfile;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ObjectMatcherPartitionTest {

  private static ObjectMatch match(TableProfile profile, String name) {
    return new ObjectMatcher(List.of(profile)).match("landing", name, 7L, 100L);
  }

  @Test
  void datePartitionTokenIsTheParsedDate() {
    TableProfile clicks =
        profile("clicks", "gs://landing/raw/clicks/dt=*/*.parquet")
            .pattern(".*/dt=([^/]+)/[^/]+")
            .datePartitions("yyyy-MM-dd")
            .build();

    ObjectMatch match = match(clicks, "raw/clicks/dt=2024-01-31/part-0.parquet");

    assertThat(match)
        .isEqualTo(
            new DataFile(
                clicks,
                new PartitionRef(
                    "local.raw.clicks",
                    "2024-01-31",
                    Optional.of(LocalDate.of(2024, 1, 31)),
                    "gs://landing/raw/clicks/dt=2024-01-31/"),
                ObjectLocation.gs("landing", "raw/clicks/dt=2024-01-31/part-0.parquet"),
                7L));
  }

  @Test
  void compactDateFormatStillYieldsTheIsoToken() {
    TableProfile clicks =
        profile("clicks", "gs://landing/raw/clicks/*/*.parquet")
            .pattern(".*/(\\d{8})/[^/]+")
            .datePartitions("yyyyMMdd")
            .build();

    DataFile file = (DataFile) match(clicks, "raw/clicks/20240131/part-0.parquet");

    assertThat(file.partition().token()).isEqualTo("2024-01-31");
    assertThat(file.partition().date()).contains(LocalDate.of(2024, 1, 31));
    assertThat(file.partition().prefix()).isEqualTo("gs://landing/raw/clicks/20240131/");
  }

  @Test
  void uuuuDateFormatParsesToo() {
    TableProfile clicks =
        profile("clicks", "gs://landing/raw/clicks/*/*.parquet")
            .datePartitions("'dt='uuuu-MM-dd")
            .build();

    DataFile file = (DataFile) match(clicks, "raw/clicks/dt=2024-02-29/part-0.parquet");

    assertThat(file.partition().token()).isEqualTo("2024-02-29");
  }

  @Test
  void stringPartitionTokenIsTheCapturedGroup() {
    TableProfile orders =
        profile("orders", "gs://landing/raw/orders/*/*.csv")
            .pattern(".*/region=([^/]+)/.*")
            .build();

    DataFile file = (DataFile) match(orders, "raw/orders/region=eu-west/a.csv");

    assertThat(file.partition())
        .isEqualTo(
            new PartitionRef(
                "local.raw.orders",
                "eu-west",
                Optional.empty(),
                "gs://landing/raw/orders/region=eu-west/"));
  }

  @Test
  void patternIsMatchedAgainstTheWholeUri() {
    TableProfile orders =
        profile("orders", "gs://landing/raw/orders/*/*.csv")
            .pattern("gs://landing/raw/orders/([^/]+)/.*")
            .build();

    DataFile file = (DataFile) match(orders, "raw/orders/eu/a.csv");

    assertThat(file.partition().token()).isEqualTo("eu");
  }

  @Test
  void patternFallsBackToTheObjectName() {
    TableProfile orders =
        profile("orders", "gs://landing/raw/orders/*/*.csv")
            .pattern("raw/orders/([^/]+)/.*")
            .build();

    DataFile file = (DataFile) match(orders, "raw/orders/eu/a.csv");

    assertThat(file.partition().token()).isEqualTo("eu");
  }

  @Test
  void withoutPatternTheTokenIsTheFolderBelowTheFixedPrefix() {
    TableProfile orders = profile("orders", "gs://landing/raw/orders/*/*.csv").build();

    DataFile file = (DataFile) match(orders, "raw/orders/region=eu/a.csv");

    assertThat(file.partition().token()).isEqualTo("region=eu");
    assertThat(file.partition().prefix()).isEqualTo("gs://landing/raw/orders/region=eu/");
  }

  @Test
  void withoutPatternTheFixedPrefixFolderEndsAtItsLastSlash() {
    TableProfile clicks =
        profile("clicks", "gs://landing/raw/clicks/dt=*/*.parquet")
            .datePartitions("'dt='yyyy-MM-dd")
            .build();

    DataFile file = (DataFile) match(clicks, "raw/clicks/dt=2024-01-31/a.parquet");

    assertThat(file.partition().token()).isEqualTo("2024-01-31");
  }

  @Test
  void withoutPatternAnObjectDirectlyUnderThePrefixHasTheEmptyToken() {
    TableProfile orders = profile("orders", "gs://landing/raw/orders/*.csv").build();

    DataFile file = (DataFile) match(orders, "raw/orders/a.csv");

    assertThat(file.partition().token()).isEmpty();
    assertThat(file.partition().prefix()).isEqualTo("gs://landing/raw/orders/");
  }

  @Test
  void withoutPatternNestedFoldersBelowDoubleStarFormTheToken() {
    TableProfile orders = profile("orders", "gs://landing/raw/orders/**/*.csv").build();

    DataFile file = (DataFile) match(orders, "raw/orders/eu/2024/a.csv");

    assertThat(file.partition().token()).isEqualTo("eu/2024");
  }

  @Test
  void strictPatternRejectsAMatchingFileThatMissesThePatternNamingPatternAndUri() {
    TableProfile orders =
        profile("orders", "gs://landing/raw/orders/*/*.csv")
            .pattern(".*/region=([^/]+)/.*")
            .strictPattern()
            .build();

    ObjectMatch match = match(orders, "raw/orders/eu/a.csv");

    assertThat(match)
        .isEqualTo(
            new Rejected(
                orders,
                ObjectLocation.gs("landing", "raw/orders/eu/a.csv"),
                "gs://landing/raw/orders/eu/a.csv does not match extract.batch-file.pattern"
                    + " \".*/region=([^/]+)/.*\" (strict-pattern on)",
                Rejected.Kind.PATTERN_MISMATCH));
    assertThat(((Rejected) match).stopsTheTable()).isTrue();
  }

  @Test
  void nonStrictPatternRejectsAMatchingFileThatMissesThePatternWithoutStoppingTheTable() {
    TableProfile orders =
        profile("orders", "gs://landing/raw/orders/*/*.csv")
            .pattern(".*/region=([^/]+)/.*")
            .build();

    ObjectMatch match = match(orders, "raw/orders/eu/a.csv");

    assertThat(match)
        .isEqualTo(
            new Rejected(
                orders,
                ObjectLocation.gs("landing", "raw/orders/eu/a.csv"),
                "gs://landing/raw/orders/eu/a.csv does not match extract.batch-file.pattern"
                    + " \".*/region=([^/]+)/.*\" (strict-pattern off)",
                Rejected.Kind.PATTERN_MISMATCH));
    assertThat(((Rejected) match).stopsTheTable()).isFalse();
  }

  @Test
  void unparseableDateIsRejectedNamingTokenFormatAndUri() {
    TableProfile clicks =
        profile("clicks", "gs://landing/raw/clicks/*/*.parquet")
            .pattern(".*/dt=([^/]+)/.*")
            .datePartitions("yyyy-MM-dd")
            .build();

    ObjectMatch match = match(clicks, "raw/clicks/dt=2024-13-01/a.parquet");

    assertThat(match)
        .isEqualTo(
            new Rejected(
                clicks,
                ObjectLocation.gs("landing", "raw/clicks/dt=2024-13-01/a.parquet"),
                "partition token \"2024-13-01\" of gs://landing/raw/clicks/dt=2024-13-01/a.parquet"
                    + " does not parse with extract.batch-file.date-format \"yyyy-MM-dd\"",
                Rejected.Kind.UNPARSEABLE_DATE));
    assertThat(((Rejected) match).stopsTheTable()).isFalse();
  }

  @Test
  void impossibleCalendarDateIsRejectedNotClamped() {
    TableProfile clicks =
        profile("clicks", "gs://landing/raw/clicks/*/*.parquet")
            .pattern(".*/(\\d{8})/.*")
            .datePartitions("yyyyMMdd")
            .build();

    ObjectMatch match = match(clicks, "raw/clicks/20230229/a.parquet");

    assertThat(match).isInstanceOf(Rejected.class);
    assertThat(((Rejected) match).reason())
        .isEqualTo(
            "partition token \"20230229\" of gs://landing/raw/clicks/20230229/a.parquet does not"
                + " parse with extract.batch-file.date-format \"yyyyMMdd\"");
  }

  @Test
  void unparseableDateIsRejectedEvenWithoutStrictPattern() {
    TableProfile clicks =
        profile("clicks", "gs://landing/raw/clicks/*/*.parquet").datePartitions("yyyy-MM-dd").build();

    ObjectMatch match = match(clicks, "raw/clicks/latest/a.parquet");

    assertThat(match).isInstanceOf(Rejected.class);
    assertThat(((Rejected) match).reason()).startsWith("partition token \"latest\" of ");
  }

  @Test
  void classesAndEscapesRouteObjectsAndTheTokenIsRelativeToTheUnescapedPrefix() {
    TableProfile clicks =
        profile("clicks", "gs://landing/raw/\\[eu\\]+(1)/dt=*/part-[0-9].csv").build();

    DataFile file = (DataFile) match(clicks, "raw/[eu]+(1)/dt=2024-01-31/part-7.csv");

    assertThat(file.partition().token()).isEqualTo("dt=2024-01-31");
    assertThat(file.partition().prefix()).isEqualTo("gs://landing/raw/[eu]+(1)/dt=2024-01-31/");
    assertThat(match(clicks, "raw/[eu]+(1)/dt=2024-01-31/part-x.csv")).isInstanceOf(Ignored.class);
    assertThat(match(clicks, "raw/e+(1)/dt=2024-01-31/part-7.csv")).isInstanceOf(Ignored.class);
    assertThat(match(clicks, "raw/[eu]+(1)/dt=2024-01-31/_SUCCESS"))
        .isInstanceOf(ObjectMatch.SuccessMarker.class);
  }
}
