package io.files2iceberg.core.warm;

import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Where a warm driver's folder lives ({@link WarmFolder}'s port): a local folder ({@link
 * LocalMedium}) or a {@code gs://} prefix ({@link GcsMedium}). Entries are named by their path
 * under the folder ({@code requests/<name>}). The two media keep different promises, and {@link
 * #renames} says which: a local folder renames an entry atomically and locks a file, and has no
 * generations; Cloud Storage has neither rename nor lock, but creates an object only where none
 * exists and replaces it only at the generation its writer read. An operation a medium lacks
 * throws {@link UnsupportedOperationException}.
 */
public interface FolderMedium {

  /** An entry as one read found it: its content and (on Cloud Storage) the generation read. */
  record Stored(byte[] content, long generation) {}

  /** An entry of a listed sub-folder: its name in that sub-folder and when it was created or last written. */
  record Listed(String name, Instant created) {}

  /** The folder's path or URI ({@code gs://} ones end with {@code /}), for logs and messages. */
  String location();

  /** How often a driver looks for requests and cancels: each look lists the folder. */
  Duration poll();

  /**
   * The longest a driver waits between two looks while it has nothing to do: its wait grows from
   * {@link #poll} up to this, and a request waits for an idle driver at most this long.
   */
  Duration idlePoll();

  /** Whether the folder is still there; a bucket's always is. */
  boolean exists();

  /** Creates these sub-folders where the medium has folders. */
  void createFolders(List<String> folders) throws IOException;

  /** Whether the entry exists (one look, its content not read). */
  boolean has(String entry) throws IOException;

  /**
   * The entry's content; empty when it does not exist (also when its generation was deleted
   * between the look-up and the read).
   */
  Optional<Stored> read(String entry) throws IOException;

  /** Writes the entry whole in one step: a reader sees all of it or nothing. */
  void put(String entry, byte[] content) throws IOException;

  /** Deletes the entry; true when this delete removed it. */
  boolean delete(String entry) throws IOException;

  /** The entries directly in a sub-folder; none when it does not exist. */
  List<Listed> list(String folder) throws IOException;

  /**
   * True for a medium that renames atomically and locks ({@link #move}, {@link #lock}); false for
   * one with generations ({@link #createIfAbsent}, {@link #replaceAt}).
   */
  boolean renames();

  /**
   * Renames an entry in one atomic step.
   *
   * @return false when {@code from} does not exist
   */
  boolean move(String from, String to) throws IOException;

  /**
   * Takes an exclusive lock on the entry, waiting a moment for a holder that holds it briefly.
   *
   * @return empty when another process holds it
   */
  Optional<Closeable> lock(String entry) throws IOException;

  /**
   * Creates the entry only where none exists.
   *
   * @return its generation; empty when the create was refused (a precondition failure, or an
   *     error the caller resolves by reading the entry back)
   */
  Optional<Long> createIfAbsent(String entry, byte[] content);

  /** Replaces the entry only at that generation; empty when refused, as {@link #createIfAbsent}. */
  Optional<Long> replaceAt(String entry, long generation, byte[] content);
}
