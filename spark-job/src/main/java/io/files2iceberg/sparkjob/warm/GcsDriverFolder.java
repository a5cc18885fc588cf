package io.files2iceberg.sparkjob.warm;

import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import io.files2iceberg.core.manifest.WarmDriverHeartbeat;
import io.files2iceberg.core.manifest.WarmRequest;
import io.files2iceberg.core.storage.GcsUri;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A driver folder on Cloud Storage, where an object can be neither renamed atomically nor locked:
 * the folder is held through {@code driver.json} ({@link WarmDriverHeartbeat}), created only where
 * none exists and replaced only at the generation its writer read, so that of two drivers at most
 * one holds it; a holder whose heartbeat is {@link WarmDriverHeartbeat#STALE} is dead, and the next
 * driver replaces it. A request is taken by creating {@code running/<name>} only where none exists
 * (the object holds the taker's driver id), then deleting {@code requests/<name>}: the taker runs
 * it only if that delete found the request, so a request its batcher withdrew (deleted first) is
 * never run.
 */
public final class GcsDriverFolder implements DriverFolder {
  private final Storage storage;
  private final String bucket;
  private final String prefix;
  private final Clock clock;

  /**
   * @param folder {@code gs://<bucket>/<prefix>}
   * @param clock the heartbeats' time
   */
  public GcsDriverFolder(Storage storage, String folder, Clock clock) {
    this.storage = Objects.requireNonNull(storage, "storage");
    this.clock = Objects.requireNonNull(clock, "clock");
    GcsUri parsed = GcsUri.folder(folder);
    this.bucket = parsed.bucket();
    this.prefix = parsed.path();
  }

  /** Two object listings per look: twice a second keeps them a few cents an hour. */
  @Override
  public Duration poll() {
    return Duration.ofMillis(500);
  }

  @Override
  public String location() {
    return new GcsUri(bucket, prefix).toString();
  }

  private BlobId object(String name) {
    return BlobId.of(bucket, prefix + name);
  }

  private BlobId object(String folder, String name) {
    return object(folder + "/" + name);
  }

  @Override
  public void create() {}

  /** Always: a bucket has no folder to delete. */
  @Override
  public boolean exists() {
    return true;
  }

  @Override
  public Optional<Hold> hold(String driverId, String fingerprint) throws IOException {
    BlobId id = object(WarmRequest.DRIVER_JSON);
    Blob current = get(id);
    if (current != null) {
      WarmDriverHeartbeat holder = heartbeat(current);
      if (holder != null && holder.isAlive(clock.instant()) && !holder.driverId().equals(driverId)) {
        return Optional.empty();
      }
    }
    WarmDriverHeartbeat mine = new WarmDriverHeartbeat(driverId, fingerprint, clock.instant(), true);
    Optional<Long> generation = current == null
        ? createIfAbsent(id, mine.toJson())
        : replaceAt(id, current.getGeneration(), mine.toJson());
    if (generation.isEmpty()) {
      Blob now = get(id);
      WarmDriverHeartbeat holder = now == null ? null : heartbeat(now);
      if (holder == null || !holder.driverId().equals(driverId)) {
        return Optional.empty(); // another driver wrote it first
      }
      generation = Optional.of(now.getGeneration()); // our own write, whose answer was lost
    }
    return Optional.of(new GcsHold(id, driverId, fingerprint, generation.get()));
  }

  /** The holder's {@code driver.json}, renewed at the generation it last wrote. */
  private final class GcsHold implements Hold {
    private final BlobId id;
    private final String driverId;
    private final String fingerprint;
    private long generation;

    GcsHold(BlobId id, String driverId, String fingerprint, long generation) {
      this.id = id;
      this.driverId = driverId;
      this.fingerprint = fingerprint;
      this.generation = generation;
    }

    @Override
    public synchronized boolean renew() throws IOException {
      return write(true);
    }

    @Override
    public synchronized void close() throws IOException {
      write(false);
    }

    private boolean write(boolean serving) throws IOException {
      WarmDriverHeartbeat beat = new WarmDriverHeartbeat(driverId, fingerprint, clock.instant(), serving);
      Optional<Long> written = replaceAt(id, generation, beat.toJson());
      if (written.isPresent()) {
        generation = written.get();
        return true;
      }
      Blob now = get(id);
      WarmDriverHeartbeat holder = now == null ? null : heartbeat(now);
      if (holder != null && holder.driverId().equals(driverId)) {
        generation = now.getGeneration();
        return true;
      }
      return false;
    }
  }

  @Override
  public List<String> waiting() throws IOException {
    List<Blob> found = new ArrayList<>();
    String folder = prefix + WarmRequest.REQUESTS + "/";
    try {
      for (Blob blob : storage.list(bucket, Storage.BlobListOption.prefix(folder)).iterateAll()) {
        if (blob.getName().endsWith(WarmRequest.SUFFIX) && blob.getName().indexOf('/', folder.length()) < 0) {
          found.add(blob);
        }
      }
    } catch (StorageException e) {
      throw new IOException("cannot list " + location() + WarmRequest.REQUESTS + "/: " + e.getMessage(), e);
    }
    found.sort(Comparator.comparing(GcsDriverFolder::created).thenComparing(Blob::getName));
    return found.stream().map(blob -> blob.getName().substring(folder.length())).toList();
  }

  private static OffsetDateTime created(Blob blob) {
    OffsetDateTime created = blob.getCreateTimeOffsetDateTime();
    return created == null ? OffsetDateTime.MIN : created;
  }

  @Override
  public Optional<String> readWaiting(String name) throws IOException {
    Blob blob = get(object(WarmRequest.REQUESTS, name));
    return blob == null ? Optional.empty() : Optional.of(new String(content(blob), StandardCharsets.UTF_8));
  }

  @Override
  public Take take(String name, String driverId) throws IOException {
    BlobId running = object(WarmRequest.RUNNING, name);
    if (createIfAbsent(running, driverId).isEmpty()) {
      Blob taken = get(running);
      if (taken == null) {
        throw new IOException("cannot create " + uri(running) + ", yet it does not exist");
      }
      if (!new String(content(taken), StandardCharsets.UTF_8).equals(driverId)) {
        return Take.TAKEN_BY_ANOTHER;
      }
      // our own create, whose answer was lost
    }
    if (!delete(object(WarmRequest.REQUESTS, name))) {
      // The batcher deleted the request first: withdrawn, so this driver must not run it.
      delete(running);
      return Take.WITHDRAWN;
    }
    return Take.TAKEN;
  }

  @Override
  public void finish(String name, String driverId) throws IOException {
    delete(object(WarmRequest.RUNNING, name));
  }

  @Override
  public List<String> cancels() throws IOException {
    List<String> names = new ArrayList<>();
    String folder = prefix + WarmRequest.CANCEL + "/";
    try {
      for (Blob blob : storage.list(bucket, Storage.BlobListOption.prefix(folder)).iterateAll()) {
        if (blob.getName().length() > folder.length() && blob.getName().indexOf('/', folder.length()) < 0) {
          names.add(blob.getName().substring(folder.length()));
        }
      }
    } catch (StorageException e) {
      throw new IOException("cannot list " + location() + WarmRequest.CANCEL + "/: " + e.getMessage(), e);
    }
    return names;
  }

  @Override
  public void deleteCancel(String name) throws IOException {
    delete(object(WarmRequest.CANCEL, name));
  }

  private Blob get(BlobId id) throws IOException {
    try {
      return storage.get(id);
    } catch (StorageException e) {
      throw new IOException("cannot read " + uri(id) + ": " + e.getMessage(), e);
    }
  }

  /** The content of the generation the metadata was read at. */
  private byte[] content(Blob blob) throws IOException {
    try {
      return storage.readAllBytes(blob.getBlobId());
    } catch (StorageException e) {
      throw new IOException("cannot read " + uri(blob.getBlobId()) + ": " + e.getMessage(), e);
    }
  }

  private boolean delete(BlobId id) throws IOException {
    try {
      return storage.delete(id);
    } catch (StorageException e) {
      throw new IOException("cannot delete " + uri(id) + ": " + e.getMessage(), e);
    }
  }

  /**
   * Creates the object only where none exists.
   *
   * @return its generation; empty when the create was refused (a precondition failure, or an
   *     error the caller resolves by reading the object back)
   */
  private Optional<Long> createIfAbsent(BlobId id, String content) {
    try {
      Blob blob = storage.create(BlobInfo.newBuilder(id).setContentType("application/json").build(),
          content.getBytes(StandardCharsets.UTF_8), Storage.BlobTargetOption.doesNotExist());
      return Optional.of(blob.getGeneration());
    } catch (StorageException e) {
      return Optional.empty();
    }
  }

  /** Replaces the object only at that generation; empty when refused, as {@link #createIfAbsent}. */
  private Optional<Long> replaceAt(BlobId id, long generation, String content) {
    try {
      Blob blob = storage.create(
          BlobInfo.newBuilder(BlobId.of(id.getBucket(), id.getName(), generation)).setContentType("application/json")
              .build(),
          content.getBytes(StandardCharsets.UTF_8), Storage.BlobTargetOption.generationMatch());
      return Optional.of(blob.getGeneration());
    } catch (StorageException e) {
      return Optional.empty();
    }
  }

  private WarmDriverHeartbeat heartbeat(Blob blob) throws IOException {
    try {
      return WarmDriverHeartbeat.fromJson(new String(content(blob), StandardCharsets.UTF_8), uri(blob.getBlobId()));
    } catch (IllegalArgumentException e) {
      return null; // unreadable: nobody holds the folder through it
    }
  }

  private static String uri(BlobId id) {
    return new GcsUri(id.getBucket(), id.getName()).toString();
  }

  @Override
  public String toString() {
    return location();
  }
}
