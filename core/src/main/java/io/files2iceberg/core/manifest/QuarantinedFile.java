package io.files2iceberg.core.manifest;

import java.util.Objects;

/** Fact: a file of the batch could not be read; it is left out, with the reason. */
public record QuarantinedFile(String fileId, String uri, String reason) {
  public QuarantinedFile {
    Objects.requireNonNull(fileId, "fileId");
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(reason, "reason");
  }
}
