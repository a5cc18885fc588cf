package io.files2iceberg.sparkjob.stage;

/**
 * One target of a {@link MultiLoad}: writes the input somewhere and reports what it did.
 *
 * @param <I> what it writes
 * @param <R> its outcome, which the sinks after it can read from {@link Loaded}
 */
@FunctionalInterface
public interface Sink<I, R> {

  /**
   * Writes the input.
   *
   * @param earlier the outcomes of the sinks that ran before this one, in order
   */
  R write(I input, Loaded earlier);
}
