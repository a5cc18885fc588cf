package io.files2iceberg.core.manifest;

/** A manifest that cannot be read; the message names where it came from and the field at fault. */
public class InvalidManifestException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public InvalidManifestException(String message) {
    super(message);
  }

  public InvalidManifestException(String message, Throwable cause) {
    super(message, cause);
  }
}
