package io.files2iceberg.sparkjob.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StageCompositionTest {

  record Counted(int value) {}

  record Doubled(int value) {}

  @Test
  void thenFeedsEachStageTheResultOfTheOneBefore() {
    Stage<String, Integer> length = String::length;
    Stage<String, String> pipeline = length.then(n -> n * 10).then(n -> "n=" + n);

    assertThat(pipeline.apply("abc")).isEqualTo("n=30");
  }

  @Test
  void multiLoadRunsEverySinkOnTheSameInputInOrderAndEachSeesTheOutcomesBeforeIt() {
    List<String> calls = new ArrayList<>();
    Sink<Integer, Counted> count = (input, earlier) -> {
      calls.add("count " + input + " after " + earlier.all());
      return new Counted(input);
    };
    Sink<Integer, Doubled> doubled = (input, earlier) -> {
      calls.add("double " + input + " after " + earlier.all());
      return new Doubled(earlier.get(Counted.class).value() * 2);
    };

    Loaded loaded = Stage.<Integer, Integer>of(n -> n + 1).then(MultiLoad.of(count, doubled)).apply(4);

    assertThat(calls).containsExactly("count 5 after []", "double 5 after [Counted[value=5]]");
    assertThat(loaded.get(Doubled.class)).isEqualTo(new Doubled(10));
    assertThat(loaded.all()).containsExactly(new Counted(5), new Doubled(10));
  }

  @Test
  void sinkThatFailsStopsTheSinksAfterIt() {
    List<String> calls = new ArrayList<>();
    Sink<String, String> failing = (input, earlier) -> {
      throw new IllegalStateException("table is gone");
    };
    Sink<String, String> after = (input, earlier) -> {
      calls.add("after");
      return "ran";
    };

    assertThatThrownBy(() -> MultiLoad.of(failing, after).apply("rows")).hasMessage("table is gone");
    assertThat(calls).isEmpty();
  }

  @Test
  void outcomeNoSinkProducedIsNamedWhenAsked() {
    assertThatThrownBy(() -> Loaded.nothing().with("x").get(Counted.class))
        .hasMessage("No load produced a Counted; outcomes: [x]");
  }

  @Test
  void multiLoadNeedsAtLeastOneSink() {
    assertThatThrownBy(MultiLoad::of).hasMessage("A MultiLoad needs at least one sink");
  }
}
