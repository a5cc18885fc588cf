package io.files2iceberg.sparkjob.extract;

import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import com.google.cloud.storage.StorageOptions;
import io.files2iceberg.core.match.ObjectLocation;
import java.io.IOException;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * GCS generations, from the Storage client the job carries (Iceberg's GCP bundle, the one
 * GCSFileIO uses): one metadata GET per object asking only for its generation.
 */
public final class GcsGenerations implements LiveGenerations {
  private final Storage storage;

  public GcsGenerations(Storage storage) {
    this.storage = Objects.requireNonNull(storage, "storage");
  }

  /** A client with the application default credentials (the batch's service account on Dataproc). */
  public static GcsGenerations withDefaultCredentials() {
    return new GcsGenerations(StorageOptions.getDefaultInstance().getService());
  }

  @Override
  public OptionalLong of(ObjectLocation object) throws IOException {
    if (!ObjectLocation.GS.equals(object.scheme())) {
      throw new IllegalArgumentException("not a GCS object: " + object.uri());
    }
    Blob blob;
    try {
      blob = storage.get(BlobId.of(object.bucket(), object.name()),
          Storage.BlobGetOption.fields(Storage.BlobField.GENERATION));
    } catch (StorageException e) {
      throw new IOException("cannot read the generation of " + object.uri() + ": " + e.getMessage(), e);
    }
    if (blob == null || blob.getGeneration() == null) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(blob.getGeneration());
  }
}
