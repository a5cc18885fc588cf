package io.files2iceberg.batcher.plan;

import com.google.api.gax.paging.Page;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.Storage;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.match.Glob;
import io.files2iceberg.core.match.ObjectLocation;
import io.files2iceberg.core.match.ObjectMatch;
import io.files2iceberg.core.match.ObjectMatcher;
import io.files2iceberg.core.profile.TableProfile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Every data file of a profile, listed from storage: the input of mode {@code full} and of
 * backfills ({@code save-checkpoint = false}), the only paths that list a bucket.
 *
 * <p>Objects are classified by {@link ObjectMatcher} exactly as notifications are (markers,
 * temporaries, hidden and zero-byte files are not data); with {@code success-file-filter} on, only
 * partitions whose marker is present are listed. Identity follows the listener: a GCS object is its
 * bucket, name and generation; a local file is the empty bucket, its absolute path without the
 * leading {@code /}, and its last-modified time in microseconds as the generation. Files come out
 * ordered by partition, then URI, then generation.
 */
final class StorageListing {
  /** The event id of a listed file: it came from no notification. */
  static final String LISTING_EVENT = "listing";

  private final Supplier<Storage> storage;

  StorageListing(Supplier<Storage> storage) {
    this.storage = storage;
  }

  List<ManifestFile> list(TableProfile profile) {
    Glob glob = Glob.parse(profile.extract().path());
    ObjectMatcher matcher = new ObjectMatcher(List.of(profile));
    List<Listed> objects = glob.scheme().equals(ObjectLocation.GS) ? listGcs(glob) : listLocal(glob);
    List<Listed> data = new ArrayList<>();
    List<String> tokens = new ArrayList<>();
    Set<String> marked = new HashSet<>();
    for (Listed object : objects) {
      ObjectMatch match = matcher.match(object.location(), object.generation(), object.size());
      if (match instanceof ObjectMatch.DataFile file) {
        data.add(object);
        tokens.add(file.partition().token());
      } else if (match instanceof ObjectMatch.SuccessMarker marker) {
        marked.add(marker.partition().token());
      } else if (match instanceof ObjectMatch.Rejected rejected) {
        throw new IllegalStateException("Listing " + profile.extract().path() + ": " + rejected.reason());
      }
    }
    boolean markersRequired = profile.extract().batchFile().successFileFilter();
    List<ManifestFile> files = new ArrayList<>();
    for (int i = 0; i < data.size(); i++) {
      Listed object = data.get(i);
      String token = tokens.get(i);
      if (markersRequired && !marked.contains(token)) {
        continue; // the partition is not complete yet
      }
      files.add(new ManifestFile(
          LedgerSchema.fileId(object.location().bucket(), object.location().name(), object.generation()),
          object.location().uri(),
          token,
          object.generation(),
          object.size(),
          LISTING_EVENT,
          object.updated()));
    }
    files.sort(Comparator.comparing(ManifestFile::partition)
        .thenComparing(ManifestFile::uri)
        .thenComparingLong(ManifestFile::generation));
    return files;
  }

  private List<Listed> listGcs(Glob glob) {
    List<Listed> objects = new ArrayList<>();
    Page<Blob> page = storage.get().list(glob.bucket(), Storage.BlobListOption.prefix(glob.fixedPrefix()));
    for (Blob blob : page.iterateAll()) {
      if (blob.getGeneration() == null) {
        continue;
      }
      Instant updated = blob.getUpdateTimeOffsetDateTime() != null
          ? blob.getUpdateTimeOffsetDateTime().toInstant()
          : Instant.EPOCH;
      objects.add(new Listed(ObjectLocation.gs(glob.bucket(), blob.getName()), blob.getGeneration(),
          blob.getSize() == null ? 0 : blob.getSize(), updated));
    }
    return objects;
  }

  private static List<Listed> listLocal(Glob glob) {
    String prefix = glob.fixedPrefix();
    Path root = Path.of("/" + prefix.substring(0, prefix.lastIndexOf('/') + 1));
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    List<Listed> objects = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path path : (Iterable<Path>) walk::iterator) {
        BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
        if (!attributes.isRegularFile()) {
          continue;
        }
        objects.add(new Listed(ObjectLocation.file(path), attributes.lastModifiedTime().to(TimeUnit.MICROSECONDS),
            attributes.size(), attributes.lastModifiedTime().toInstant()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list " + root, e);
    }
    return objects;
  }

  private record Listed(ObjectLocation location, long generation, long size, Instant updated) {}
}
