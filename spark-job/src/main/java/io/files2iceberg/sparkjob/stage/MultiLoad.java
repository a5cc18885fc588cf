package io.files2iceberg.sparkjob.stage;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The fan-out at the end of the job: every sink gets the same input, one after the other in the
 * order given, and sees the outcomes of the sinks before it. The order is part of the contract:
 * a sink that must run before the table commit (rejected rows) comes before the table load, and a
 * sink that reports on the commit comes after it. A sink that throws stops the ones after it.
 */
public final class MultiLoad<I> implements Stage<I, Loaded> {
  private final List<Sink<? super I, ?>> sinks;

  private MultiLoad(List<Sink<? super I, ?>> sinks) {
    this.sinks = List.copyOf(sinks);
  }

  @SafeVarargs
  public static <I> MultiLoad<I> of(Sink<? super I, ?>... sinks) {
    if (sinks.length == 0) {
      throw new IllegalArgumentException("A MultiLoad needs at least one sink");
    }
    List<Sink<? super I, ?>> list = new ArrayList<>();
    for (Sink<? super I, ?> sink : sinks) {
      list.add(Objects.requireNonNull(sink, "sink"));
    }
    return new MultiLoad<>(list);
  }

  @Override
  public Loaded apply(I input) {
    Loaded loaded = Loaded.nothing();
    for (Sink<? super I, ?> sink : sinks) {
      Object outcome = sink.write(input, loaded);
      loaded = loaded.with(Objects.requireNonNull(outcome, () -> sink + " returned no outcome"));
    }
    return loaded;
  }
}
