package io.files2iceberg.core.manifest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.ledger.LedgerSchema;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What one run of the job did, and its one-line JSON form: the line the job prints on stdout (its
 * log) and the {@code report} of the {@link AttemptResult} it writes beside its manifest, which
 * is what the batcher reads. This class is the only place that writes or reads those fields:
 *
 * <pre>{@code
 * {"files2iceberg-metrics":{"table":"local.demo.clicks","batchId":"20240501T100000-ab12",
 *  "alreadyCommitted":false,"snapshotId":4242,"checkpoint":"committed","files":2,"bytes":2048,
 *  "rowsRead":10,"rowsFiltered":1,"rowsInserted":7,"rowsUpdated":2,"rowsUnchanged":0,
 *  "rowsRejected":0,"readMillis":900,"mergeMillis":1500,"commitMillis":40,"lagMillis":61000,"rowsDeleted":0,
 *  "quarantinedFiles":[],"rejectedTable":null,
 *  "fileRows":[{"fileId":"9f2c...","rowsRead":6,"rowsRejected":1,"rowsRescued":0,"columnsIgnored":0,
 *    "expectationsFailed":{"amount_positive":1}},...],
 *  "quality":{"amount_positive":{"onViolation":"reject","passed":9,"failed":1}}}}
 * }</pre>
 *
 * @param alreadyCommitted the table held the batch already; nothing was written and the metrics
 *     are zeros
 * @param snapshotId the Iceberg snapshot that holds the batch
 * @param checkpoint what became of the ledger checkpoint
 * @param checkpointError why the checkpoint failed, when it did
 * @param quarantinedFiles files of the batch that could not be read and were left out
 * @param rejectedTable where this run put bad records, when there were any
 * @param fileRows what the run counted per file it read, by file id (none when it wrote nothing,
 *     or was written before files were counted)
 * @param quality by expectation name ({@code quality.expectations}), in the profile's order, what
 *     each found; empty without expectations (or for a run that wrote nothing)
 */
public record BatchLoadReport(
    String table,
    String batchId,
    boolean alreadyCommitted,
    long snapshotId,
    Checkpoint checkpoint,
    Optional<String> checkpointError,
    BatchMetrics metrics,
    List<QuarantinedFile> quarantinedFiles,
    Optional<String> rejectedTable,
    Map<String, FileRows> fileRows,
    Map<String, ExpectationCounts> quality) {

  /** The key of the one-line JSON object. */
  public static final String METRICS_KEY = "files2iceberg-metrics";
  /** The key of the per-file counts in the report. */
  private static final String FILE_ROWS = "fileRows";
  /** The key of the per-expectation counts in the report. */
  private static final String QUALITY = "quality";


  public BatchLoadReport {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(batchId, "batchId");
    Objects.requireNonNull(checkpoint, "checkpoint");
    Objects.requireNonNull(checkpointError, "checkpointError");
    Objects.requireNonNull(metrics, "metrics");
    quarantinedFiles = List.copyOf(quarantinedFiles);
    Objects.requireNonNull(rejectedTable, "rejectedTable");
    fileRows = Collections.unmodifiableMap(new LinkedHashMap<>(fileRows));
    quality = Collections.unmodifiableMap(new LinkedHashMap<>(quality));
  }

  /** A report without expectations. */
  public BatchLoadReport(String table, String batchId, boolean alreadyCommitted, long snapshotId,
      Checkpoint checkpoint, Optional<String> checkpointError, BatchMetrics metrics,
      List<QuarantinedFile> quarantinedFiles, Optional<String> rejectedTable, Map<String, FileRows> fileRows) {
    this(table, batchId, alreadyCommitted, snapshotId, checkpoint, checkpointError, metrics, quarantinedFiles,
        rejectedTable, fileRows, Map.of());
  }

  /** A report without per-file counts. */
  public BatchLoadReport(String table, String batchId, boolean alreadyCommitted, long snapshotId,
      Checkpoint checkpoint, Optional<String> checkpointError, BatchMetrics metrics,
      List<QuarantinedFile> quarantinedFiles, Optional<String> rejectedTable) {
    this(table, batchId, alreadyCommitted, snapshotId, checkpoint, checkpointError, metrics, quarantinedFiles,
        rejectedTable, Map.of());
  }

  /** This report with its checkpoint (and the checkpoint's error) replaced. */
  public BatchLoadReport withCheckpoint(Checkpoint checkpoint, Optional<String> checkpointError) {
    return new BatchLoadReport(table, batchId, alreadyCommitted, snapshotId, checkpoint, checkpointError, metrics,
        quarantinedFiles, rejectedTable, fileRows, quality);
  }

  /** What became of the ledger checkpoint after the Iceberg commit. Codes are what the line says. */
  public enum Checkpoint {
    /** The batch is COMMITTED in the ledger now. */
    COMMITTED("committed"),
    /** The ledger had it COMMITTED with this snapshot already. */
    ALREADY_COMMITTED("already-committed"),
    /** The manifest says not to write one (backfill, mode full). */
    SKIPPED("skipped"),
    /** The ledger could not be written; the batcher's recovery finds the batch in the table. */
    FAILED("failed");

    private final String code;

    Checkpoint(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }

    static Checkpoint fromCode(String code) {
      for (Checkpoint checkpoint : values()) {
        if (checkpoint.code.equals(code)) {
          return checkpoint;
        }
      }
      throw new IllegalArgumentException("Unknown checkpoint \"" + code + "\"");
    }
  }

  /** The one-line JSON form. */
  public String toMetricsLine() {
    ObjectNode root = JsonCodec.MAPPER.createObjectNode();
    writeTo(root.putObject(METRICS_KEY));
    return JsonCodec.compact(root);
  }

  /** The report's fields as a node of their own: the attempt result's {@code report}. */
  ObjectNode toNode() {
    ObjectNode node = JsonCodec.MAPPER.createObjectNode();
    writeTo(node);
    return node;
  }

  /** The report's fields into {@code node}: the metrics line's object, also the attempt result's report. */
  void writeTo(ObjectNode node) {
    node.put("table", table);
    node.put("batchId", batchId);
    node.put("alreadyCommitted", alreadyCommitted);
    node.put("snapshotId", snapshotId);
    node.put("checkpoint", checkpoint.code());
    checkpointError.ifPresent(error -> node.put("checkpointError", error));
    metrics.toMap().forEach(node::put);
    ArrayNode files = node.putArray("quarantinedFiles");
    for (QuarantinedFile file : quarantinedFiles) {
      files.addObject().put("fileId", file.fileId()).put("uri", file.uri()).put("reason", file.reason());
    }
    if (rejectedTable.isPresent()) {
      node.put("rejectedTable", rejectedTable.get());
    } else {
      node.putNull("rejectedTable");
    }
    ArrayNode counted = node.putArray(FILE_ROWS);
    fileRows.forEach((fileId, rows) -> {
      ObjectNode file = counted.addObject().put("fileId", fileId);
      rows.toMap().forEach(file::put);
      if (!rows.expectationsFailed().isEmpty()) {
        ObjectNode failed = file.putObject(LedgerSchema.EXPECTATIONS_FAILED);
        rows.expectationsFailed().forEach(failed::put);
      }
    });
    ObjectNode expectations = node.putObject(QUALITY);
    quality.forEach((name, counts) -> expectations.putObject(name).put("onViolation", counts.onViolation())
        .put("passed", counts.passed()).put("failed", counts.failed()));
  }

  /** The report on a line of the job's stdout; empty for any other line. */
  public static Optional<BatchLoadReport> fromMetricsLine(String line) {
    String trimmed = line.trim();
    if (!trimmed.startsWith("{") || !trimmed.contains(METRICS_KEY)) {
      return Optional.empty();
    }
    JsonNode node;
    try {
      node = JsonCodec.MAPPER.readTree(trimmed).get(METRICS_KEY);
    } catch (JsonProcessingException e) {
      return Optional.empty();
    }
    if (node == null || !node.isObject()) {
      return Optional.empty();
    }
    try {
      return Optional.of(readFrom(node));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /**
   * A report from the fields {@link #writeTo} wrote.
   *
   * @throws IllegalArgumentException when its checkpoint code is unknown
   */
  static BatchLoadReport readFrom(JsonNode node) {
    Map<String, Long> values = new LinkedHashMap<>();
    for (BatchMetrics.Field field : BatchMetrics.Field.values()) {
      values.put(field.key(), node.path(field.key()).asLong());
    }
    BatchMetrics metrics = BatchMetrics.fromMap(values);
    List<QuarantinedFile> quarantined = new ArrayList<>();
    for (JsonNode file : node.path("quarantinedFiles")) {
      quarantined.add(new QuarantinedFile(file.path("fileId").asText(), file.path("uri").asText(),
          file.path("reason").asText()));
    }
    Map<String, FileRows> fileRows = new LinkedHashMap<>();
    for (JsonNode file : node.path(FILE_ROWS)) {
      Map<String, Object> counts = new LinkedHashMap<>();
      file.fields().forEachRemaining(field -> {
        if (field.getValue().isNumber()) {
          counts.put(field.getKey(), field.getValue().longValue());
        } else if (field.getKey().equals(LedgerSchema.EXPECTATIONS_FAILED) && field.getValue().isObject()) {
          Map<String, Long> failed = new LinkedHashMap<>();
          field.getValue().fields().forEachRemaining(e -> failed.put(e.getKey(), e.getValue().asLong()));
          counts.put(field.getKey(), failed);
        }
      });
      FileRows.fromMap(counts).ifPresent(rows -> fileRows.put(file.path("fileId").asText(), rows));
    }
    Map<String, ExpectationCounts> quality = new LinkedHashMap<>();
    node.path(QUALITY).fields().forEachRemaining(e -> quality.put(e.getKey(), new ExpectationCounts(
        e.getValue().path("onViolation").asText(), e.getValue().path("passed").asLong(),
        e.getValue().path("failed").asLong())));
    JsonNode rejected = node.get("rejectedTable");
    JsonNode error = node.get("checkpointError");
    return new BatchLoadReport(
        node.path("table").asText(),
        node.path("batchId").asText(),
        node.path("alreadyCommitted").asBoolean(),
        node.path("snapshotId").asLong(),
        Checkpoint.fromCode(node.path("checkpoint").asText()),
        error == null || error.isNull() ? Optional.empty() : Optional.of(error.asText()),
        metrics,
        quarantined,
        rejected == null || rejected.isNull() ? Optional.empty() : Optional.of(rejected.asText()),
        fileRows,
        quality);
  }
}
