package io.files2iceberg.listener.handle;

import io.files2iceberg.core.match.ObjectLocation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Lists one local folder (with its subfolders when asked), for {@code file://} profiles (the embedded mode). A local file's
 * generation is its last-modified time in microseconds, as the embedded notifier sends it.
 */
final class LocalFolderListing implements ObjectListing {

  @Override
  public List<ListedObject> listFolderOf(ObjectLocation object, boolean subfolders) {
    Path folder = Path.of("/" + object.name()).getParent();
    List<ListedObject> listed = new ArrayList<>();
    try (Stream<Path> entries = subfolders ? Files.walk(folder) : Files.list(folder)) {
      for (Path path : (Iterable<Path>) entries.sorted()::iterator) {
        BasicFileAttributes attributes;
        try {
          attributes = Files.readAttributes(path, BasicFileAttributes.class);
        } catch (NoSuchFileException gone) {
          continue;
        }
        if (!attributes.isRegularFile()) {
          continue;
        }
        listed.add(
            new ListedObject(
                ObjectLocation.file(path),
                generationOf(attributes),
                attributes.size(),
                Optional.of(attributes.lastModifiedTime().toInstant())));
      }
    } catch (NoSuchFileException e) {
      throw new ListingFailedException("listing " + object.folderUri() + " failed: no such folder", false, e);
    } catch (IOException | UncheckedIOException e) {
      throw new ListingFailedException("listing " + object.folderUri() + " failed: " + e.getMessage(), true, e);
    }
    return listed;
  }

  /** The generation of a local file: its last-modified time in microseconds. */
  static long generationOf(BasicFileAttributes attributes) {
    return ObjectLocation.localGeneration(attributes);
  }
}
