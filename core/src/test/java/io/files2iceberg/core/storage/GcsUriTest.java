package io.files2iceberg.core.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class GcsUriTest {

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "gs://b/raw/x.parquet | b | raw/x.parquet",
      "gs://b/ | b | ''",
      "gs://b | b | ''",
      "gs://b/a b/c[1].json | b | a b/c[1].json",
      "gs://b//double | b | /double",
  })
  void splitsBucketAndPathAsWritten(String uri, String bucket, String path) {
    GcsUri parsed = GcsUri.parse(uri);

    assertThat(parsed.bucket()).isEqualTo(bucket);
    assertThat(parsed.path()).isEqualTo(path);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "gs://b | batches/1.json | gs://b/batches/1.json",
      "gs://b/ | batches/1.json | gs://b/batches/1.json",
      "gs://b/meta | batches/1.json | gs://b/meta/batches/1.json",
      "gs://b/meta/ | batches/1.json | gs://b/meta/batches/1.json",
  })
  void resolvesANameInsideAFolderWithOneSlash(String folder, String name, String expected) {
    assertThat(GcsUri.parse(folder).resolve(name).toString()).isEqualTo(expected);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "gs://b | ''",
      "gs://b/ | ''",
      "gs://b/warm | warm/",
      "gs://b/warm/ | warm/",
  })
  void aFolderEndsWithASlashUnlessItIsTheBucket(String uri, String prefix) {
    GcsUri folder = GcsUri.folder(uri);

    assertThat(folder.path()).isEqualTo(prefix);
    assertThat(folder.toString()).isEqualTo("gs://b/" + prefix);
  }

  @ParameterizedTest
  @ValueSource(strings = {"gs://", "gs:///x", "file:///tmp/x", "/tmp/x", "GS://b/x", "s3://b/x"})
  void anythingElseIsRefusedNamingIt(String uri) {
    assertThatThrownBy(() -> GcsUri.parse(uri))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"" + uri + "\"");
    assertThat(GcsUri.is(uri)).isEqualTo(uri.startsWith("gs://"));
  }
}
