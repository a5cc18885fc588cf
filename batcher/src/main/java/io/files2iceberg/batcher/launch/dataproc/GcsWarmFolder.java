package io.files2iceberg.batcher.launch.dataproc;

import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import io.files2iceberg.batcher.launch.LaunchException;
import io.files2iceberg.batcher.launch.WarmFolder;
import io.files2iceberg.core.manifest.WarmDriverHeartbeat;
import io.files2iceberg.core.manifest.WarmRequest;
import io.files2iceberg.core.storage.GcsUri;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;

/**
 * The batcher's side of a warm driver's folder on Cloud Storage ({@link WarmRequest}'s layout):
 * it writes requests, withdraws or cancels them, and reads who took them and who holds the
 * folder. The driver's side is {@code io.files2iceberg.sparkjob.warm.GcsDriverFolder}.
 */
final class GcsWarmFolder implements WarmFolder {
  private final Storage storage;
  private final String bucket;
  private final String prefix;

  /** @param folder {@code gs://<bucket>/<prefix>/} */
  GcsWarmFolder(Storage storage, String folder) {
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

  /** Writes a request, in one put: the driver sees all of it or nothing. */
  void write(WarmRequest request) {
    BlobId id = object(WarmRequest.REQUESTS + "/" + request.name());
    try {
      storage.create(BlobInfo.newBuilder(id).setContentType("application/json").build(),
          request.toJson().getBytes(StandardCharsets.UTF_8));
    } catch (StorageException e) {
      throw new LaunchException("Cannot hand table " + request.table() + " batch " + request.batchId() + " attempt "
          + request.attempt() + " to the warm driver: cannot write " + uri(id) + ": " + e.getMessage(), true, e);
    }
  }

  /**
   * Taken while {@code running/<name>} exists, even while the request is still in {@code
   * requests/} too: a driver creates {@code running/<name>} before it deletes the request.
   */
  @Override
  public RequestState state(String name) {
    boolean waiting = get(WarmRequest.REQUESTS + "/" + name).isPresent();
    Optional<String> runner = runner(name);
    if (runner.isPresent()) {
      return RequestState.takenBy(runner.get());
    }
    return waiting ? RequestState.waiting() : RequestState.gone();
  }

  /** The request's waiting JSON, when it waits. */
  Optional<WarmRequest> waiting(String name) {
    return get(WarmRequest.REQUESTS + "/" + name).flatMap(blob -> text(blob).flatMap(json -> {
      try {
        return Optional.of(WarmRequest.fromJson(json, uri(blob.getBlobId())));
      } catch (IllegalArgumentException e) {
        return Optional.empty();
      }
    }));
  }

  /** The id of the driver that took the request, while {@code running/<name>} exists. */
  Optional<String> runner(String name) {
    return get(WarmRequest.RUNNING + "/" + name).flatMap(this::text).map(String::strip);
  }

  /**
   * Deletes the waiting request. True when this delete removed it: then no driver runs it (a
   * driver runs only a request its own delete removed).
   */
  @Override
  public boolean withdraw(String name) {
    BlobId id = object(WarmRequest.REQUESTS + "/" + name);
    try {
      return storage.delete(id);
    } catch (StorageException e) {
      throw new LaunchException("Cannot withdraw " + uri(id) + ": " + e.getMessage(), true, e);
    }
  }

  /** Asks the driver running the request to cancel its Spark job group. */
  @Override
  public void cancel(String name) {
    BlobId id = object(WarmRequest.CANCEL + "/" + name);
    try {
      storage.create(BlobInfo.newBuilder(id).build(), new byte[0]);
    } catch (StorageException e) {
      throw new LaunchException("Cannot write " + uri(id) + ": " + e.getMessage(), true, e);
    }
  }

  /** What {@code driver.json} says; empty when there is none or it cannot be read as one. */
  Optional<WarmDriverHeartbeat> holder() {
    return get(WarmRequest.DRIVER_JSON).flatMap(blob -> text(blob).flatMap(json -> {
      try {
        return Optional.of(WarmDriverHeartbeat.fromJson(json, uri(blob.getBlobId())));
      } catch (IllegalArgumentException e) {
        return Optional.empty();
      }
    }));
  }

  private Optional<Blob> get(String name) {
    BlobId id = object(name);
    try {
      return Optional.ofNullable(storage.get(id));
    } catch (StorageException e) {
      throw new LaunchException("Cannot read " + uri(id) + ": " + e.getMessage(), true, e);
    }
  }

  /** The content of the generation read; empty when that generation is gone since. */
  private Optional<String> text(Blob blob) {
    try {
      return Optional.of(new String(storage.readAllBytes(blob.getBlobId()), StandardCharsets.UTF_8));
    } catch (StorageException e) {
      if (e.getCode() == 404) {
        return Optional.empty();
      }
      throw new LaunchException("Cannot read " + uri(blob.getBlobId()) + ": " + e.getMessage(), true, e);
    }
  }

  private BlobId object(String name) {
    return BlobId.of(bucket, prefix + name);
  }

  private static String uri(BlobId id) {
    return new GcsUri(id.getBucket(), id.getName()).toString();
  }

  @Override
  public String toString() {
    return location();
  }
}
