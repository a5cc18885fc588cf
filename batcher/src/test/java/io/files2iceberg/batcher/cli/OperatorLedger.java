package io.files2iceberg.batcher.cli;

import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.FailBatch;
import io.files2iceberg.core.ledger.FailureCause;
import io.files2iceberg.core.ledger.FileRows;
import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine;

/**
 * The operator command tests' ledger, written through the ledger's own API in a temp home:
 * partition d1 committed (snapshot 4242; its part-0 with 3 rows read and 1 rejected, its rows
 * failing expectations {@link #EXPECTATIONS_FAILED}; its part-1 with counts unknown), d2 FAILED by batch {@link #failedBatch} (its error
 * {@link #ERROR}), d3 READY; and a command line capturing out and err.
 */
public final class OperatorLedger {
  public static final String TABLE = "local.demo.clicks";
  public static final String ERROR = "files2iceberg: table local.demo.clicks batch rejected: Parquet footer unreadable";
  /** The failed batch's cause: its second file is at fault. */
  public static final FailureCause CAUSE = new FailureCause("org.apache.parquet.io.ParquetDecodingException",
      Optional.of(uri("d2", 1)));

  /** What d1's part-0 violated: 1 row amount_positive (rejected), 2 rows email_set. */
  public static final Map<String, Long> EXPECTATIONS_FAILED = Map.of("amount_positive", 1L, "email_set", 2L);

  public final Path home;
  public final StringWriter out = new StringWriter();
  public final StringWriter err = new StringWriter();
  public String committedBatch;
  public String failedBatch;

  public OperatorLedger(Path home) {
    this.home = home;
  }

  public SqliteLedger open() {
    return SqliteLedger.open(home.resolve("ledger.db"), Clock.systemUTC());
  }

  public static String uri(String partition, int i) {
    return "file:///landing/clicks/" + partition + "/part-" + i + ".csv";
  }

  public OperatorLedger write() {
    try (SqliteLedger ledger = open()) {
      for (String partition : new String[] {"d1", "d2", "d3"}) {
        for (int i = 0; i < 2; i++) {
          String name = "landing/clicks/" + partition + "/part-" + i + ".csv";
          ledger.recordFile(new RecordFile(TABLE, partition, "", name, 1, uri(partition, i), 10,
              "evt-" + partition + i, Instant.now(), Optional.empty(), false));
        }
        ledger.markReady(new MarkReady(TABLE, partition, "file:///landing/clicks/" + partition + "/",
            "m" + partition, Instant.now()));
      }
      BatchRecord first = ledger.claimPartitions(new ClaimPartitions(TABLE, 2, Duration.ofMinutes(5), true)).orElseThrow();
      ledger.markRunning(first.batchId(), Duration.ofMinutes(5));
      // part-0 counted by the job (one row rejected); part-1 as a file loaded before files were counted.
      ledger.commitBatch(new CommitBatch(first.batchId(), 4242, new BatchMetrics(2, 20, 4, 0, 3, 1, 0, 1, 1, 1, 1, 1),
          Map.of(first.fileIds().get(0), new FileRows(3, 1, 0, 0, EXPECTATIONS_FAILED))));
      committedBatch = first.batchId();
      BatchRecord second = ledger.claimPartitions(new ClaimPartitions(TABLE, 2, Duration.ofMinutes(5), true)).orElseThrow();
      ledger.failBatch(new FailBatch(second.batchId(), ERROR, 1, false, Optional.of(CAUSE)));
      failedBatch = second.batchId();
    }
    return this;
  }

  public int run(String... args) {
    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
    CommandLine commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    String[] withHome = new String[args.length + 2];
    System.arraycopy(args, 0, withHome, 0, args.length);
    withHome[args.length] = "--home";
    withHome[args.length + 1] = home.toString();
    return commandLine.execute(withHome);
  }
}
