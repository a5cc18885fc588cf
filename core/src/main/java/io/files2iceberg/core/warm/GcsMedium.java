package io.files2iceberg.core.warm;

import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import io.files2iceberg.core.storage.GcsUri;
import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A warm driver's folder on Cloud Storage, where an object can be neither renamed atomically nor
 * locked: every write is one object put (a reader sees all of it or nothing), and the holder and
 * the taker of a request rely on generation preconditions instead.
 */
public final class GcsMedium implements FolderMedium {
  private static final String JSON = "application/json";

  private final Storage storage;
  private final String bucket;
  private final String prefix;

  /** @param folder {@code gs://<bucket>/<prefix>}, with or without its final {@code /} */
  public GcsMedium(Storage storage, String folder) {
    this.storage = Objects.requireNonNull(storage, "storage");
    GcsUri parsed = GcsUri.folder(folder);
    this.bucket = parsed.bucket();
    this.prefix = parsed.path();
  }

  /** {@code gs://<bucket>/<prefix>/}, as the driver is given it. */
  @Override
  public String location() {
    return new GcsUri(bucket, prefix).toString();
  }

  /** Two object listings per look, twice a second while the driver is busy. */
  @Override
  public Duration poll() {
    return Duration.ofMillis(500);
  }

  /**
   * An idle driver looks every 5 s (its heartbeat's interval): about 1,400 listings an hour
   * instead of 14,400, and a batch handed to it waits at most 4.5 s more.
   */
  @Override
  public Duration idlePoll() {
    return Duration.ofSeconds(5);
  }

  /** Always: a bucket has no folder to delete. */
  @Override
  public boolean exists() {
    return true;
  }

  @Override
  public void createFolders(List<String> folders) {}

  @Override
  public boolean has(String entry) throws IOException {
    BlobId id = object(entry);
    try {
      return storage.get(id) != null;
    } catch (StorageException e) {
      throw new IOException("cannot read " + uri(id) + ": " + e.getMessage(), e);
    }
  }

  /** The content of the generation the metadata was read at. */
  @Override
  public Optional<Stored> read(String entry) throws IOException {
    BlobId id = object(entry);
    try {
      Blob blob = storage.get(id);
      if (blob == null) {
        return Optional.empty();
      }
      return Optional.of(new Stored(storage.readAllBytes(blob.getBlobId()), blob.getGeneration()));
    } catch (StorageException e) {
      if (e.getCode() == 404) {
        return Optional.empty(); // that generation is gone since
      }
      throw new IOException("cannot read " + uri(id) + ": " + e.getMessage(), e);
    }
  }

  /** One put; a JSON document is typed as one, an empty marker is not. */
  @Override
  public void put(String entry, byte[] content) throws IOException {
    BlobId id = object(entry);
    BlobInfo.Builder info = BlobInfo.newBuilder(id);
    if (content.length > 0) {
      info.setContentType(JSON);
    }
    try {
      storage.create(info.build(), content);
    } catch (StorageException e) {
      throw new IOException("cannot write " + uri(id) + ": " + e.getMessage(), e);
    }
  }

  @Override
  public boolean delete(String entry) throws IOException {
    BlobId id = object(entry);
    try {
      return storage.delete(id);
    } catch (StorageException e) {
      throw new IOException("cannot delete " + uri(id) + ": " + e.getMessage(), e);
    }
  }

  /** The objects directly under {@code <prefix><folder>/}, not under a deeper one. */
  @Override
  public List<Listed> list(String folder) throws IOException {
    String under = prefix + folder + "/";
    List<Listed> found = new ArrayList<>();
    try {
      for (Blob blob : storage.list(bucket, Storage.BlobListOption.prefix(under)).iterateAll()) {
        if (blob.getName().length() > under.length() && blob.getName().indexOf('/', under.length()) < 0) {
          found.add(new Listed(blob.getName().substring(under.length()), created(blob)));
        }
      }
    } catch (StorageException e) {
      throw new IOException("cannot list " + location() + folder + "/: " + e.getMessage(), e);
    }
    return found;
  }

  private static Instant created(Blob blob) {
    OffsetDateTime created = blob.getCreateTimeOffsetDateTime();
    return created == null ? Instant.MIN : created.toInstant();
  }

  @Override
  public boolean renames() {
    return false;
  }

  @Override
  public boolean move(String from, String to) {
    throw new UnsupportedOperationException("Cloud Storage cannot rename an object atomically: " + location());
  }

  @Override
  public Optional<Closeable> lock(String entry) {
    throw new UnsupportedOperationException("Cloud Storage has no locks: " + location());
  }

  @Override
  public Optional<Long> createIfAbsent(String entry, byte[] content) {
    try {
      Blob blob = storage.create(BlobInfo.newBuilder(object(entry)).setContentType(JSON).build(), content,
          Storage.BlobTargetOption.doesNotExist());
      return Optional.of(blob.getGeneration());
    } catch (StorageException e) {
      return Optional.empty();
    }
  }

  @Override
  public Optional<Long> replaceAt(String entry, long generation, byte[] content) {
    try {
      Blob blob = storage.create(BlobInfo.newBuilder(BlobId.of(bucket, prefix + entry, generation)).setContentType(JSON)
          .build(), content, Storage.BlobTargetOption.generationMatch());
      return Optional.of(blob.getGeneration());
    } catch (StorageException e) {
      return Optional.empty();
    }
  }

  private BlobId object(String entry) {
    return BlobId.of(bucket, prefix + entry);
  }

  private static String uri(BlobId id) {
    return new GcsUri(id.getBucket(), id.getName()).toString();
  }

  @Override
  public String toString() {
    return location();
  }
}
