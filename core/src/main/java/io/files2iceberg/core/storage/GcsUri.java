package io.files2iceberg.core.storage;

import java.util.Objects;

/**
 * A {@code gs://bucket/path} URI split once: the bucket, and the object name or folder prefix
 * exactly as written (no decoding, no normalising: GCS names are bytes, {@code a//b} included).
 *
 * @param bucket the bucket, never empty
 * @param path the object name or folder prefix, possibly empty (the bucket's root)
 */
public record GcsUri(String bucket, String path) {
  private static final String SCHEME = "gs://";

  public GcsUri {
    Objects.requireNonNull(bucket, "bucket");
    Objects.requireNonNull(path, "path");
    if (bucket.isEmpty() || bucket.contains("/")) {
      throw new IllegalArgumentException("not a bucket name: \"" + bucket + "\"");
    }
  }

  /** Whether {@code uri} is a {@code gs://} URI (the scheme is lower case, as GCS writes it). */
  public static boolean is(String uri) {
    return uri.startsWith(SCHEME);
  }

  /**
   * Splits {@code gs://bucket[/path]}.
   *
   * @throws IllegalArgumentException naming the URI when it is not {@code gs://} or has no bucket
   */
  public static GcsUri parse(String uri) {
    Objects.requireNonNull(uri, "uri");
    if (!is(uri)) {
      throw new IllegalArgumentException("\"" + uri + "\" is not a gs://bucket/path URI");
    }
    String rest = uri.substring(SCHEME.length());
    int slash = rest.indexOf('/');
    String bucket = slash < 0 ? rest : rest.substring(0, slash);
    if (bucket.isEmpty()) {
      throw new IllegalArgumentException("\"" + uri + "\" is not a gs://bucket/path URI: no bucket");
    }
    return new GcsUri(bucket, slash < 0 ? "" : rest.substring(slash + 1));
  }

  /** {@link #parse} for a folder: its path ends with {@code /}, or is empty for the bucket's root. */
  public static GcsUri folder(String uri) {
    GcsUri parsed = parse(uri);
    return parsed.path.isEmpty() || parsed.path.endsWith("/") ? parsed : new GcsUri(parsed.bucket, parsed.path + "/");
  }

  /** The object {@code name} inside this folder, with one {@code /} between them. */
  public GcsUri resolve(String name) {
    return new GcsUri(bucket, path.isEmpty() || path.endsWith("/") ? path + name : path + "/" + name);
  }

  /** {@code gs://bucket/path}. */
  @Override
  public String toString() {
    return SCHEME + bucket + "/" + path;
  }
}
