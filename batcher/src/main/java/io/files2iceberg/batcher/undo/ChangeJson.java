package io.files2iceberg.batcher.undo;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.batcher.output.JsonLines;
import io.files2iceberg.core.ledger.TableChange;

/** An operator's change as the CLI prints it in JSON: every field, ids as strings where JSON numbers would round. */
final class ChangeJson {
  private ChangeJson() {}

  static ObjectNode of(TableChange change) {
    ObjectNode node = JsonLines.object();
    node.put("changeId", change.changeId());
    node.put("table", change.table());
    node.put("kind", change.kind().code());
    node.put("state", change.state().code());
    node.put("fromSnapshot", change.fromSnapshot().map(String::valueOf).orElse(null));
    node.put("toSnapshot", change.toSnapshot().map(String::valueOf).orElse(null));
    change.batchIds().forEach(node.putArray("batchIds")::add);
    change.undoneChanges().forEach(node.putArray("undoneChanges")::add);
    change.partitions().forEach(node.putArray("partitions")::add);
    node.put("hold", change.hold());
    node.put("actor", change.actor());
    node.put("reason", change.reason().orElse(null));
    node.put("outcome", change.outcome().orElse(null));
    node.put("createdAt", change.createdAt().toString());
    node.put("updatedAt", change.updatedAt().toString());
    return node;
  }
}
