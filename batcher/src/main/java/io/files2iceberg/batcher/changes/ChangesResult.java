package io.files2iceberg.batcher.changes;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.engine.launch.MainRuns;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The result line of {@code io.files2iceberg.sparkjob.change.ChangesMain}, {@code
 * {"files2iceberg-changes":{...}}}: the changes, each the JSON object {@code changes --json}
 * prints as it is (docs/reference/json/changes.schema.json), the count of other snapshots, the
 * current snapshot; or why the main refused the start.
 */
public record ChangesResult(JsonNode body) {
  static final String KEY = "files2iceberg-changes";

  /** The last result line of the text, if any. */
  public static Optional<ChangesResult> lastIn(String text) {
    return MainRuns.lastResult(text, KEY).map(ChangesResult::new);
  }

  /** Why the main listed nothing: the start snapshot is unknown or expired, or the table does not exist. */
  public Optional<String> refused() {
    JsonNode refused = body.path("refused");
    return refused.isTextual() ? Optional.of(refused.asText()) : Optional.empty();
  }

  /** The changes, oldest first. */
  public List<JsonNode> changes() {
    List<JsonNode> changes = new ArrayList<>();
    body.path("changes").forEach(changes::add);
    return changes;
  }

  /** The snapshots after the start that files2iceberg did not write (maintenance, other writers) or that are expired. */
  public int other() {
    return body.path("other").asInt();
  }

  /** The table's current snapshot id, as its decimal string; empty for a table without one. */
  public Optional<String> currentSnapshotId() {
    JsonNode current = body.path("currentSnapshotId");
    return current.isTextual() ? Optional.of(current.asText()) : Optional.empty();
  }
}
