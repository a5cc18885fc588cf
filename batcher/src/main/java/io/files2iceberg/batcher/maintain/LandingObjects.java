package io.files2iceberg.batcher.maintain;

import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.match.ObjectLocation;
import io.files2iceberg.core.storage.GcsUri;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * Landing cleanup's storage verbs on one loaded file's object, each pinned to the generation the
 * ledger recorded: where it landed ({@link FileRecord#bucket()} and {@link FileRecord#name()}), on
 * {@code gs://} or in the landing folder ({@code file:}, the bucket empty and the name the absolute
 * path without its leading {@code /}).
 *
 * <p>On {@code gs://} each call carries its precondition to the server: a delete {@code
 * ifGenerationMatch}, a copy (a rewrite) {@code ifSourceGenerationMatch}, so an object written again
 * since it was loaded is never deleted nor archived in its place. In the landing folder the
 * generation (the modification time in microseconds, {@link ObjectLocation#localGeneration}) is
 * compared and then acted on: not atomic, a rewrite between the two is not seen.
 */
final class LandingObjects {
  private final Supplier<Storage> storage;

  /** @param storage the deployment's Storage client, opened on first use (never for a landing folder) */
  LandingObjects(Supplier<Storage> storage) {
    this.storage = storage;
  }

  /** What a removal found. */
  enum Removal {
    /** The file's generation was there and is gone now. */
    REMOVED,
    /** It was gone already: deleted, or replaced by a newer generation (which is left alone). */
    ALREADY_GONE
  }

  /** A copy of the file's generation: where, and its own generation. */
  record Copy(String uri, long generation) {}

  /** Removes the file's object where it landed if it still holds the file's generation. */
  Removal remove(FileRecord file) throws IOException {
    if (file.bucket().isEmpty()) {
      Path path = localPath(file.name());
      OptionalLong live = localGeneration(path);
      if (live.isEmpty() || live.getAsLong() != file.generation()) {
        return Removal.ALREADY_GONE;
      }
      return Files.deleteIfExists(path) ? Removal.REMOVED : Removal.ALREADY_GONE;
    }
    try {
      boolean deleted = storage.get().delete(BlobId.of(file.bucket(), file.name()),
          Storage.BlobSourceOption.generationMatch(file.generation()));
      return deleted ? Removal.REMOVED : Removal.ALREADY_GONE;
    } catch (StorageException e) {
      if (e.getCode() == 412) {
        return Removal.ALREADY_GONE;
      }
      throw e;
    }
  }

  /**
   * Copies the file's generation under {@code moveTo} ({@link #archiveName}); empty when that
   * generation is gone (deleted, or rewritten: a newer generation is not archived in its place). An
   * existing object at the archive name (an earlier generation's copy) is never replaced: the copy
   * then goes to the name plus {@code .<generation>}, which holds this generation only.
   */
  Optional<Copy> copy(FileRecord file, String moveTo) throws IOException {
    String archive = archiveName(file, moveTo);
    if (file.bucket().isEmpty()) {
      return copyLocal(file, ObjectLocation.parse(archive));
    }
    GcsUri target = GcsUri.parse(archive);
    BlobId source = BlobId.of(file.bucket(), file.name());
    try {
      return Optional.of(copyGcs(source, file.generation(), target.bucket(), target.path(), true));
    } catch (StorageException e) {
      if (e.getCode() == 404) {
        return Optional.empty();
      }
      if (e.getCode() != 412) {
        throw e;
      }
    }
    // 412: either the source's generation is gone, or the archive name is taken.
    Blob live = storage.get().get(source);
    if (live == null || live.getGeneration() == null || live.getGeneration() != file.generation()) {
      return Optional.empty();
    }
    try {
      return Optional.of(copyGcs(source, file.generation(), target.bucket(),
          target.path() + "." + file.generation(), false));
    } catch (StorageException e) {
      if (e.getCode() == 404 || e.getCode() == 412) {
        return Optional.empty();
      }
      throw e;
    }
  }

  private Copy copyGcs(BlobId source, long generation, String bucket, String name, boolean mustBeNew) {
    Storage.CopyRequest.Builder request = Storage.CopyRequest.newBuilder()
        .setSource(source)
        .setSourceOptions(Storage.BlobSourceOption.generationMatch(generation));
    BlobInfo target = BlobInfo.newBuilder(bucket, name).build();
    if (mustBeNew) {
      request.setTarget(target, Storage.BlobTargetOption.doesNotExist());
    } else {
      request.setTarget(target);
    }
    Blob copy = storage.get().copy(request.build()).getResult();
    return new Copy(new GcsUri(bucket, name).toString(), copy.getGeneration());
  }

  private static Optional<Copy> copyLocal(FileRecord file, ObjectLocation archive) throws IOException {
    Path source = localPath(file.name());
    Path target = localPath(archive.name());
    OptionalLong before = localGeneration(source);
    if (before.isEmpty() || before.getAsLong() != file.generation()) {
      return Optional.empty();
    }
    Files.createDirectories(target.getParent());
    try {
      Files.copy(source, target, StandardCopyOption.COPY_ATTRIBUTES);
    } catch (FileAlreadyExistsException taken) {
      target = target.resolveSibling(target.getFileName() + "." + file.generation());
      Files.copy(source, target, StandardCopyOption.COPY_ATTRIBUTES, StandardCopyOption.REPLACE_EXISTING);
    } catch (NoSuchFileException gone) {
      return Optional.empty();
    }
    // Rewritten while it was copied: the copy may hold the new bytes, and the file's generation is gone.
    OptionalLong after = localGeneration(source);
    if (after.isEmpty() || after.getAsLong() != file.generation()) {
      Files.deleteIfExists(target);
      return Optional.empty();
    }
    OptionalLong copied = localGeneration(target);
    if (copied.isEmpty()) {
      throw new NoSuchFileException(target.toString(), null, "the archive copy vanished as it was made");
    }
    return Optional.of(new Copy(ObjectLocation.file(target).uri(), copied.getAsLong()));
  }

  /**
   * Where a file's object goes under {@code moveTo} (a folder ending with {@code /}): {@code
   * <moveTo><bucket>/<name>} on GCS, {@code <moveTo><absolute path without its leading />} for a
   * landing folder's file.
   */
  static String archiveName(FileRecord file, String moveTo) {
    return moveTo + (file.bucket().isEmpty() ? "" : file.bucket() + "/") + file.name();
  }

  private static Path localPath(String name) {
    return Path.of("/" + name);
  }

  private static OptionalLong localGeneration(Path path) {
    try {
      return OptionalLong.of(ObjectLocation.localGeneration(Files.readAttributes(path, BasicFileAttributes.class)));
    } catch (NoSuchFileException e) {
      return OptionalLong.empty();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
