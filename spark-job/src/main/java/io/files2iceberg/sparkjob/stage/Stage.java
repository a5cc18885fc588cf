package io.files2iceberg.sparkjob.stage;

import java.util.Objects;

/**
 * One step of the job: takes what the step before produced and hands its result to the next.
 * Stages are composed with {@link #then}, so that a new step (a data-quality check, another sink)
 * is a new class added to the chain and touches no other stage:
 *
 * <pre>{@code
 * Stage<LoadBatch, Loaded> job = filesExtract
 *     .then(commonTransformations)
 *     .then(MultiLoad.of(rejectedRowsLoad, icebergLoad, metricsPublisher));
 * }</pre>
 *
 * @param <I> what the stage consumes
 * @param <O> what it produces
 */
@FunctionalInterface
public interface Stage<I, O> {

  O apply(I input);

  /** A stage from a function; reads well at the head of a chain. */
  static <I, O> Stage<I, O> of(Stage<I, O> stage) {
    return Objects.requireNonNull(stage, "stage");
  }

  /** This stage, then {@code next} on its result. */
  default <R> Stage<I, R> then(Stage<? super O, ? extends R> next) {
    Objects.requireNonNull(next, "next");
    Stage<I, O> first = this;
    return input -> next.apply(first.apply(input));
  }
}
