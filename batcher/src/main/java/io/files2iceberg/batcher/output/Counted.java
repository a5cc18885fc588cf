package io.files2iceberg.batcher.output;

/** A count and its noun, singular for one: {@code 1 row}, {@code 2 rows}, {@code 0 batches}. */
public final class Counted {
  private Counted() {}

  /** {@code n} and {@code one} when {@code n} is 1, else {@code n} and {@code many}. */
  public static String of(long n, String one, String many) {
    return n + " " + (n == 1 ? one : many);
  }
}
