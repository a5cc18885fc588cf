package io.files2iceberg.sparkjob.stage;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** Fact: the outcomes of a {@link MultiLoad}'s sinks, in the order they ran. Immutable. */
public final class Loaded {
  private static final Loaded NOTHING = new Loaded(List.of());

  private final List<Object> outcomes;

  private Loaded(List<Object> outcomes) {
    this.outcomes = List.copyOf(outcomes);
  }

  public static Loaded nothing() {
    return NOTHING;
  }

  /** These outcomes and one more. */
  public Loaded with(Object outcome) {
    Objects.requireNonNull(outcome, "outcome");
    List<Object> more = new ArrayList<>(outcomes);
    more.add(outcome);
    return new Loaded(more);
  }

  /** The last outcome of that type, if a sink produced one. */
  public <T> Optional<T> find(Class<T> type) {
    for (int i = outcomes.size() - 1; i >= 0; i--) {
      if (type.isInstance(outcomes.get(i))) {
        return Optional.of(type.cast(outcomes.get(i)));
      }
    }
    return Optional.empty();
  }

  /** The last outcome of that type; fails naming the type when no sink produced one. */
  public <T> T get(Class<T> type) {
    return find(type).orElseThrow(() -> new IllegalStateException(
        "No load produced a " + type.getSimpleName() + "; outcomes: " + outcomes));
  }

  public List<Object> all() {
    return outcomes;
  }

  @Override
  public String toString() {
    return "Loaded" + outcomes;
  }
}
