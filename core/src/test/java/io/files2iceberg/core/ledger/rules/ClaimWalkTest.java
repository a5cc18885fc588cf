package io.files2iceberg.core.ledger.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.rules.ClaimWalk.Action;
import io.files2iceberg.core.ledger.rules.ClaimWalk.Step;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The claim walks over READY partitions, table by table, without a store. */
class ClaimWalkTest {
  /**
   * Partitions' pending counts in token order, the cap, and what the walk does with each: {@code
   * s} settle, {@code tN} take N files, {@code x} stop (the walk is over; later ones are not shown).
   */
  @ParameterizedTest(name = "pending {0}, cap {1}: {2}")
  @CsvSource(delimiter = '|', value = {
      "3 2 1 | 10 | t3 t2 t1",
      "3 8 1 | 10 | t3 t7 x",
      "3 7 1 | 10 | t3 t7 x",
      "12 1 | 10 | t10 x",
      "0 0 4 | 10 | s s t4",
      "4 0 6 | 10 | t4 s t6 x",
      "10 1 | 10 | t10 x",
      "1 1 1 | 2 | t1 t1 x",
      "3 3 3 3 | 4 | t3 t1 x",
      "0 | 10 | s"})
  void claimFillsTheBatchOldestFirstSplittingTheLastPartitionItTakes(String pending, int cap, String expected) {
    ClaimWalk walk = new ClaimWalk(cap);
    List<String> steps = new ArrayList<>();
    for (String count : pending.split(" ")) {
      Step step = walk.offer(Integer.parseInt(count));
      steps.add(code(step));
      if (step.action() == Action.STOP) {
        break;
      }
    }
    if (walk.isDone() && !steps.get(steps.size() - 1).equals("x")) {
      steps.add("x");
    }
    assertThat(String.join(" ", steps)).isEqualTo(expected);
  }

  /** The store's own bound (Firestore: the batch document's size) caps what fits, never below one file. */
  @ParameterizedTest(name = "pending {0} fitting {1}, cap {2}: {3}")
  @CsvSource(delimiter = '|', value = {
      "5:5 3:3 | 10 | t5 t3",
      "5:2 3:3 | 10 | t2 x",
      "5:0 | 10 | t1 x",
      "5:5 3:1 | 10 | t5 t1 x",
      "5:5 3:0 | 10 | t5 x"})
  void theStoresOwnBoundSplitsAPartitionTheFirstNeverBelowOneFile(String offers, int cap, String expected) {
    ClaimWalk walk = new ClaimWalk(cap);
    List<String> steps = new ArrayList<>();
    for (String offer : offers.split(" ")) {
      String[] parts = offer.split(":");
      Step step = walk.offer(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
      steps.add(code(step));
      if (step.action() == Action.STOP) {
        break;
      }
    }
    if (walk.isDone() && !steps.get(steps.size() - 1).equals("x")) {
      steps.add("x");
    }
    assertThat(String.join(" ", steps)).isEqualTo(expected);
  }

  /**
   * Partitions' pending file sizes in token order ({@code 30,30} two files, {@code -} none, {@code
   * ?} a file of unknown size), the caps on files and bytes, and each partition's step.
   */
  @ParameterizedTest(name = "sizes {0}, caps {1} files {2} bytes: {3}")
  @CsvSource(delimiter = '|', value = {
      "50 40 30 | 10 | 100 | t1 t1 x",
      "10,10 20,20 40 5 | 10 | 100 | t2 t2 t1 x",
      "30,30,30,30 10 | 10 | 100 | t3 x",
      "250 10 | 10 | 100 | t1 x",
      "250,10 10 | 10 | 100 | t1 x",
      "40 250 10 | 10 | 100 | t1 x",
      "- 60 - 60 | 10 | 100 | s t1 s x",
      "1,1,1 1 | 2 | 100 | t2 x",
      "?,?,? ? 99 | 10 | 100 | t3 t1 t1",
      "60 40 | 10 | 100 | t1 t1 x",
      "30,30 30,30,30 | 10 | 100 | t2 t1 x"})
  void aByteCapFillsTheBatchSplittingTheLastPartitionNeverBelowOneFile(String partitions, int maxFiles,
      long maxBytes, String expected) {
    ClaimWalk walk = new ClaimWalk(maxFiles, maxBytes);
    List<String> steps = new ArrayList<>();
    for (String partition : partitions.split(" ")) {
      Step step = walk.offerSizes(sizes(partition), Integer.MAX_VALUE);
      steps.add(code(step));
      if (step.action() == Action.STOP) {
        break;
      }
    }
    if (walk.isDone() && !steps.get(steps.size() - 1).equals("x")) {
      steps.add("x");
    }
    assertThat(String.join(" ", steps)).isEqualTo(expected);
  }

  /** The whole walk over sizes: the same steps as the walk one partition at a time, from one read. */
  @ParameterizedTest(name = "sizes {0}, caps {1} files {2} bytes: settled {3}, taken {4}")
  @CsvSource(delimiter = '|', value = {
      "10,10 - 20,20 40 5 | 10 | 100 | 2 | 1:2 3:2 4:1",
      "- 30,30,30,30 10 | 10 | 100 | 1 | 2:3",
      "- - | 10 | 100 | 1 2 | -"})
  void aPlanOverSizesCapsFilesAndBytes(String partitions, int maxFiles, long maxBytes, String settled, String taken) {
    List<PartitionRecord> ready = new ArrayList<>();
    Map<String, List<Long>> pending = new HashMap<>();
    String[] each = partitions.split(" ");
    for (int i = 0; i < each.length; i++) {
      PartitionRecord partition = PartitionRulesTest.stored(PartitionState.READY);
      String token = String.valueOf(i + 1);
      ready.add(new PartitionRecord(partition.table(), token, partition.prefix(), partition.state(),
          partition.markerSeen(), partition.batchId(), partition.attempts(), partition.lastError(), partition.readyAt(),
          partition.updatedAt()));
      if (!each[i].equals("-")) {
        pending.put(token, sizes(each[i]));
      }
    }

    ClaimWalk.Plan plan = ClaimWalk.plan(ready, pending, maxFiles, maxBytes);

    assertThat(joined(plan.settled().stream().map(PartitionRecord::partition).toList())).isEqualTo(settled);
    assertThat(joined(plan.taken().stream().map(t -> t.partition().partition() + ":" + t.files()).toList()))
        .isEqualTo(taken);
  }

  @org.junit.jupiter.api.Test
  void aByteCapBelowOneByteIsRefusedNamingIt() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ClaimWalk(10, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxBytes must be at least 1, was 0");
  }

  private static List<Long> sizes(String partition) {
    if (partition.equals("-")) {
      return List.of();
    }
    return Arrays.stream(partition.split(",")).map(s -> s.equals("?") ? -1L : Long.parseLong(s)).toList();
  }

  /** Pending (true/false) per partition, oldest first: what the newest claim settles, takes and supersedes. */
  @ParameterizedTest(name = "pending {0}: settled {1}, taken {2}, superseded {3}")
  @CsvSource(delimiter = '|', value = {
      "true false true false | 4 | 3 | 1 2",
      "true true | - | 2 | 1",
      "false false | 1 2 | - | -",
      "true false false | 2 3 | 1 | -"})
  void aNewestPlanSettlesTheNewerEmptyOnesTakesTheNewestWithFilesAndSupersedesTheOlder(String pending,
      String settled, String taken, String superseded) {
    List<PartitionRecord> ready = new ArrayList<>();
    java.util.Set<String> withFiles = new java.util.HashSet<>();
    String[] each = pending.split(" ");
    for (int i = 0; i < each.length; i++) {
      PartitionRecord p = PartitionRulesTest.stored(PartitionState.READY);
      String token = String.valueOf(i + 1);
      ready.add(new PartitionRecord(p.table(), token, p.prefix(), p.state(), p.markerSeen(), p.batchId(), p.attempts(),
          p.lastError(), p.readyAt(), p.updatedAt()));
      if (Boolean.parseBoolean(each[i])) {
        withFiles.add(token);
      }
    }

    NewestClaimWalk.Plan plan = NewestClaimWalk.plan(ready, withFiles);

    assertThat(joined(plan.settled().stream().map(PartitionRecord::partition).toList())).isEqualTo(settled);
    assertThat(plan.taken().map(PartitionRecord::partition).orElse("-")).isEqualTo(taken);
    assertThat(joined(plan.superseded().stream().map(PartitionRecord::partition).toList())).isEqualTo(superseded);
  }

  /** Pending (true/false) per partition, newest first, and each one's step. */
  @ParameterizedTest(name = "pending {0}: {1}")
  @CsvSource(delimiter = '|', value = {
      "true false true | TAKE SUPERSEDE SUPERSEDE",
      "false false true true | SETTLE SETTLE TAKE SUPERSEDE",
      "false false | SETTLE SETTLE",
      "true | TAKE"})
  void newestClaimTakesTheNewestPartitionWithFilesAndSupersedesTheOlderOnes(String pending, String expected) {
    NewestClaimWalk walk = new NewestClaimWalk();

    List<String> steps = Arrays.stream(pending.split(" ")).map(p -> walk.offer(Boolean.parseBoolean(p)).name()).toList();

    assertThat(String.join(" ", steps)).isEqualTo(expected);
  }

  /** The whole walk at once: the same table, settling only the partitions met on the way. */
  @ParameterizedTest(name = "pending {0}, cap {1}: settled {2}, taken {3}")
  @CsvSource(delimiter = '|', value = {
      "3 0 2 1 | 10 | 2 | 1:3 3:2 4:1",
      "3 8 0 1 | 10 | - | 1:3 2:7",
      "0 12 0 1 | 10 | 1 | 2:10",
      "0 0 | 10 | 1 2 | -"})
  void aPlanSettlesTheEmptyPartitionsOnTheWayAndTakesWhatTheWalkTakes(String pending, int cap, String settled,
      String taken) {
    List<PartitionRecord> ready = new ArrayList<>();
    Map<String, Integer> counts = new HashMap<>();
    String[] each = pending.split(" ");
    for (int i = 0; i < each.length; i++) {
      PartitionRecord partition = PartitionRulesTest.stored(PartitionState.READY);
      String token = String.valueOf(i + 1);
      ready.add(new PartitionRecord(partition.table(), token, partition.prefix(), partition.state(),
          partition.markerSeen(), partition.batchId(), partition.attempts(), partition.lastError(), partition.readyAt(),
          partition.updatedAt()));
      if (!each[i].equals("0")) {
        counts.put(token, Integer.parseInt(each[i]));
      }
    }

    ClaimWalk.Plan plan = ClaimWalk.plan(ready, counts, cap);

    assertThat(joined(plan.settled().stream().map(PartitionRecord::partition).toList())).isEqualTo(settled);
    assertThat(joined(plan.taken().stream().map(t -> t.partition().partition() + ":" + t.files()).toList()))
        .isEqualTo(taken);
    NewestClaimWalk.Plan newest = NewestClaimWalk.plan(ready, counts.keySet());
    assertThat(newest.taken().map(PartitionRecord::partition))
        .isEqualTo(ready.stream().map(PartitionRecord::partition).filter(counts::containsKey).reduce((a, b) -> b));
  }

  private static String joined(List<String> values) {
    return values.isEmpty() ? "-" : String.join(" ", values);
  }

  private static String code(Step step) {
    return switch (step.action()) {
      case SETTLE -> "s";
      case TAKE -> "t" + step.files();
      case STOP -> "x";
    };
  }
}
