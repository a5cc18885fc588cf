package io.files2iceberg.listener.handle;

import com.google.api.client.http.HttpResponseException;
import com.google.api.gax.paging.Page;
import com.google.cloud.BaseServiceException;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.Storage.BlobListOption;
import io.files2iceberg.core.match.ObjectLocation;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lists one folder of a bucket: {@code prefix(folder/)} with {@code currentDirectory()}, or without
 * it to include the subfolders.
 */
final class GcsObjectListing implements ObjectListing {
  private static final Logger LOG = LoggerFactory.getLogger(GcsObjectListing.class);

  private final Supplier<Storage> storage;

  GcsObjectListing(Supplier<Storage> storage) {
    this.storage = storage;
  }

  @Override
  public List<ListedObject> listFolderOf(ObjectLocation object, boolean subfolders) {
    String prefix = object.folder().isEmpty() ? "" : object.folder() + "/";
    List<ListedObject> listed = new ArrayList<>();
    try {
      Page<Blob> page =
          subfolders
              ? storage.get().list(object.bucket(), BlobListOption.prefix(prefix))
              : storage
                  .get()
                  .list(object.bucket(), BlobListOption.prefix(prefix), BlobListOption.currentDirectory());
      for (Blob blob : page.iterateAll()) {
        if (blob.isDirectory() || blob.getName().endsWith("/")) {
          continue;
        }
        ObjectLocation location = ObjectLocation.gs(blob.getBucket(), blob.getName());
        if (blob.getGeneration() == null) {
          // Without its generation the file cannot get its ledger id; its own notification
          // will record it.
          LOG.warn("Listing {}: {} has no generation; left to its notification", object.folderUri(), location);
          continue;
        }
        Optional<Instant> updated =
            Optional.ofNullable(blob.getUpdateTimeOffsetDateTime())
                .or(() -> Optional.ofNullable(blob.getCreateTimeOffsetDateTime()))
                .map(t -> t.toInstant());
        long size = blob.getSize() == null ? -1 : blob.getSize();
        listed.add(new ListedObject(location, blob.getGeneration(), size, updated));
      }
    } catch (BaseServiceException e) {
      throw new ListingFailedException(
          "listing " + object.folderUri() + " failed (" + describe(e) + "): " + e.getMessage(),
          isTransient(e),
          e);
    }
    return listed;
  }

  /**
   * Whether the same listing may succeed later. An I/O failure (the client's code 0: a DNS error, a
   * refused or reset connection, a timeout, a response cut off), a 408, a 429 and every 5xx are
   * transient: the marker is redelivered and lists again. Only an answer that will not change
   * (403 on a bucket the listener may not read, 404 for a bucket that does not exist, 400 for a
   * prefix GCS rejects) makes the marker's listing fail for good.
   */
  static boolean isTransient(BaseServiceException e) {
    int code = e.getCode();
    return e.isRetryable()
        || code == BaseServiceException.UNKNOWN_CODE
        || code == 408
        || code == 429
        || code >= 500
        || causedByIo(e);
  }

  private static boolean causedByIo(Throwable e) {
    // Bounded: a cause chain may loop.
    Throwable cause = e.getCause();
    for (int depth = 0; cause != null && depth < 16; depth++, cause = cause.getCause()) {
      if (cause instanceof HttpResponseException) {
        // An answer from GCS (the JSON API's error is an IOException too): its status decides.
        return false;
      }
      if (cause instanceof IOException) {
        return true;
      }
    }
    return false;
  }

  /** The HTTP status, or for an I/O failure the exception that caused it. */
  private static String describe(BaseServiceException e) {
    if (e.getCode() != BaseServiceException.UNKNOWN_CODE) {
      return String.valueOf(e.getCode());
    }
    return "I/O error" + (e.getCause() == null ? "" : ", " + e.getCause().getClass().getSimpleName());
  }
}
