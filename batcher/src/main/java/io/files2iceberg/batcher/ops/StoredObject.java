package io.files2iceberg.batcher.ops;

import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.Storage;
import io.files2iceberg.core.match.ObjectLocation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * One object as storage holds it now, with the identity the listener gives it: a GCS object is its
 * bucket, name and generation; a local file is the empty bucket, its absolute path without the
 * leading {@code /}, and its last-modified time in microseconds as the generation.
 *
 * @param updated when it was last written: the event time of a file recorded from storage
 */
record StoredObject(ObjectLocation location, long generation, long size, Instant updated) {

  /** The object now, or empty when storage no longer holds it. */
  static Optional<StoredObject> lookUp(ObjectLocation location, Supplier<Storage> storage) {
    if (location.scheme().equals(ObjectLocation.GS)) {
      Blob blob = storage.get().get(BlobId.of(location.bucket(), location.name()));
      return blob == null || blob.getGeneration() == null ? Optional.empty() : Optional.of(of(location, blob));
    }
    try {
      BasicFileAttributes attributes =
          Files.readAttributes(Path.of("/" + location.name()), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      return attributes.isRegularFile() ? Optional.of(of(location, attributes)) : Optional.empty();
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + location.uri(), e);
    }
  }

  /** The objects directly in the folder holding {@code location} (a marker's partition folder). */
  static List<StoredObject> listFolderOf(ObjectLocation location, Supplier<Storage> storage) {
    List<StoredObject> objects = new ArrayList<>();
    if (location.scheme().equals(ObjectLocation.GS)) {
      String prefix = location.folder().isEmpty() ? "" : location.folder() + "/";
      for (Blob blob : storage.get().list(location.bucket(), Storage.BlobListOption.prefix(prefix),
          Storage.BlobListOption.currentDirectory()).iterateAll()) {
        if (blob.getGeneration() != null && !blob.isDirectory()) {
          objects.add(of(ObjectLocation.gs(location.bucket(), blob.getName()), blob));
        }
      }
      return objects;
    }
    try (Stream<Path> folder = Files.list(Path.of("/" + location.folder()))) {
      for (Path path : (Iterable<Path>) folder::iterator) {
        BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
        if (attributes.isRegularFile()) {
          objects.add(of(ObjectLocation.file(path), attributes));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list " + location.folderUri(), e);
    }
    return objects;
  }

  private static StoredObject of(ObjectLocation location, Blob blob) {
    Instant updated = blob.getUpdateTimeOffsetDateTime() != null
        ? blob.getUpdateTimeOffsetDateTime().toInstant() : Instant.EPOCH;
    return new StoredObject(location, blob.getGeneration(), blob.getSize() == null ? 0 : blob.getSize(), updated);
  }

  private static StoredObject of(ObjectLocation location, BasicFileAttributes attributes) {
    return new StoredObject(location, ObjectLocation.localGeneration(attributes), attributes.size(),
        attributes.lastModifiedTime().toInstant());
  }
}
