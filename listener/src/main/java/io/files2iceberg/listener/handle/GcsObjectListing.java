package io.files2iceberg.listener.handle;

import com.google.api.gax.paging.Page;
import com.google.cloud.BaseServiceException;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.Storage.BlobListOption;
import io.files2iceberg.core.match.ObjectLocation;
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
          "listing " + object.folderUri() + " failed (" + e.getCode() + "): " + e.getMessage(),
          e.isRetryable() || e.getCode() == 429 || e.getCode() >= 500,
          e);
    }
    return listed;
  }
}
