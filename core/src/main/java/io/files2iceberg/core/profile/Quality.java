package io.files2iceberg.core.profile;

import java.util.List;

/**
 * A table's {@code quality} section: the expectations its batches are checked against after the
 * transforms.
 *
 * @param expectations in the profile's order, names unique
 */
public record Quality(List<Expectation> expectations) {
  /** No expectations. */
  public static final Quality NONE = new Quality(List.of());

  public Quality {
    expectations = List.copyOf(expectations);
  }

  /** The per-row checks, in order. */
  public List<Expectation> rowChecks() {
    return expectations.stream().filter(Expectation::isRowLevel).toList();
  }

  /** The per-partition aggregates, in order. */
  public List<Expectation> aggregates() {
    return expectations.stream().filter(e -> !e.isRowLevel()).toList();
  }

  /**
   * Whether an expectation names columns that can be checked before any file is read (a {@code
   * check}, a {@code max-null-fraction} column): what {@code validate} starts Spark for.
   */
  public boolean namesColumns() {
    return expectations.stream().anyMatch(e -> e.kind() != Expectation.Kind.MIN_ROWS);
  }

  public boolean isEmpty() {
    return expectations.isEmpty();
  }
}
