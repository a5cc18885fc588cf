package io.files2iceberg.batcher.engine;

import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.BatchManifestCodec;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.core.storage.GcsUri;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.function.Supplier;

/**
 * Writes a batch's manifest to {@code <metadata.path>/batches/<batchId>.json}: a local folder (a
 * plain path or {@code file://}) or {@code gs://}. Writing the same batch again replaces the file
 * with the same content, since a manifest is rebuilt from the ledger deterministically.
 */
public final class ManifestStore {

  private final Supplier<Storage> storage;

  ManifestStore(Supplier<Storage> storage) {
    this.storage = storage;
  }

  /**
   * Where the manifest of the batch is (or will be) written: what {@link #write} returns. The
   * job's attempt results are beside it ({@code AttemptResult#locationBeside}).
   */
  public static String location(TableProfile profile, String batchId) {
    String folder = profile.metadata().path();
    String name = "batches/" + batchId + ".json";
    if (GcsUri.is(folder)) {
      return GcsUri.parse(folder).resolve(name).toString();
    }
    Path base = folder.startsWith("file:") ? Path.of(URI.create(folder)) : Path.of(folder);
    return base.resolve(name).toAbsolutePath().normalize().toString();
  }

  /**
   * The folder of the table's manifests and the attempt results beside them, {@code
   * <metadata.path>/batches/}: a {@code gs://} folder URI ending in {@code /}, or an absolute local path.
   */
  public static String folder(TableProfile profile) {
    String folder = profile.metadata().path();
    if (GcsUri.is(folder)) {
      return GcsUri.folder(GcsUri.parse(folder).resolve("batches").toString()).toString();
    }
    Path base = folder.startsWith("file:") ? Path.of(URI.create(folder)) : Path.of(folder);
    return base.resolve("batches").toAbsolutePath().normalize().toString();
  }

  /** Writes the manifest and returns where the job reads it. */
  String write(BatchManifest manifest) {
    String folder = manifest.profile().metadata().path();
    String name = "batches/" + manifest.batchId() + ".json";
    byte[] json = BatchManifestCodec.toJson(manifest).getBytes(StandardCharsets.UTF_8);
    if (GcsUri.is(folder)) {
      GcsUri object = GcsUri.parse(folder).resolve(name);
      try {
        storage.get().create(BlobInfo.newBuilder(BlobId.of(object.bucket(), object.path()))
            .setContentType("application/json").build(), json);
      } catch (StorageException e) {
        throw new ManifestWriteException("Cannot write the manifest of batch " + manifest.batchId() + " to "
            + object + ": " + e.getMessage(), e);
      }
      return object.toString();
    }
    Path base = folder.startsWith("file:") ? Path.of(URI.create(folder)) : Path.of(folder);
    Path file = base.resolve(name).toAbsolutePath().normalize();
    try {
      Files.createDirectories(file.getParent());
      Path temp = Files.createTempFile(file.getParent(), manifest.batchId(), ".tmp");
      Files.write(temp, json);
      Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new ManifestWriteException(
          "Cannot write the manifest of batch " + manifest.batchId() + " to " + file + ": " + e, e);
    }
    return file.toString();
  }

  /** The manifest could not be written; nothing was launched. */
  static final class ManifestWriteException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ManifestWriteException(String message, Throwable cause) {
      super(message, cause);
    }
  }

}
