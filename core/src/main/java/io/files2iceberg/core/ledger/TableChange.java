package io.files2iceberg.core.ledger;

import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * An operator's change to a table and its ledger ({@code rollback}, {@code drop-partition}),
 * written down as INTENDED before either is touched, so that a run killed between the table and
 * the ledger is finished by running it again: the table first (the change's main finds its own
 * work done, by the target snapshot or by {@code files2iceberg.change-id} in the ancestry), then
 * the ledger ({@link Ledger#applyChange}). While a table has an INTENDED change, no batch of it is
 * claimed. Kept once APPLIED or ABANDONED: who changed what, when and why.
 *
 * @param changeId {@code rollback-<UTC time>-<8 hex>} or {@code drop-...} ({@link BatchIds#of})
 * @param fromSnapshot the table's current snapshot when the change was planned: the table side
 *     applies only while it is still current (a rollback), empty for an empty table
 * @param toSnapshot a rollback's target snapshot
 * @param batchIds the batches a rollback undoes: those committed after {@code toSnapshot}
 * @param undoneChanges the earlier changes (drops) a rollback undoes
 * @param partitions the partitions it changes: of the batches undone and drops undone, or the one
 *     dropped
 * @param hold a rollback's {@code --hold}: its partitions go to HELD rather than READY
 * @param actor who asked (the operating system user, or {@code --actor})
 * @param outcome what applying it found, or why it was abandoned
 */
public record TableChange(
    String changeId,
    String table,
    ChangeKind kind,
    ChangeState state,
    Optional<Long> fromSnapshot,
    Optional<Long> toSnapshot,
    List<String> batchIds,
    List<String> undoneChanges,
    List<String> partitions,
    boolean hold,
    String actor,
    Optional<String> reason,
    Optional<String> outcome,
    Instant createdAt,
    Instant updatedAt) {

  public TableChange {
    Objects.requireNonNull(changeId, "changeId");
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(fromSnapshot, "fromSnapshot");
    Objects.requireNonNull(toSnapshot, "toSnapshot");
    batchIds = List.copyOf(batchIds);
    undoneChanges = List.copyOf(undoneChanges);
    partitions = List.copyOf(partitions);
    Objects.requireNonNull(actor, "actor");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(outcome, "outcome");
  }

  /** What kind of change. Stored by {@link #code()}. */
  public enum ChangeKind {
    ROLLBACK("rollback"),
    DROP_PARTITION("drop-partition");

    private final String code;

    ChangeKind(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }

    public static ChangeKind fromCode(String code) {
      return States.fromCode(ChangeKind.class, code, ChangeKind::code);
    }
  }

  /** Where the change stands. Stored by {@link #code()}, never by ordinal. */
  public enum ChangeState {
    /** Written down; the table may or may not be changed yet; claims of the table wait. */
    INTENDED("intended"),
    /** The table and the ledger are both changed. */
    APPLIED("applied"),
    /** Given up before the table changed (it had moved on, or the operator abandoned it). */
    ABANDONED("abandoned");

    private final String code;

    ChangeState(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }

    public Set<ChangeState> next() {
      return this == INTENDED ? EnumSet.of(APPLIED, ABANDONED) : EnumSet.noneOf(ChangeState.class);
    }

    public static ChangeState fromCode(String code) {
      return States.fromCode(ChangeState.class, code, ChangeState::code);
    }
  }

  /** This change in another state, with what it found, at {@code now}. */
  public TableChange moved(ChangeState target, Optional<String> outcome, Instant now) {
    States.requireTransition("Cannot move " + kind.code() + " " + changeId + " of table " + table, state, target,
        ChangeState::next);
    return new TableChange(changeId, table, kind, target, fromSnapshot, toSnapshot, batchIds, undoneChanges,
        partitions, hold, actor, reason, outcome, createdAt, now);
  }
}
