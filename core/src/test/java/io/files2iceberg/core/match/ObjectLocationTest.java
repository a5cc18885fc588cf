package io.files2iceberg.core.match;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ObjectLocationTest {

  @Test
  void gsUriSplitsIntoBucketAndName() {
    ObjectLocation location = ObjectLocation.parse("gs://landing/raw/clicks/dt=1/a.csv");

    assertThat(location).isEqualTo(new ObjectLocation("gs", "landing", "raw/clicks/dt=1/a.csv"));
    assertThat(location.uri()).isEqualTo("gs://landing/raw/clicks/dt=1/a.csv");
    assertThat(location.fileName()).isEqualTo("a.csv");
    assertThat(location.folder()).isEqualTo("raw/clicks/dt=1");
    assertThat(location.folderUri()).isEqualTo("gs://landing/raw/clicks/dt=1/");
  }

  @Test
  void fileUriHasAnEmptyBucketAndTheAbsolutePathWithoutItsSlashAsName() {
    ObjectLocation location = ObjectLocation.parse("file:///data/landing/x.parquet");

    assertThat(location).isEqualTo(new ObjectLocation("file", "", "data/landing/x.parquet"));
    assertThat(location.uri()).isEqualTo("file:///data/landing/x.parquet");
    assertThat(location.folderUri()).isEqualTo("file:///data/landing/");
  }

  @Test
  void singleSlashAndLocalhostFileUrisAreTheSameFile() {
    ObjectLocation expected = new ObjectLocation("file", "", "data/x.parquet");

    assertThat(ObjectLocation.parse("file:/data/x.parquet")).isEqualTo(expected);
    assertThat(ObjectLocation.parse("file://localhost/data/x.parquet")).isEqualTo(expected);
  }

  @Test
  void fileFromPathRoundTripsThroughItsUri() {
    Path path = Path.of("/data/landing/x.parquet");

    ObjectLocation location = ObjectLocation.file(path);

    assertThat(location.uri()).isEqualTo(path.toUri().toString());
  }

  @Test
  void objectAtTheRootHasAnEmptyFolder() {
    ObjectLocation location = ObjectLocation.gs("landing", "a.csv");

    assertThat(location.folder()).isEmpty();
    assertThat(location.folderUri()).isEqualTo("gs://landing/");
  }

  @Test
  void folderPlaceholderHasAnEmptyFileName() {
    ObjectLocation location = ObjectLocation.gs("landing", "raw/clicks/");

    assertThat(location.fileName()).isEmpty();
    assertThat(location.folder()).isEqualTo("raw/clicks");
  }

  @Test
  void fileUriWithAHostIsRejected() {
    assertThatThrownBy(() -> ObjectLocation.parse("file://data/x.parquet"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "\"file://data/x.parquet\" names a host; local files are written"
                + " file:///absolute/path");
  }

  @Test
  void gsUriWithoutObjectNameIsRejected() {
    assertThatThrownBy(() -> ObjectLocation.parse("gs://landing/"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("\"gs://landing/\" is not a gs://bucket/name URI: bucket or object name missing");
  }

  @Test
  void unknownSchemeIsRejected() {
    assertThatThrownBy(() -> new ObjectLocation("s3", "landing", "a.csv"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unsupported scheme \"s3\": expected gs or file");
  }
}
