package io.files2iceberg.batcher.quarantine;

import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import io.files2iceberg.batcher.engine.StorageListing.Listed;
import io.files2iceberg.core.match.ObjectLocation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Single objects and single folders as storage holds them now, for releasing a quarantined
 * message; with the identity {@link Listed} gives them, as the listings do.
 */
final class StoredObjects {
  private StoredObjects() {}

  /**
   * A Cloud Storage failure in words: the HTTP status and message, or for code 0 (no answer: the
   * client reports DNS, connection and timeout failures so) the I/O error behind it, such as "cannot
   * resolve storage.googleapis.com" where the client's own message is only the host name.
   */
  static String describe(StorageException e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof UnknownHostException) {
        return "cannot resolve " + cause.getMessage() + " (no network or DNS?)";
      }
    }
    if (e.getCode() == 0) {
      Throwable root = e;
      while (root.getCause() != null) {
        root = root.getCause();
      }
      return "no answer (" + root + ")";
    }
    return "HTTP " + e.getCode() + " " + e.getMessage();
  }

  /** The object now, or empty when storage no longer holds it. */
  static Optional<Listed> lookUp(ObjectLocation location, Supplier<Storage> storage) {
    if (location.scheme().equals(ObjectLocation.GS)) {
      Blob blob = storage.get().get(BlobId.of(location.bucket(), location.name()));
      return blob == null || blob.getGeneration() == null ? Optional.empty() : Optional.of(Listed.of(location, blob));
    }
    try {
      BasicFileAttributes attributes =
          Files.readAttributes(Path.of("/" + location.name()), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      return attributes.isRegularFile() ? Optional.of(Listed.of(location, attributes)) : Optional.empty();
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + location.uri(), e);
    }
  }

  /**
   * The objects in the folder holding {@code location} (a marker's partition folder): directly in
   * it, or with {@code subfolders} (a profile with {@code recursive-file-lookup}) at any depth.
   */
  static List<Listed> listFolderOf(ObjectLocation location, boolean subfolders, Supplier<Storage> storage) {
    List<Listed> objects = new ArrayList<>();
    if (location.scheme().equals(ObjectLocation.GS)) {
      String prefix = location.folder().isEmpty() ? "" : location.folder() + "/";
      Storage.BlobListOption[] options = subfolders
          ? new Storage.BlobListOption[] {Storage.BlobListOption.prefix(prefix)}
          : new Storage.BlobListOption[] {Storage.BlobListOption.prefix(prefix),
              Storage.BlobListOption.currentDirectory()};
      for (Blob blob : storage.get().list(location.bucket(), options).iterateAll()) {
        if (blob.getGeneration() != null && !blob.isDirectory()) {
          objects.add(Listed.of(ObjectLocation.gs(location.bucket(), blob.getName()), blob));
        }
      }
      return objects;
    }
    Path root = Path.of("/" + location.folder());
    try (Stream<Path> folder = subfolders ? Files.walk(root) : Files.list(root)) {
      for (Path path : (Iterable<Path>) folder::iterator) {
        BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
        if (attributes.isRegularFile()) {
          objects.add(Listed.of(ObjectLocation.file(path), attributes));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list " + location.folderUri(), e);
    }
    return objects;
  }
}
