package io.files2iceberg.core.match;

import static io.files2iceberg.core.match.ProfileFixture.profile;
import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.match.ObjectMatch.DataFile;
import io.files2iceberg.core.match.ObjectMatch.Ignored;
import io.files2iceberg.core.profile.TableProfile;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ObjectMatcherIgnoredTest {

  private final TableProfile clicks = profile("clicks", "gs://landing/raw/clicks/**").build();
  private final ObjectMatcher matcher = new ObjectMatcher(List.of(clicks));

  private Ignored ignored(String name, long size) {
    ObjectMatch match = matcher.match("landing", name, 1L, size);
    assertThat(match).isInstanceOf(Ignored.class);
    return (Ignored) match;
  }

  @Test
  void sparkTemporaryFilesAreIgnored() {
    Ignored ignored = ignored("raw/clicks/dt=1/_temporary/0/task_1/part-0.parquet", 10L);

    assertThat(ignored.reason()).isEqualTo("Spark/Hadoop temporary file (_temporary/)");
    assertThat(ignored.profile()).contains(clicks);
  }

  @Test
  void temporaryFolderAtTheRootIsIgnored() {
    assertThat(matcher.match("landing", "_temporary/0/part-0.parquet", 1L, 10L))
        .isEqualTo(
            new Ignored(
                ObjectLocation.gs("landing", "_temporary/0/part-0.parquet"),
                "Spark/Hadoop temporary file (_temporary/)",
                Optional.empty()));
  }

  @Test
  void checksumFilesAreIgnored() {
    assertThat(ignored("raw/clicks/dt=1/.part-0.parquet.crc", 10L).reason())
        .isEqualTo("checksum file (.crc)");
    assertThat(ignored("raw/clicks/dt=1/part-0.parquet.crc", 10L).reason())
        .isEqualTo("checksum file (.crc)");
  }

  @Test
  void committedMarkersAreIgnored() {
    assertThat(ignored("raw/clicks/dt=1/_committed_123", 10L).reason())
        .isEqualTo("commit marker (_committed_*)");
  }

  @Test
  void startedMarkersAreIgnored() {
    assertThat(ignored("raw/clicks/dt=1/_started_123", 0L).reason())
        .isEqualTo("commit marker (_started_*)");
  }

  @Test
  void folderPlaceholdersAreIgnored() {
    Ignored ignored = ignored("raw/clicks/dt=1/", 0L);

    assertThat(ignored.reason()).isEqualTo("folder placeholder (name ends with /)");
    assertThat(ignored.profile()).contains(clicks);
  }

  @Test
  void zeroByteDataFilesAreIgnored() {
    Ignored ignored = ignored("raw/clicks/dt=1/part-0.parquet", 0L);

    assertThat(ignored.reason()).isEqualTo("zero-byte file that is not a success marker");
    assertThat(ignored.profile()).contains(clicks);
  }

  @Test
  void hiddenFilesAreIgnored() {
    assertThat(ignored("raw/clicks/dt=1/_metadata", 10L).reason())
        .isEqualTo("hidden file (name starts with _ or .)");
    assertThat(ignored("raw/clicks/dt=1/.DS_Store", 10L).reason())
        .isEqualTo("hidden file (name starts with _ or .)");
  }

  @Test
  void hiddenFoldersDoNotHideTheirFiles() {
    assertThat(matcher.match("landing", "raw/clicks/.dt=1/part-0.parquet", 1L, 10L))
        .isInstanceOf(DataFile.class);
  }

  @Test
  void objectInAnotherBucketMatchesNoProfile() {
    assertThat(matcher.match("elsewhere", "raw/clicks/dt=1/part-0.parquet", 1L, 10L))
        .isEqualTo(
            new Ignored(
                ObjectLocation.gs("elsewhere", "raw/clicks/dt=1/part-0.parquet"),
                "matches no table profile",
                Optional.empty()));
  }

  @Test
  void objectOutsideTheGlobMatchesNoProfile() {
    assertThat(ignored("raw/views/dt=1/part-0.parquet", 10L))
        .isEqualTo(
            new Ignored(
                ObjectLocation.gs("landing", "raw/views/dt=1/part-0.parquet"),
                "matches no table profile",
                Optional.empty()));
  }
}
