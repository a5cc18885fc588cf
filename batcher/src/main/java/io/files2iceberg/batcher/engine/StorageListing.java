package io.files2iceberg.batcher.engine;

import com.google.api.gax.paging.Page;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.Storage;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.match.Glob;
import io.files2iceberg.core.match.ObjectLocation;
import io.files2iceberg.core.match.ObjectMatch;
import io.files2iceberg.core.match.ObjectMatcher;
import io.files2iceberg.core.match.PartitionRef;
import io.files2iceberg.core.profile.TableProfile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A profile's objects, listed from storage: the input of mode {@code full}, of backfills ({@code
 * save-checkpoint = false}) and of the operator commands ({@code replay}, {@code backfill}, {@code
 * reconcile}), the only paths that list a bucket.
 *
 * <p>Objects are classified by {@link ObjectMatcher} exactly as notifications are (markers,
 * temporaries, hidden and zero-byte files are not data). A file that misses the pattern is a
 * rejection with {@code strict-pattern = true} (mode {@code full} then fails the run, naming it)
 * and is left out with a warning otherwise. Identity follows the listener: a GCS object
 * is its bucket, name and generation; a local file is the empty bucket, its absolute path without
 * the leading {@code /}, and its last-modified time in microseconds as the generation.
 *
 * <p>Listing is by folder prefix: the whole profile lists the glob's fixed prefix; a partition lists
 * its folder alone; {@link #partitionFolders} enumerates the partition folders with delimiter
 * listings (GCS {@code currentDirectory()}), which return folder names, not objects. {@link
 * #listCalls()} counts the calls made (a GCS page, a local folder read), for reports.
 */
public final class StorageListing {
  private static final Logger LOG = LoggerFactory.getLogger(StorageListing.class);
  /** The event id of a file listed for mode full or a backfill: it came from no notification. */
  static final String LISTING_EVENT = "listing";

  private final Supplier<Storage> storage;
  private final AtomicInteger listCalls = new AtomicInteger();

  /** @param storage the GCS client, asked for on the first {@code gs://} listing only */
  public StorageListing(Supplier<Storage> storage) {
    this.storage = storage;
  }

  /**
   * The live generation of one object ({@code gs://} metadata GET, or a local file's {@link
   * ObjectLocation#localGeneration}); empty when there is none. Not a list call.
   */
  public java.util.OptionalLong generationOf(String uri) {
    ObjectLocation location = ObjectLocation.parse(uri);
    if (location.scheme().equals(ObjectLocation.FILE)) {
      try {
        return java.util.OptionalLong.of(ObjectLocation.localGeneration(
            Files.readAttributes(Path.of("/" + location.name()), BasicFileAttributes.class)));
      } catch (java.nio.file.NoSuchFileException e) {
        return java.util.OptionalLong.empty();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    Blob blob = storage.get().get(com.google.cloud.storage.BlobId.of(location.bucket(), location.name()));
    return blob == null || blob.getGeneration() == null ? java.util.OptionalLong.empty()
        : java.util.OptionalLong.of(blob.getGeneration());
  }

  /** List calls made so far: GCS pages, local folder reads. */
  public int listCalls() {
    return listCalls.get();
  }

  /**
   * Every data file of the profile, ordered by partition, then URI, then generation; with {@code
   * success-file-filter} on, only those of partitions whose marker is present.
   */
  List<ManifestFile> list(TableProfile profile) {
    Glob glob = Glob.parse(profile.extract().path());
    Scan scan = scan(profile, List.of(glob.fixedPrefix()));
    if (!scan.rejected().isEmpty()) {
      throw new IllegalStateException("Listing " + profile.extract().path() + ": " + scan.rejected().get(0));
    }
    return scan.complete(profile).stream().map(found -> found.manifestFile(LISTING_EVENT)).toList();
  }

  /**
   * The objects under the given name prefixes (GCS object-name prefixes; for local folders, the
   * absolute path without the leading {@code /}), classified; prefixes are listed one by one.
   */
  public Scan scan(TableProfile profile, List<String> prefixes) {
    Glob glob = Glob.parse(profile.extract().path());
    ObjectMatcher matcher = new ObjectMatcher(List.of(profile));
    List<Found> data = new ArrayList<>();
    Map<String, PartitionRef> markers = new LinkedHashMap<>();
    List<String> rejected = new ArrayList<>();
    for (String prefix : prefixes) {
      List<Listed> objects = glob.scheme().equals(ObjectLocation.GS) ? listGcs(glob, prefix) : listLocal(prefix);
      for (Listed object : objects) {
        ObjectMatch match = matcher.match(object.location(), object.generation(), object.size());
        if (match instanceof ObjectMatch.DataFile file) {
          data.add(new Found(object, file.partition()));
        } else if (match instanceof ObjectMatch.SuccessMarker marker) {
          markers.put(marker.partition().token(), marker.partition());
        } else if (match instanceof ObjectMatch.Rejected r) {
          if (r.kind() == ObjectMatch.Rejected.Kind.PATTERN_MISMATCH && !r.stopsTheTable()) {
            // strict-pattern off: a listing has no message to quarantine; warn and leave it out.
            LOG.warn("Listing {}: left out {}", profile.extract().path(), r.reason());
          } else {
            rejected.add(r.reason());
          }
        }
      }
    }
    data.sort(Comparator.comparing((Found f) -> f.partition().token())
        .thenComparing(f -> f.object().location().uri())
        .thenComparingLong(f -> f.object().generation()));
    return new Scan(List.copyOf(data), Map.copyOf(markers), List.copyOf(rejected));
  }

  /**
   * The profile's partition folders (the folders whose objects can match its glob), found with
   * delimiter listings from the glob's fixed prefix down, ordered by name.
   */
  public List<PartitionFolder> partitionFolders(TableProfile profile) {
    Glob glob = Glob.parse(profile.extract().path());
    ObjectMatcher matcher = new ObjectMatcher(List.of(profile));
    String start = glob.fixedPrefix();
    String startFolder = start.substring(0, start.lastIndexOf('/') + 1);
    List<String> folders = new ArrayList<>();
    if (glob.matchesFolder(startFolder)) {
      folders.add(startFolder);
    } else {
      Deque<String> todo = new ArrayDeque<>(List.of(start));
      while (!todo.isEmpty()) {
        String prefix = todo.pop();
        for (String folder : subfolders(glob, prefix)) {
          if (glob.matchesFolder(folder)) {
            folders.add(folder);
          } else {
            todo.push(folder);
          }
        }
      }
    }
    String marker = profile.extract().batchFile().successFileName();
    return folders.stream().sorted().map(folder -> {
      ObjectLocation probe = new ObjectLocation(glob.scheme(), glob.bucket(), folder + marker);
      // The token a marker in the folder would have: known without listing the folder's objects.
      Optional<String> token = matcher.match(probe, 0, 0) instanceof ObjectMatch.SuccessMarker m
          ? Optional.of(m.partition().token()) : Optional.empty();
      return new PartitionFolder(folder, new ObjectLocation(glob.scheme(), glob.bucket(), folder).uri(), token);
    }).toList();
  }

  /** The object-name prefix of a folder URI ({@code gs://b/raw/dt=1/} or {@code file:///x/dt=1/}). */
  public static String namePrefix(String folderUri) {
    ObjectLocation folder = ObjectLocation.parse(folderUri.endsWith("/") ? folderUri + "x" : folderUri + "/x");
    return folder.folder().isEmpty() ? "" : folder.folder() + "/";
  }

  private List<String> subfolders(Glob glob, String prefix) {
    List<String> folders = new ArrayList<>();
    if (glob.scheme().equals(ObjectLocation.GS)) {
      Page<Blob> page = storage.get().list(glob.bucket(), Storage.BlobListOption.prefix(prefix),
          Storage.BlobListOption.currentDirectory());
      while (page != null) {
        listCalls.incrementAndGet();
        for (Blob blob : page.getValues()) {
          if (blob.isDirectory()) {
            folders.add(blob.getName());
          }
        }
        page = page.hasNextPage() ? page.getNextPage() : null;
      }
      return folders;
    }
    Path dir = Path.of("/" + prefix.substring(0, prefix.lastIndexOf('/') + 1));
    if (!Files.isDirectory(dir)) {
      return folders;
    }
    listCalls.incrementAndGet();
    try (Stream<Path> children = Files.list(dir)) {
      children.filter(Files::isDirectory)
          .map(child -> ObjectLocation.file(child).name() + "/")
          .filter(name -> name.startsWith(prefix))
          .forEach(folders::add);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list " + dir, e);
    }
    return folders;
  }

  private List<Listed> listGcs(Glob glob, String prefix) {
    List<Listed> objects = new ArrayList<>();
    Page<Blob> page = storage.get().list(glob.bucket(), Storage.BlobListOption.prefix(prefix));
    while (page != null) {
      listCalls.incrementAndGet();
      for (Blob blob : page.getValues()) {
        if (blob.getGeneration() == null) {
          continue;
        }
        objects.add(Listed.of(ObjectLocation.gs(glob.bucket(), blob.getName()), blob));
      }
      page = page.hasNextPage() ? page.getNextPage() : null;
    }
    return objects;
  }

  private List<Listed> listLocal(String prefix) {
    Path root = Path.of("/" + prefix.substring(0, prefix.lastIndexOf('/') + 1));
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    List<Listed> objects = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path path : (Iterable<Path>) walk::iterator) {
        BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
        if (attributes.isDirectory()) {
          listCalls.incrementAndGet();
          continue;
        }
        if (!attributes.isRegularFile()) {
          continue;
        }
        ObjectLocation location = ObjectLocation.file(path);
        if (location.name().startsWith(prefix)) {
          objects.add(Listed.of(location, attributes));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list " + root, e);
    }
    return objects;
  }

  /**
   * One object as storage holds it, with the identity the listener gives it: a GCS object is its
   * bucket, name and generation; a local file is the empty bucket, its absolute path without the
   * leading {@code /}, and {@link ObjectLocation#localGeneration} as the generation.
   *
   * @param updated when it was last written: the event time of a file recorded from storage
   */
  public record Listed(ObjectLocation location, long generation, long size, Instant updated) {

    /** A GCS object (its generation must be known). */
    public static Listed of(ObjectLocation location, Blob blob) {
      Instant updated = blob.getUpdateTimeOffsetDateTime() != null
          ? blob.getUpdateTimeOffsetDateTime().toInstant()
          : Instant.EPOCH;
      return new Listed(location, blob.getGeneration(), blob.getSize() == null ? 0 : blob.getSize(), updated);
    }

    /** A local file. */
    public static Listed of(ObjectLocation location, BasicFileAttributes attributes) {
      return new Listed(location, ObjectLocation.localGeneration(attributes), attributes.size(),
          attributes.lastModifiedTime().toInstant());
    }

    /**
     * The ledger record of this object as a data file of the partition, recorded from storage
     * (no notification): {@code eventId} says which command recorded it, the event time is its
     * last update.
     */
    public RecordFile toRecordFile(String table, String partition, String eventId, boolean readyOnArrival) {
      return RecordFile.of(table, partition, location, generation, size, eventId, updated, Optional.empty(),
          readyOnArrival);
    }
  }

  /** A listed data file and its partition. */
  public record Found(Listed object, PartitionRef partition) {
    /** The file as a batch manifest lists it. */
    public ManifestFile manifestFile(String eventId) {
      ObjectLocation location = object.location();
      return new ManifestFile(LedgerSchema.fileId(location.bucket(), location.name(), object.generation()),
          location.uri(), partition.token(), object.generation(), object.size(), eventId, object.updated());
    }

    public String fileId() {
      return LedgerSchema.fileId(object.location().bucket(), object.location().name(), object.generation());
    }
  }

  /**
   * What a listing found: data files (by partition, then URI, then generation), the partitions
   * whose success marker is present (by token), and the data files the matcher rejects (why).
   */
  public record Scan(List<Found> data, Map<String, PartitionRef> markers, List<String> rejected) {
    /** The data files of complete partitions: all of them, or with the success filter on, marked ones. */
    public List<Found> complete(TableProfile profile) {
      boolean markersRequired = profile.extract().batchFile().successFileFilter();
      return data.stream().filter(f -> !markersRequired || markers.containsKey(f.partition().token())).toList();
    }
  }

  /**
   * A partition folder: its object-name prefix, its URI, and its token when known without listing it
   * (through where its success marker would be; unknown with the success filter off).
   */
  public record PartitionFolder(String prefix, String uri, Optional<String> token) {}
}
