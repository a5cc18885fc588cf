package io.files2iceberg.sparkjob.extract;

import java.util.List;

/**
 * Columns the job adds to every row for its own use; they are never written to a table. A source
 * column with the {@value #PREFIX} prefix is an error.
 */
public final class InternalColumns {
  public static final String PREFIX = "_f2i_";
  /** The URI of the row's file. */
  public static final String FILE = PREFIX + "file";
  /** The object generation of the row's file. */
  public static final String GENERATION = PREFIX + "generation";
  /** The file's position in the manifest: the last tie-breaker after the generation. */
  public static final String ORDER = PREFIX + "order";
  /** Increases with the row's position within its file. */
  public static final String ROW = PREFIX + "row";

  public static final List<String> ALL = List.of(FILE, GENERATION, ORDER, ROW);

  private InternalColumns() {}

  public static boolean isInternal(String column) {
    return column.startsWith(PREFIX);
  }
}
