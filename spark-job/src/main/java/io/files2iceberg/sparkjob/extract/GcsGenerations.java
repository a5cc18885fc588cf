package io.files2iceberg.sparkjob.extract;

import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import io.files2iceberg.core.match.ObjectLocation;
import io.files2iceberg.core.profile.StorageSettings;
import io.files2iceberg.core.storage.StorageClients;
import java.io.IOException;
import java.util.Objects;
import java.util.OptionalLong;
import org.apache.spark.sql.SparkSession;

/**
 * GCS generations, from the Storage client the job carries (Iceberg's GCP bundle, the one
 * GCSFileIO uses): one metadata GET per object asking only for its generation.
 */
public final class GcsGenerations implements LiveGenerations {
  private final Storage storage;

  public GcsGenerations(Storage storage) {
    this.storage = Objects.requireNonNull(storage, "storage");
  }

  /**
   * A client that goes where the active Spark session's GCS connector reads ({@code
   * fs.gs.storage.root.url}, {@code fs.gs.auth.type}; unset: Google, with the application default
   * credentials, the batch's service account on Dataproc): one truth for the rows and their
   * generations.
   */
  public static GcsGenerations ofActiveSession() {
    org.apache.hadoop.conf.Configuration conf = SparkSession.active().sparkContext().hadoopConfiguration();
    return new GcsGenerations(StorageClients.shared(StorageSettings.ofConnector(conf::get)));
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
