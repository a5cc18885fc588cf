package io.files2iceberg.listener.handle;

import com.google.cloud.storage.Storage;
import io.files2iceberg.core.match.ObjectLocation;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Lists the objects of one folder: how a success marker finds the files of its partition whose
 * notifications have not arrived yet. Called once per marker, never to scan a bucket.
 */
public interface ObjectListing {

  /**
   * The objects in the folder that holds {@code object}, the object itself included: directly in
   * it, or with {@code subfolders} also those in its subfolders at any depth (a profile with
   * {@code extract.recursive-file-lookup}).
   *
   * @throws ListingFailedException when the folder cannot be listed; {@link
   *     ListingFailedException#isRetryable()} says whether trying again may help
   */
  List<ListedObject> listFolderOf(ObjectLocation object, boolean subfolders);

  /**
   * Lists {@code gs://} folders through Cloud Storage and {@code file://} folders on the local
   * file system.
   *
   * @param storage the Cloud Storage client, asked for on the first {@code gs://} listing only
   */
  static ObjectListing of(Supplier<Storage> storage) {
    ObjectListing gcs = new GcsObjectListing(storage);
    ObjectListing local = new LocalFolderListing();
    return (object, subfolders) ->
        ObjectLocation.FILE.equals(object.scheme())
            ? local.listFolderOf(object, subfolders)
            : gcs.listFolderOf(object, subfolders);
  }

  /**
   * One listed object.
   *
   * @param location where it is
   * @param generation its GCS generation; for a local file its last-modified time in microseconds
   * @param size bytes
   * @param updated when it was last written, when known
   */
  record ListedObject(ObjectLocation location, long generation, long size, Optional<Instant> updated) {
    public ListedObject {
      Objects.requireNonNull(location, "location");
      Objects.requireNonNull(updated, "updated");
    }
  }

  /** A folder could not be listed. */
  final class ListingFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final boolean retryable;

    public ListingFailedException(String message, boolean retryable, Throwable cause) {
      super(message, cause);
      this.retryable = retryable;
    }

    /**
     * Whether the same listing may succeed later (an I/O error such as a DNS failure or a reset, a
     * 5xx, a 429, a 408).
     */
    public boolean isRetryable() {
      return retryable;
    }
  }
}
