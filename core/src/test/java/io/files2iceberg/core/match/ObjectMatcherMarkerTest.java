package io.files2iceberg.core.match;

import static io.files2iceberg.core.match.ProfileFixture.profile;
import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.match.ObjectMatch.DataFile;
import io.files2iceberg.core.match.ObjectMatch.Ignored;
import io.files2iceberg.core.match.ObjectMatch.Rejected;
import io.files2iceberg.core.match.ObjectMatch.SuccessMarker;
import io.files2iceberg.core.profile.TableProfile;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ObjectMatcherMarkerTest {

  private static final ProfileFixture CLICKS =
      profile("clicks", "gs://landing/raw/clicks/dt=*/*.parquet")
          .pattern(".*/dt=(\\d{4}-\\d{2}-\\d{2})/.*")
          .datePartitions("yyyy-MM-dd");

  @Test
  void markerInAPartitionFolderMarksThatPartition() {
    TableProfile clicks = CLICKS.build();

    ObjectMatch match =
        new ObjectMatcher(List.of(clicks))
            .match("landing", "raw/clicks/dt=2024-01-31/_SUCCESS", 3L, 0L);

    assertThat(match)
        .isEqualTo(
            new SuccessMarker(
                clicks,
                new PartitionRef(
                    "local.raw.clicks",
                    "2024-01-31",
                    Optional.of(LocalDate.of(2024, 1, 31)),
                    "gs://landing/raw/clicks/dt=2024-01-31/"),
                ObjectLocation.gs("landing", "raw/clicks/dt=2024-01-31/_SUCCESS")));
  }

  @Test
  void markerAndDataFilesOfOneFolderShareThePartition() {
    ObjectMatcher matcher = new ObjectMatcher(List.of(CLICKS.build()));

    SuccessMarker marker =
        (SuccessMarker) matcher.match("landing", "raw/clicks/dt=2024-01-31/_SUCCESS", 3L, 0L);
    DataFile file =
        (DataFile) matcher.match("landing", "raw/clicks/dt=2024-01-31/part-0.parquet", 1L, 10L);

    assertThat(marker.partition()).isEqualTo(file.partition());
  }

  @Test
  void markerWithContentIsStillAMarker() {
    ObjectMatch match =
        new ObjectMatcher(List.of(CLICKS.build()))
            .match("landing", "raw/clicks/dt=2024-01-31/_SUCCESS", 3L, 512L);

    assertThat(match).isInstanceOf(SuccessMarker.class);
  }

  @Test
  void markerMatchesThroughItsFolderWhenThePatternDescribesDataFilesOnly() {
    TableProfile clicks =
        profile("clicks", "gs://landing/raw/clicks/*/*.parquet")
            .pattern(".*/(\\d{8})/?(?:part-[^/]+\\.parquet)?")
            .datePartitions("yyyyMMdd")
            .build();

    ObjectMatch match =
        new ObjectMatcher(List.of(clicks)).match("landing", "raw/clicks/20240131/_SUCCESS", 3L, 0L);

    assertThat(match).isInstanceOf(SuccessMarker.class);
    assertThat(((SuccessMarker) match).partition().token()).isEqualTo("2024-01-31");
  }

  @Test
  void markerWithoutPatternTakesItsFolderAsToken() {
    TableProfile orders = profile("orders", "gs://landing/raw/orders/*/*.csv").build();

    SuccessMarker marker =
        (SuccessMarker)
            new ObjectMatcher(List.of(orders)).match("landing", "raw/orders/eu/_SUCCESS", 3L, 0L);

    assertThat(marker.partition().token()).isEqualTo("eu");
    assertThat(marker.partition().prefix()).isEqualTo("gs://landing/raw/orders/eu/");
  }

  @Test
  void markerInAFolderOutsideTheGlobMatchesNoProfile() {
    ObjectMatch match =
        new ObjectMatcher(List.of(CLICKS.build()))
            .match("landing", "raw/clicks/_SUCCESS", 3L, 0L);

    assertThat(match)
        .isEqualTo(
            new Ignored(
                ObjectLocation.gs("landing", "raw/clicks/_SUCCESS"),
                "matches no table profile",
                Optional.empty()));
  }

  @Test
  void markerIsIgnoredWhenSuccessFileFilterIsOff() {
    TableProfile clicks =
        profile("clicks", "gs://landing/raw/clicks/dt=*/*.parquet").successFileFilterOff().build();

    ObjectMatch match =
        new ObjectMatcher(List.of(clicks))
            .match("landing", "raw/clicks/dt=2024-01-31/_SUCCESS", 3L, 0L);

    assertThat(match)
        .isEqualTo(
            new Ignored(
                ObjectLocation.gs("landing", "raw/clicks/dt=2024-01-31/_SUCCESS"),
                "success marker but success-file-filter is off",
                Optional.of(clicks)));
  }

  @Test
  void customSuccessFileNameIsTheMarker() {
    TableProfile clicks =
        profile("clicks", "gs://landing/raw/clicks/dt=*/*.parquet").successFileName("DONE").build();
    ObjectMatcher matcher = new ObjectMatcher(List.of(clicks));

    assertThat(matcher.match("landing", "raw/clicks/dt=2024-01-31/DONE", 3L, 0L))
        .isInstanceOf(SuccessMarker.class);
    assertThat(matcher.match("landing", "raw/clicks/dt=2024-01-31/_SUCCESS", 3L, 0L))
        .isEqualTo(
            new Ignored(
                ObjectLocation.gs("landing", "raw/clicks/dt=2024-01-31/_SUCCESS"),
                "hidden file (name starts with _ or .)",
                Optional.of(clicks)));
  }

  @Test
  void markerOfADoubleStarGlobMayBeInAnyFolderBelow() {
    TableProfile clicks = profile("clicks", "gs://landing/raw/clicks/**/*.parquet").build();
    ObjectMatcher matcher = new ObjectMatcher(List.of(clicks));

    assertThat(matcher.match("landing", "raw/clicks/_SUCCESS", 3L, 0L))
        .isInstanceOf(SuccessMarker.class);
    assertThat(matcher.match("landing", "raw/clicks/eu/2024/_SUCCESS", 3L, 0L))
        .isInstanceOf(SuccessMarker.class);
    assertThat(matcher.match("landing", "raw/_SUCCESS", 3L, 0L)).isInstanceOf(Ignored.class);
  }

  @Test
  void markerWithUnparseableDateIsRejected() {
    TableProfile clicks =
        profile("clicks", "gs://landing/raw/clicks/*/*.parquet").datePartitions("yyyy-MM-dd").build();

    ObjectMatch match =
        new ObjectMatcher(List.of(clicks)).match("landing", "raw/clicks/latest/_SUCCESS", 3L, 0L);

    assertThat(match)
        .isEqualTo(
            new Rejected(
                clicks,
                ObjectLocation.gs("landing", "raw/clicks/latest/_SUCCESS"),
                "partition token \"latest\" of gs://landing/raw/clicks/latest/_SUCCESS does not"
                    + " parse with extract.batch-file.date-format \"yyyy-MM-dd\"",
                Rejected.Kind.UNPARSEABLE_DATE));
  }

  @Test
  void markerThePatternCannotPlaceIsRejectedUnderStrictPattern() {
    TableProfile clicks =
        profile("clicks", "gs://landing/raw/clicks/*/*.parquet")
            .pattern(".*/dt=([^/]+)/part-[^/]+\\.parquet")
            .strictPattern()
            .build();

    ObjectMatch match =
        new ObjectMatcher(List.of(clicks)).match("landing", "raw/clicks/dt=1/_SUCCESS", 3L, 0L);

    assertThat(match)
        .isEqualTo(
            new Rejected(
                clicks,
                ObjectLocation.gs("landing", "raw/clicks/dt=1/_SUCCESS"),
                "success marker gs://landing/raw/clicks/dt=1/_SUCCESS does not match"
                    + " extract.batch-file.pattern \".*/dt=([^/]+)/part-[^/]+\\.parquet\""
                    + " (strict-pattern on)",
                Rejected.Kind.PATTERN_MISMATCH));
  }
}
