package io.files2iceberg.core.manifest;

/**
 * What one expectation ({@code quality.expectations}) found in a batch. A check counts rows, an
 * aggregate ({@code min-rows}, {@code max-null-fraction}) counts partitions.
 *
 * @param onViolation the expectation's action, as the profile spells it
 * @param passed the rows (partitions) that met it
 * @param failed the rows (partitions) that violated it, whatever the action did with them
 */
public record ExpectationCounts(String onViolation, long passed, long failed) {
  public ExpectationCounts {
    if (passed < 0 || failed < 0) {
      throw new IllegalArgumentException("Expectation counts cannot be negative: passed " + passed + ", failed "
          + failed);
    }
  }
}
