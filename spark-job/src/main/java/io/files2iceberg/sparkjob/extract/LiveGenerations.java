package io.files2iceberg.sparkjob.extract;

import io.files2iceberg.core.match.ObjectLocation;
import java.io.IOException;
import java.util.OptionalLong;

/**
 * Where the job asks which generation of an object is live: the landing folder's files (their
 * last-modified time in microseconds, {@link ObjectLocation#localGeneration}) or GCS objects
 * (their generation). A port: {@link LocalGenerations} and {@link GcsGenerations} answer it.
 */
@FunctionalInterface
public interface LiveGenerations {

  /**
   * The live generation of the object at {@code uri}; empty when there is no object there now.
   *
   * @throws IOException when the storage cannot say (a transient failure: the batch is retried)
   */
  OptionalLong of(ObjectLocation object) throws IOException;

  /**
   * Local files from the file system, GCS objects from a Storage client made with the default
   * credentials when the first {@code gs://} object is asked about (never in a local run).
   */
  static LiveGenerations byScheme() {
    LiveGenerations local = new LocalGenerations();
    LiveGenerations gcs = new LazyGcs();
    return object -> ObjectLocation.GS.equals(object.scheme()) ? gcs.of(object) : local.of(object);
  }

  /** The GCS client is made once, on first use; the calls then go out side by side. */
  final class LazyGcs implements LiveGenerations {
    private GcsGenerations client;

    @Override
    public OptionalLong of(ObjectLocation object) throws IOException {
      return client().of(object);
    }

    private synchronized GcsGenerations client() {
      if (client == null) {
        client = GcsGenerations.ofActiveSession();
      }
      return client;
    }
  }
}
