package io.files2iceberg.batcher.engine.launch;

import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import io.files2iceberg.core.manifest.AttemptResult;
import io.files2iceberg.core.profile.StorageSettings;
import io.files2iceberg.core.storage.GcsUri;
import io.files2iceberg.core.storage.StorageClients;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the {@link AttemptResult} the job wrote beside its manifest: a local file (a plain path or
 * {@code file:}) or a {@code gs://} object. A result that is missing, unreadable or malformed
 * reads as none (logged): the caller then knows only what the process or Dataproc says, and
 * treats the run as one that may have committed.
 */
public final class AttemptResults {
  private static final Logger LOG = LoggerFactory.getLogger(AttemptResults.class);

  private final Supplier<Storage> storage;

  /** @param storage the GCS client for {@code gs://} results, asked for only when one is read */
  public AttemptResults(Supplier<Storage> storage) {
    this.storage = Objects.requireNonNull(storage, "storage");
  }

  /** Results read with the deployment's Storage client ({@code storage.*}), made on the first {@code gs://} read. */
  public static AttemptResults of(StorageSettings storage) {
    Objects.requireNonNull(storage, "storage");
    return new AttemptResults(() -> StorageClients.shared(storage));
  }

  /** The result of the attempt at {@code location} ({@link AttemptResult#locationBeside}); empty when none. */
  public Optional<AttemptResult> read(String location) {
    Optional<String> text;
    try {
      text = readText(location);
    } catch (IOException | StorageException e) {
      LOG.warn("Cannot read the attempt result {}: {}", location, e.toString());
      return Optional.empty();
    }
    if (text.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(AttemptResult.fromJson(text.get(), location));
    } catch (IllegalArgumentException e) {
      LOG.warn("{}", e.getMessage());
      return Optional.empty();
    }
  }

  private Optional<String> readText(String location) throws IOException {
    if (GcsUri.is(location)) {
      GcsUri object = GcsUri.parse(location);
      if (object.path().isEmpty()) {
        return Optional.empty();
      }
      Blob blob = storage.get().get(BlobId.of(object.bucket(), object.path()));
      return blob == null ? Optional.empty() : Optional.of(new String(blob.getContent(), StandardCharsets.UTF_8));
    }
    Path file = location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location);
    try {
      return Optional.of(Files.readString(file));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  /**
   * The result of a remote run that has ended: the job's own result object at {@code location} when
   * it wrote one, which says more than the run's state; else {@code seen}, what the launcher made of
   * that state (a Dataproc batch's, a driver pod's).
   *
   * @param location where the run writes its result; empty for a run that writes none
   */
  public JobResult writtenOr(Optional<String> location, JobResult seen) {
    return location.flatMap(this::read).map(written -> toJobResult(written, seen.log())).orElse(seen);
  }

  /** The launcher's result of a run that wrote its result: the job's own word ({@code fromJob}). */
  public static JobResult toJobResult(AttemptResult result, Optional<String> log) {
    return new JobResult(result.exit(), result.report(), result.detail(), true, log, result.cause());
  }
}
