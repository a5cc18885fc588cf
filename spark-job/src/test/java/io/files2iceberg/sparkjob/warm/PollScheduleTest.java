package io.files2iceberg.sparkjob.warm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PollScheduleTest {
  private static final Duration BASE = Duration.ofMillis(500);
  private static final Duration CAP = Duration.ofSeconds(5);
  private static final Instant NOW = Instant.parse("2026-12-05T12:00:00Z");
  private static final Instant FAR = NOW.plus(Duration.ofHours(1));

  @Test
  void idleLooksDoubleTheWaitUpToTheCap() {
    PollSchedule polls = new PollSchedule(BASE, CAP);
    List<Long> waits = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      waits.add(polls.next(false, NOW, FAR).toMillis());
    }

    assertThat(waits).containsExactly(1_000L, 2_000L, 4_000L, 5_000L, 5_000L, 5_000L);
  }

  @Test
  void aLookThatFoundWorkBringsTheWaitBackToTheBase() {
    PollSchedule polls = new PollSchedule(BASE, CAP);
    for (int i = 0; i < 6; i++) {
      polls.next(false, NOW, FAR);
    }

    assertThat(polls.next(true, NOW, FAR)).isEqualTo(BASE);
    assertThat(polls.next(true, NOW, FAR)).isEqualTo(BASE);
    assertThat(polls.next(false, NOW, FAR)).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void aWaitEndsAtTheFirstTimeDueButNeverBeforeTheBase() {
    PollSchedule polls = new PollSchedule(BASE, CAP);
    for (int i = 0; i < 6; i++) {
      polls.next(false, NOW, FAR);
    }

    assertThat(polls.next(false, NOW, NOW.plusSeconds(3), NOW.plusSeconds(2))).isEqualTo(Duration.ofSeconds(2));
    assertThat(polls.next(false, NOW, NOW.plusMillis(100))).isEqualTo(BASE);
    assertThat(polls.next(false, NOW, NOW.minusSeconds(1))).isEqualTo(BASE);
    assertThat(polls.next(false, NOW, Instant.MAX)).isEqualTo(CAP);
  }

  @Test
  void aCapEqualToTheBaseKeepsASteadyPoll() {
    PollSchedule polls = new PollSchedule(Duration.ofMillis(50), Duration.ofMillis(50));

    assertThat(polls.next(false, NOW, FAR)).isEqualTo(Duration.ofMillis(50));
    assertThat(polls.next(false, NOW, FAR)).isEqualTo(Duration.ofMillis(50));
  }

  @Test
  void aCapUnderTheBaseIsRefused() {
    assertThatThrownBy(() -> new PollSchedule(CAP, BASE)).isInstanceOf(IllegalArgumentException.class);
  }
}
