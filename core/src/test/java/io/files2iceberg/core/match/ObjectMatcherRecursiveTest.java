package io.files2iceberg.core.match;

import static io.files2iceberg.core.match.ProfileFixture.profile;
import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.match.ObjectMatch.DataFile;
import io.files2iceberg.core.match.ObjectMatch.Ignored;
import io.files2iceberg.core.match.ObjectMatch.SuccessMarker;
import io.files2iceberg.core.profile.TableProfile;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@code extract.recursive-file-lookup}: a file in a subfolder (at any depth) of a partition folder
 * belongs to that partition when it is on, and is ignored, with that reason, when it is off.
 */
class ObjectMatcherRecursiveTest {
  private static final String GLOB = "gs://landing/raw/clicks/*/*.csv";

  private static ObjectMatch match(TableProfile profile, String name) {
    return new ObjectMatcher(List.of(profile)).match("landing", name, 7L, 100L);
  }

  @Test
  void fileInASubfolderOfAPartitionFolderBelongsToThatPartition() {
    TableProfile clicks = profile("clicks", GLOB).recursiveFileLookup().build();

    ObjectMatch match = match(clicks, "raw/clicks/dt=2024-01-01/sub/part.csv");

    assertThat(match)
        .isEqualTo(
            new DataFile(
                clicks,
                new PartitionRef(
                    "local.raw.clicks", "dt=2024-01-01", Optional.empty(), "gs://landing/raw/clicks/dt=2024-01-01/"),
                ObjectLocation.gs("landing", "raw/clicks/dt=2024-01-01/sub/part.csv"),
                7L));
  }

  @Test
  void fileSeveralFoldersDeepBelongsToTheNearestPartitionFolderAbove() {
    TableProfile clicks = profile("clicks", GLOB).recursiveFileLookup().build();

    DataFile file = (DataFile) match(clicks, "raw/clicks/dt=2024-01-01/a/b/c/part.csv");

    assertThat(file.partition().token()).isEqualTo("dt=2024-01-01");
    assertThat(file.partition().prefix()).isEqualTo("gs://landing/raw/clicks/dt=2024-01-01/");
    assertThat(file.object().uri()).isEqualTo("gs://landing/raw/clicks/dt=2024-01-01/a/b/c/part.csv");
  }

  @Test
  void patternWrittenForFilesDirectlyInThePartitionFolderPlacesNestedFilesToo() {
    TableProfile clicks =
        profile("clicks", GLOB)
            .recursiveFileLookup()
            .pattern(".*/dt=([^/]+)/[^/]+\\.csv")
            .datePartitions("yyyy-MM-dd")
            .strictPattern()
            .build();

    DataFile file = (DataFile) match(clicks, "raw/clicks/dt=2024-01-01/sub/part.csv");

    assertThat(file.partition().token()).isEqualTo("2024-01-01");
    assertThat(file.partition().date()).contains(LocalDate.of(2024, 1, 1));
    assertThat(file.partition().prefix()).isEqualTo("gs://landing/raw/clicks/dt=2024-01-01/");
  }

  @Test
  void filesDirectlyInThePartitionFolderAreMatchedAsWithoutTheSetting() {
    TableProfile clicks = profile("clicks", GLOB).recursiveFileLookup().build();

    DataFile file = (DataFile) match(clicks, "raw/clicks/dt=2024-01-01/part.csv");

    assertThat(file.partition().token()).isEqualTo("dt=2024-01-01");
    assertThat(file.partition().prefix()).isEqualTo("gs://landing/raw/clicks/dt=2024-01-01/");
  }

  @Test
  void withTheSettingOffAFileInASubfolderIsIgnoredSayingWhy() {
    TableProfile clicks = profile("clicks", GLOB).build();

    ObjectMatch match = match(clicks, "raw/clicks/dt=2024-01-01/sub/part.csv");

    assertThat(match)
        .isEqualTo(
            new Ignored(
                ObjectLocation.gs("landing", "raw/clicks/dt=2024-01-01/sub/part.csv"),
                "in a subfolder of a partition folder (extract.recursive-file-lookup off)",
                Optional.of(clicks)));
  }

  @Test
  void nestedFileWhoseNameMissesTheGlobMatchesNoProfile() {
    TableProfile clicks = profile("clicks", GLOB).recursiveFileLookup().build();

    Ignored ignored = (Ignored) match(clicks, "raw/clicks/dt=2024-01-01/sub/part.json");

    assertThat(ignored.reason()).isEqualTo(ObjectMatcher.NO_PROFILE);
  }

  @Test
  void filesUnderHiddenSubfoldersAndHiddenNestedFilesAreNotData() {
    TableProfile clicks = profile("clicks", GLOB).recursiveFileLookup().build();

    Ignored staging = (Ignored) match(clicks, "raw/clicks/dt=2024-01-01/.staging/part.csv");
    Ignored underscore = (Ignored) match(clicks, "raw/clicks/dt=2024-01-01/sub/_tmp/part.csv");

    assertThat(staging.reason()).isEqualTo(ObjectMatcher.HIDDEN_FOLDER);
    assertThat(underscore.reason()).isEqualTo(ObjectMatcher.HIDDEN_FOLDER);
    assertThat(staging.profile()).contains(clicks);
  }

  @Test
  void successFileInASubfolderIsNeitherTheMarkerNorData() {
    TableProfile clicks = profile("clicks", "gs://landing/raw/clicks/*/*").recursiveFileLookup().build();

    ObjectMatch nested = match(clicks, "raw/clicks/dt=2024-01-01/sub/_SUCCESS");
    ObjectMatch marker = match(clicks, "raw/clicks/dt=2024-01-01/_SUCCESS");

    assertThat(nested).isInstanceOf(Ignored.class);
    assertThat(((Ignored) nested).reason()).isEqualTo(ObjectMatcher.HIDDEN);
    assertThat(marker).isInstanceOf(SuccessMarker.class);
  }
}
