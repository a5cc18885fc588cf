package io.files2iceberg.core.match;

import static io.files2iceberg.core.match.ProfileFixture.profile;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.files2iceberg.core.match.ObjectMatch.DataFile;
import io.files2iceberg.core.match.ObjectMatch.SuccessMarker;
import io.files2iceberg.core.profile.TableProfile;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ObjectMatcherRoutingTest {

  @Test
  void twoProfilesInOneBucketAreRoutedByTheirGlobs() {
    TableProfile clicks = profile("clicks", "gs://landing/raw/clicks/*/*.parquet").build();
    TableProfile orders = profile("orders", "gs://landing/raw/orders/*/*.csv").build();
    ObjectMatcher matcher = new ObjectMatcher(List.of(clicks, orders));

    DataFile click = (DataFile) matcher.match("landing", "raw/clicks/eu/a.parquet", 1L, 10L);
    DataFile order = (DataFile) matcher.match("landing", "raw/orders/eu/a.csv", 1L, 10L);
    SuccessMarker orderMarker =
        (SuccessMarker) matcher.match("landing", "raw/orders/eu/_SUCCESS", 1L, 0L);

    assertThat(click.profile()).isEqualTo(clicks);
    assertThat(click.partition().table()).isEqualTo("local.raw.clicks");
    assertThat(order.profile()).isEqualTo(orders);
    assertThat(order.partition().table()).isEqualTo("local.raw.orders");
    assertThat(orderMarker.profile()).isEqualTo(orders);
  }

  @Test
  void profilesInDifferentBucketsAreRoutedByBucket() {
    TableProfile eu = profile("clicks_eu", "gs://landing-eu/raw/*/*.csv").build();
    TableProfile us = profile("clicks_us", "gs://landing-us/raw/*/*.csv").build();
    ObjectMatcher matcher = new ObjectMatcher(List.of(eu, us));

    assertThat(((DataFile) matcher.match("landing-us", "raw/x/a.csv", 1L, 10L)).profile())
        .isEqualTo(us);
    assertThat(((DataFile) matcher.match("landing-eu", "raw/x/a.csv", 1L, 10L)).profile())
        .isEqualTo(eu);
  }

  @Test
  void localFilesMatchAFileGlob() {
    TableProfile clicks =
        profile("clicks", "file:///data/landing/clicks/dt=*/*.parquet")
            .pattern(".*/dt=([^/]+)/.*")
            .datePartitions("yyyy-MM-dd")
            .build();
    ObjectMatcher matcher = new ObjectMatcher(List.of(clicks));
    ObjectLocation file =
        ObjectLocation.file(Path.of("/data/landing/clicks/dt=2024-01-31/part-0.parquet"));

    ObjectMatch match = matcher.match(file, 1L, 10L);

    assertThat(match)
        .isEqualTo(
            new DataFile(
                clicks,
                new PartitionRef(
                    "local.raw.clicks",
                    "2024-01-31",
                    Optional.of(LocalDate.of(2024, 1, 31)),
                    "file:///data/landing/clicks/dt=2024-01-31/"),
                file,
                1L));
  }

  @Test
  void localMarkerMarksItsPartition() {
    TableProfile clicks = profile("clicks", "file:///data/landing/clicks/*/*.parquet").build();

    ObjectMatch match =
        new ObjectMatcher(List.of(clicks))
            .match(ObjectLocation.parse("file:///data/landing/clicks/eu/_SUCCESS"), 1L, 0L);

    assertThat(match).isInstanceOf(SuccessMarker.class);
    assertThat(((SuccessMarker) match).partition().prefix())
        .isEqualTo("file:///data/landing/clicks/eu/");
  }

  @Test
  void gsObjectDoesNotMatchAFileGlobWithTheSameName() {
    TableProfile clicks = profile("clicks", "file:///data/landing/*/*.parquet").build();

    ObjectMatch match =
        new ObjectMatcher(List.of(clicks)).match("data", "landing/eu/a.parquet", 1L, 10L);

    assertThat(match).isInstanceOf(ObjectMatch.Ignored.class);
  }

  @Test
  void invalidGlobNamesTheProfileAndKey() {
    TableProfile broken = profile("clicks", "gs://landing/raw/{a,{b}}/*.csv").build();

    assertThatThrownBy(() -> new ObjectMatcher(List.of(broken)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "profile \"clicks\": extract.path: glob \"gs://landing/raw/{a,{b}}/*.csv\": nested"
                + " braces are not supported (at \"{b}}/*.csv\")");
  }

  @Test
  void patternWithoutExactlyOneGroupNamesTheProfileAndKey() {
    TableProfile broken =
        profile("clicks", "gs://landing/raw/*/*.csv").pattern(".*/(a)/(b)/.*").build();

    assertThatThrownBy(() -> new ObjectMatcher(List.of(broken)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "profile \"clicks\": extract.batch-file.pattern \".*/(a)/(b)/.*\" must have exactly"
                + " one capture group, has 2");
  }

  @Test
  void invalidPatternNamesTheProfileAndKey() {
    TableProfile broken = profile("clicks", "gs://landing/raw/*/*.csv").pattern(".*/(a").build();

    assertThatThrownBy(() -> new ObjectMatcher(List.of(broken)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "profile \"clicks\": extract.batch-file.pattern \".*/(a\" is not a valid regular"
                + " expression: ");
  }

  @Test
  void invalidDateFormatNamesTheProfileAndKey() {
    TableProfile broken =
        profile("clicks", "gs://landing/raw/*/*.csv").datePartitions("yyyy-bb").build();

    assertThatThrownBy(() -> new ObjectMatcher(List.of(broken)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "profile \"clicks\": extract.batch-file.date-format \"yyyy-bb\" is not a valid"
                + " DateTimeFormatter pattern: ");
  }
}
