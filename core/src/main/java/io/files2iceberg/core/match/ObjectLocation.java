package io.files2iceberg.core.match;

import io.files2iceberg.core.storage.GcsUri;
import java.io.File;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Where one object lives: a GCS object ({@code gs://bucket/name}) or, in the embedded mode, a local
 * file ({@code file:///absolute/path}).
 *
 * <p>A local file is modelled as an object of a nameless bucket: the scheme is {@code file}, the
 * bucket is the empty string and the name is the absolute path without its leading slash, so
 * {@code file:///data/landing/x.parquet} is {@code (file, "", "data/landing/x.parquet")}. Globs,
 * listing prefixes and partition folders then work on names in the same way for both schemes.
 *
 * <p>URIs are taken literally, as {@code gs://} URIs are: no percent-decoding and no normalisation
 * of {@code .} or {@code ..} segments.
 *
 * @param scheme {@value #GS} or {@value #FILE}
 * @param bucket the GCS bucket; empty for {@code file}
 * @param name the object name: never empty and never starting with {@code /}; a name ending with
 *     {@code /} is a folder placeholder
 */
public record ObjectLocation(String scheme, String bucket, String name) {

  public static final String GS = "gs";
  public static final String FILE = "file";

  public ObjectLocation {
    Objects.requireNonNull(scheme, "scheme");
    Objects.requireNonNull(bucket, "bucket");
    Objects.requireNonNull(name, "name");
    switch (scheme) {
      case GS -> {
        if (bucket.isEmpty() || bucket.indexOf('/') >= 0) {
          throw new IllegalArgumentException(
              "gs bucket must be non-empty and must not contain '/': \"" + bucket + "\"");
        }
      }
      case FILE -> {
        if (!bucket.isEmpty()) {
          throw new IllegalArgumentException(
              "file locations have no bucket, got \"" + bucket + "\" for name \"" + name + "\"");
        }
      }
      default -> throw new IllegalArgumentException(
          "unsupported scheme \"" + scheme + "\": expected gs or file");
    }
    if (name.isEmpty()) {
      throw new IllegalArgumentException("object name must not be empty (" + root(scheme, bucket) + ")");
    }
    if (name.startsWith("/")) {
      throw new IllegalArgumentException(
          "object name must not start with '/': \"" + name + "\" (" + root(scheme, bucket) + ")");
    }
  }

  /** A GCS object. */
  public static ObjectLocation gs(String bucket, String name) {
    return new ObjectLocation(GS, bucket, name);
  }

  /** A local file, by its absolute, normalised path. */
  public static ObjectLocation file(Path path) {
    String absolute = path.toAbsolutePath().normalize().toString().replace(File.separatorChar, '/');
    return new ObjectLocation(FILE, "", absolute.startsWith("/") ? absolute.substring(1) : absolute);
  }

  /**
   * A local file's generation, as the listener, the notifier, the listings and the operator
   * commands all count it: its last-modified time in microseconds (rewriting the file makes a new
   * generation, as on GCS).
   */
  public static long localGeneration(BasicFileAttributes attributes) {
    return attributes.lastModifiedTime().to(TimeUnit.MICROSECONDS);
  }

  /**
   * Parses {@code gs://bucket/name}, {@code file:///absolute/path} or {@code file:/absolute/path}
   * ({@code file://localhost/...} is accepted as a local file too).
   *
   * @throws IllegalArgumentException naming the URI when it is neither form
   */
  public static ObjectLocation parse(String uri) {
    Objects.requireNonNull(uri, "uri");
    if (GcsUri.is(uri)) {
      Optional<GcsUri> object;
      try {
        object = Optional.of(GcsUri.parse(uri));
      } catch (IllegalArgumentException noBucket) {
        object = Optional.empty();
      }
      if (object.isEmpty() || object.get().path().isEmpty()) {
        throw new IllegalArgumentException(
            "\"" + uri + "\" is not a gs://bucket/name URI: bucket or object name missing");
      }
      return gs(object.get().bucket(), object.get().path());
    }
    if (uri.startsWith("file:")) {
      String rest = uri.substring("file:".length());
      String path;
      if (rest.startsWith("///")) {
        path = rest.substring(3);
      } else if (rest.startsWith("//localhost/")) {
        path = rest.substring("//localhost/".length());
      } else if (rest.startsWith("//")) {
        throw new IllegalArgumentException(
            "\"" + uri + "\" names a host; local files are written file:///absolute/path");
      } else if (rest.startsWith("/")) {
        path = rest.substring(1);
      } else {
        throw new IllegalArgumentException(
            "\"" + uri + "\" is not absolute; local files are written file:///absolute/path");
      }
      if (path.isEmpty() || path.startsWith("/")) {
        throw new IllegalArgumentException(
            "\"" + uri + "\" is not a file:///absolute/path URI: path missing or starts with //");
      }
      return new ObjectLocation(FILE, "", path);
    }
    throw new IllegalArgumentException("\"" + uri + "\" is not a gs:// or file:// URI");
  }

  /** {@code gs://bucket/name} or {@code file:///name}. */
  public String uri() {
    return root(scheme, bucket) + name;
  }

  /** The last segment of the name; empty for a folder placeholder. */
  public String fileName() {
    return name.substring(name.lastIndexOf('/') + 1);
  }

  /** The name of the folder holding this object, without a trailing slash; empty at the root. */
  public String folder() {
    int slash = name.lastIndexOf('/');
    return slash < 0 ? "" : name.substring(0, slash);
  }

  /** The URI of the folder holding this object, ending with {@code /}. */
  public String folderUri() {
    String folder = folder();
    return folder.isEmpty() ? root(scheme, bucket) : root(scheme, bucket) + folder + "/";
  }

  /** Whether this object is in the bucket {@code otherBucket} of scheme {@code otherScheme}. */
  boolean isInBucketOf(String otherScheme, String otherBucket) {
    return scheme.equals(otherScheme) && bucket.equals(otherBucket);
  }

  @Override
  public String toString() {
    return uri();
  }

  private static String root(String scheme, String bucket) {
    return GS.equals(scheme) ? "gs://" + bucket + "/" : "file:///";
  }
}
