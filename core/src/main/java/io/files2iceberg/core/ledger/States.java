package io.files2iceberg.core.ledger;

import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Shared by the state enums and every ledger implementation (also those in other modules): codes
 * and the transition checks whose messages the contract fixes.
 */
public final class States {
  private States() {}

  static <E extends Enum<E>> E fromCode(Class<E> type, String code, Function<E, String> codeOf) {
    for (E value : type.getEnumConstants()) {
      if (codeOf.apply(value).equals(code)) {
        return value;
      }
    }
    throw new IllegalArgumentException(
        "Unknown " + type.getSimpleName() + " code '" + code + "'; known: "
            + Arrays.stream(type.getEnumConstants()).map(codeOf).collect(Collectors.joining(", ")));
  }

  /**
   * Checks one transition against the enum's table of allowed next states.
   *
   * @param action what was attempted, e.g. {@code Cannot commit batch b-1}
   * @throws IllegalTransitionException naming every state {@code target} may be reached from and
   *     the actual one
   */
  public static <E extends Enum<E>> void requireTransition(
      String action, E actual, E target, Function<E, Set<E>> next) {
    if (!next.apply(actual).contains(target)) {
      EnumSet<E> sources = EnumSet.noneOf(actual.getDeclaringClass());
      for (E state : actual.getDeclaringClass().getEnumConstants()) {
        if (next.apply(state).contains(target)) {
          sources.add(state);
        }
      }
      throw illegal(action, sources, actual);
    }
  }

  /** Checks a precondition that is not a transition, e.g. a lease renewal needs a batch in flight. */
  public static <E extends Enum<E>> void requireOneOf(String action, E actual, Set<E> expected) {
    if (!expected.contains(actual)) {
      throw illegal(action, expected, actual);
    }
  }

  /** Recovery may take a batch over only once its lease has run out (a live lease has an owner). */
  public static void requireLeaseExpired(String action, BatchRecord batch, Instant now) {
    Optional<Instant> lease = batch.leaseUntil();
    if (lease.isPresent() && lease.get().isAfter(now)) {
      throw new IllegalTransitionException(
          action + ": its lease runs until " + lease.get() + " (another batcher holds it)");
    }
  }

  /**
   * {@link Ledger#supersedeFile} and {@link Ledger#ignoreFile}: whether marking the file {@code
   * target} changes it. False when it is in that state already (the marks are idempotent: a job
   * run again marks the same files), true when the transition is allowed.
   *
   * @throws IllegalTransitionException naming the file and its state otherwise
   */
  public static boolean requireLeftOut(String action, FileState actual, FileState target) {
    if (actual == target) {
      return false;
    }
    requireTransition(action, actual, target, FileState::next);
    return true;
  }

  /**
   * {@link Ledger#reviveBatch}'s check of one of the batch's files: true when it is RECORDED (claimed
   * again), false when QUARANTINED, SUPERSEDED or IGNORED (left as it is).
   *
   * @throws IllegalTransitionException naming the file and its state otherwise
   */
  public static boolean requireRevivable(String action, String fileId, String uri, FileState state) {
    if (state == FileState.QUARANTINED || state == FileState.SUPERSEDED || state == FileState.IGNORED) {
      return false;
    }
    requireOneOf(action + ": its file " + fileId + " (" + uri + ") was claimed or loaded since",
        state, EnumSet.of(FileState.RECORDED));
    return true;
  }

  /**
   * {@link Ledger#reviveBatch}'s check of one of the batch's partitions: FAILED or READY.
   *
   * @throws IllegalTransitionException naming the partition and its state otherwise
   */
  public static void requireRevivable(String action, String table, String partition, PartitionState state) {
    requireOneOf(action + ": its partition " + table + "/" + partition + " was claimed or loaded since",
        state, PartitionState.RETRYABLE);
  }

  private static <E extends Enum<E>> IllegalTransitionException illegal(
      String action, Set<E> expected, E actual) {
    String names = expected.stream().map(Enum::name).collect(Collectors.joining(" or "));
    return new IllegalTransitionException(
        action + ": expected state " + (names.isEmpty() ? "none" : names) + ", actual " + actual.name());
  }
}
