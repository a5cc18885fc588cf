package io.files2iceberg.sparkjob.extract;

import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.match.ObjectLocation;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job reads exactly the generation its manifest names, never "whatever the path holds now".
 *
 * <p>Spark reads an object by its path, so the generation is checked around the read: {@link
 * #live} before a file is opened (a generation already gone is SUPERSEDED and left out: the
 * newer generation has its own notification and carries the rows; a deleted object carries none,
 * as the files say), and {@link #requireUnchanged} once the rows are materialized, before the
 * commit (a generation that moved in between means some rows may be the new content's: the batch
 * fails as a transient error, and its next attempt finds the generation gone before reading).
 *
 * <p>An archived file (moved by landing cleanup) is read from its copy, so it is the copy's
 * generation ({@link ManifestFile#readGeneration}) at its archive ({@link ManifestFile#readUri})
 * that is checked: a copy gone or rewritten makes the file SUPERSEDED, the reason naming the archive.
 */
public final class GenerationCheck {
  private static final Logger LOG = LoggerFactory.getLogger(GenerationCheck.class);

  private final LiveGenerations live;
  private final BiConsumer<ManifestFile, String> onSuperseded;

  /**
   * @param onSuperseded called with the file and the reason once per file whose generation is gone
   *     before it is opened; the job marks it SUPERSEDED in the ledger
   */
  public GenerationCheck(LiveGenerations live, BiConsumer<ManifestFile, String> onSuperseded) {
    this.live = Objects.requireNonNull(live, "live");
    this.onSuperseded = Objects.requireNonNull(onSuperseded, "onSuperseded");
  }

  /**
   * The files whose generation is the live one, in the order of {@code files}, asked of the storage
   * a few at a time ({@link StorageCalls}). Each other file is SUPERSEDED, in that order: {@code
   * onSuperseded} is told why (rewritten, with the live generation, or deleted).
   *
   * @throws IllegalStateException when the storage cannot say for one of them (transient)
   */
  public List<ManifestFile> live(LoadBatch batch, List<ManifestFile> files) {
    List<OptionalLong> now = StorageCalls.each(files, "generations", file -> liveGeneration(batch, file));
    List<ManifestFile> live = new ArrayList<>();
    for (int i = 0; i < files.size(); i++) {
      if (isLive(batch, files.get(i), now.get(i))) {
        live.add(files.get(i));
      }
    }
    return live;
  }

  private boolean isLive(LoadBatch batch, ManifestFile file, OptionalLong now) {
    if (now.isPresent() && now.getAsLong() == file.readGeneration()) {
      return true;
    }
    String reason;
    if (file.archive().isPresent()) {
      reason = now.isPresent()
          ? "its archived copy " + file.readUri() + " was rewritten: generation " + now.getAsLong()
              + " is live there now, not " + file.readGeneration()
          : "its archived copy " + file.readUri() + " was deleted before it was read";
    } else {
      reason = now.isPresent()
          ? "rewritten: generation " + now.getAsLong() + " is live now"
          : "deleted before it was read";
    }
    LOG.warn("Table {} batch {}: generation {} of {} is SUPERSEDED ({}); the batch goes on without it",
        batch.table(), batch.batchId(), file.generation(), file.uri(), reason);
    onSuperseded.accept(file, reason);
    return false;
  }

  /**
   * Checks that every file read still has the generation the manifest names; called once the rows
   * are materialized and before anything is committed.
   *
   * @throws GenerationMovedException naming every file whose generation moved during the read
   */
  public void requireUnchanged(LoadBatch batch, List<ManifestFile> read) {
    List<String> moved = new ArrayList<>();
    List<OptionalLong> generations = StorageCalls.each(read, "generations", file -> liveGeneration(batch, file));
    for (int i = 0; i < read.size(); i++) {
      ManifestFile file = read.get(i);
      OptionalLong now = generations.get(i);
      if (now.isEmpty() || now.getAsLong() != file.readGeneration()) {
        moved.add(file.described() + " (generation " + file.readGeneration() + ", now "
            + (now.isPresent() ? "generation " + now.getAsLong() : "deleted") + ")");
      }
    }
    if (!moved.isEmpty()) {
      throw new GenerationMovedException("table " + batch.table() + " batch " + batch.batchId()
          + ": the object changed while the batch read it, so the rows read may not be its generation's: "
          + String.join(", ", moved) + "; nothing was committed and the batch can be retried");
    }
  }

  private OptionalLong liveGeneration(LoadBatch batch, ManifestFile file) {
    try {
      return live.of(ObjectLocation.parse(file.readUri()));
    } catch (IOException e) {
      throw new IllegalStateException("table " + batch.table() + " batch " + batch.batchId()
          + ": cannot check the generation of " + file.described() + " (a transient error; the batch can be retried): "
          + e.getMessage(), e);
    }
  }

  /** A generation that moved while the job read it: transient, the batch is retried. */
  public static final class GenerationMovedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    GenerationMovedException(String message) {
      super(message);
    }
  }
}
