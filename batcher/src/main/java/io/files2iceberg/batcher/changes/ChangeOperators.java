package io.files2iceberg.batcher.changes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.core.ledger.TableChange;
import java.util.List;
import java.util.Optional;

/**
 * Who made an operator's change, and why: the ledger keeps it ({@link TableChange}), the table does
 * not (an Iceberg rollback writes no snapshot of its own). A rollback in the feed is the ledger's
 * APPLIED rollback from and to the same snapshots; a dropped partition is the change of its id.
 */
final class ChangeOperators {
  private ChangeOperators() {}

  /** Adds {@code operator} ({@code changeId}, {@code actor}, {@code reason}, {@code hold}) to the feed's changes the ledger knows. */
  static void add(ChangesResult result, List<TableChange> ledgerChanges) {
    for (JsonNode change : result.changes()) {
      find(change, ledgerChanges).ifPresent(known -> ((ObjectNode) change).putObject("operator")
          .put("changeId", known.changeId()).put("actor", known.actor()).put("reason", known.reason().orElse(null))
          .put("hold", known.hold()));
    }
  }

  private static Optional<TableChange> find(JsonNode change, List<TableChange> ledgerChanges) {
    List<TableChange> applied = ledgerChanges.stream()
        .filter(c -> c.state() == TableChange.ChangeState.APPLIED).toList();
    return switch (change.path("change").asText()) {
      case "rollback" -> applied.stream().filter(c -> c.kind() == TableChange.ChangeKind.ROLLBACK)
          .filter(c -> c.fromSnapshot().map(String::valueOf).orElse("").equals(change.path("fromSnapshotId").asText()))
          .filter(c -> c.toSnapshot().map(String::valueOf).orElse("").equals(change.path("toSnapshotId").asText()))
          .reduce((first, later) -> later);
      case "drop-partition" -> applied.stream()
          .filter(c -> c.changeId().equals(change.path("changeId").asText())).findFirst();
      default -> Optional.empty();
    };
  }

  /** {@code   by ops@example.com: "amounts in cents"}, or nothing when the ledger does not know who. */
  static String describe(JsonNode change) {
    JsonNode operator = change.path("operator");
    if (!operator.isObject()) {
      return "";
    }
    return "  by " + operator.path("actor").asText()
        + (operator.path("reason").isTextual() ? ": \"" + operator.path("reason").asText() + "\"" : "");
  }
}
