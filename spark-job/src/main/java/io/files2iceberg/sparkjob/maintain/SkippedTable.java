package io.files2iceberg.sparkjob.maintain;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A table maintenance left alone, which is no failure: {@code "skipped":{"reason":...,"detail":...}}
 * in the result line.
 *
 * @param reason what is the matter with the table, such as {@code not created yet}
 * @param detail why, for the operator, such as {@code no batch has loaded it}
 */
record SkippedTable(String table, boolean dryRun, String reason, String detail) implements MaintainOutcome {

  /**
   * The catalog has no such table (or not even its namespace): the batch jobs create the table on
   * their first load, so before that there is nothing to maintain.
   */
  static SkippedTable notCreated(String table, boolean dryRun) {
    return new SkippedTable(table, dryRun, "not created yet", "no batch has loaded it");
  }

  @Override
  public void describe(ObjectNode body) {
    body.putObject("skipped").put("reason", reason).put("detail", detail);
  }
}
