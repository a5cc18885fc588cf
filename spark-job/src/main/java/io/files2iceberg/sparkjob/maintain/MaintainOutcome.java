package io.files2iceberg.sparkjob.maintain;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;

/**
 * How one table's maintenance ended without failing: maintained ({@link MaintainReport}) or left
 * alone ({@link SkippedTable}). Either is the run's one result line, {@code
 * {"files2iceberg-maintain":{"table":...,"dryRun":...,...}}}, which {@code bin/files2iceberg
 * maintain} parses for its summary.
 */
sealed interface MaintainOutcome permits MaintainReport, SkippedTable {
  String KEY = "files2iceberg-maintain";

  String table();

  boolean dryRun();

  /** Adds what this outcome says after {@code table} and {@code dryRun}. */
  void describe(ObjectNode body);

  /** The result line. */
  default String toLine() {
    ObjectMapper json = new ObjectMapper();
    ObjectNode root = json.createObjectNode();
    ObjectNode body = root.putObject(KEY);
    body.put("table", table());
    body.put("dryRun", dryRun());
    describe(body);
    try {
      return json.writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("cannot render the maintenance result of " + table(), e);
    }
  }
}
