package io.files2iceberg.batcher.status;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.cli.ExitCode;
import io.files2iceberg.batcher.cli.Files2Iceberg;
import io.files2iceberg.batcher.cli.JsonLinesOutput;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.FailBatch;
import io.files2iceberg.core.ledger.FailureCause;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code status} over a ledger written through the ledger's own API. */
class StatusCommandTest {
  private static final String TABLE = "local.demo.clicks";

  @TempDir Path home;
  @TempDir Path config;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    return commandLine.execute(args);
  }

  /** d1 committed (snapshot 4242), d2 failed for good, d3 waiting: one of each. */
  private void ledger() {
    try (SqliteLedger ledger = SqliteLedger.open(home.resolve("ledger.db"), Clock.systemUTC())) {
      for (String partition : new String[] {"d1", "d2", "d3"}) {
        for (int i = 0; i < 2; i++) {
          String name = "landing/clicks/" + partition + "/part-" + i + ".csv";
          ledger.recordFile(new RecordFile(TABLE, partition, "", name, 1, "file:///" + name, 10, partition + i,
              Instant.now(), Optional.empty(), false));
        }
        ledger.markReady(new MarkReady(TABLE, partition, "file:///landing/clicks/" + partition + "/", "m" + partition,
            Instant.now()));
      }
      BatchRecord first = ledger.claimPartitions(new ClaimPartitions(TABLE, 2, Duration.ofMinutes(5), true)).orElseThrow();
      ledger.markRunning(first.batchId(), Duration.ofMinutes(5));
      ledger.commitBatch(new CommitBatch(first.batchId(), 4242, new BatchMetrics(2, 20, 4, 0, 3, 1, 0, 0, 1, 1, 1, 1, 2)));
      BatchRecord second = ledger.claimPartitions(new ClaimPartitions(TABLE, 2, Duration.ofMinutes(5), true)).orElseThrow();
      ledger.failBatch(new FailBatch(second.batchId(), "files2iceberg: table local.demo.clicks batch x rejected: bad value", 1, false,
          Optional.of(new FailureCause("org.apache.parquet.io.ParquetDecodingException",
              Optional.of("file:///landing/d2/b [1].parquet")))));
    }
  }

  @Test
  void humanStatusHasOneRowPerTableAndTheFailuresWithTheirErrors() {
    ledger();

    int exit = run("status", "--home", home.toString());

    assertThat(exit).as(err.toString()).isEqualTo(ExitCode.ATTENTION);
    String[] lines = out.toString().split("\n");
    assertThat(lines[0]).matches("TABLE +PARTITIONS +FILES +IN FLIGHT +LAST COMMIT +LAG");
    assertThat(lines[1]).startsWith(TABLE + "  ").contains("ready 1, ingested 1, failed 1")
        .contains("recorded 4, ingested 2").contains(" - ").contains(" snapshot 4242 (").matches(".* \\d+s$");
    assertThat(out.toString()).contains("FAILED PARTITIONS (retried only by an operator)\n  " + TABLE
        + " d2: failed after 1 attempt(s): files2iceberg: table local.demo.clicks batch x rejected: bad value");
    assertThat(out.toString()).contains("FAILED BATCHES (newest first)");
    assertThat(out.toString()).contains("rejected: bad value [org.apache.parquet.io.ParquetDecodingException, file"
        + " file:///landing/d2/b [1].parquet]");
  }

  @Test
  void supersededAndIgnoredFilesAreCounted() {
    ledger();
    try (SqliteLedger ledger = SqliteLedger.open(home.resolve("ledger.db"), Clock.systemUTC())) {
      List<FileRecord> waiting = ledger.filesOfPartition(TABLE, "d3");
      ledger.supersedeFile(waiting.get(0).fileId(), "deleted before it was read");
      ledger.ignoreFile(waiting.get(1).fileId(), "generation 1 of the object is INGESTED");
    }

    int exit = run("status", "--home", home.toString());

    assertThat(exit).as(err.toString()).isEqualTo(ExitCode.ATTENTION);
    assertThat(out.toString().split("\n")[1]).contains("recorded 2, ingested 2, superseded 1, ignored 1");
  }

  @Test
  void jsonStatusHasTheSameFactsForScripts() throws Exception {
    ledger();
    Files.writeString(config.resolve("clicks.conf"), """
        extract { path = "file:///landing/clicks/*/*.csv", format = csv, batch-file.ingestion-type = last }
        load.iceberg.table = "local.demo.clicks"
        """);
    Files.writeString(config.resolve("views.conf"), """
        extract { path = "file:///landing/views/*/*.csv", format = csv }
        load.iceberg.table = "local.demo.views"
        """);

    int exit = run("status", "--config", config.toString(), "--home", home.toString(), "--json");

    assertThat(exit).as(err.toString()).isEqualTo(ExitCode.ATTENTION);
    // A table_status line per table, then the summary.
    List<JsonNode> json = JsonLinesOutput.parse(out.toString());
    assertThat(JsonLinesOutput.kinds(json)).containsExactly("table_status", "table_status", "status_summary");
    assertThat(json.get(2).get("quarantinedMessages").asInt()).isZero();
    assertThat(json.get(2).get("tables").asInt()).isEqualTo(2);
    JsonNode clicks = json.get(0);
    assertThat(clicks.get("table").asText()).isEqualTo(TABLE);
    assertThat(clicks.get("profile").asText()).isEqualTo("clicks");
    assertThat(clicks.get("mode").asText()).isEqualTo("last");
    assertThat(clicks.get("partitions").toString()).isEqualTo("{\"ready\":1,\"ingested\":1,\"failed\":1}");
    assertThat(clicks.get("files").toString()).isEqualTo("{\"recorded\":4,\"ingested\":2}");
    assertThat(clicks.get("inFlight")).isEmpty();
    assertThat(clicks.at("/lastCommit/snapshotId").textValue()).isEqualTo("4242");
    assertThat(clicks.at("/lastCommit/partitions/0").asText()).isEqualTo("d1");
    assertThat(clicks.at("/lastCommit/rowsInserted").asLong()).isEqualTo(3);
    assertThat(clicks.at("/lastCommit/rowsDeleted").asLong()).isEqualTo(2);
    assertThat(clicks.get("lagSeconds").isNumber()).isTrue();
    assertThat(clicks.at("/failedPartitions/0/partition").asText()).isEqualTo("d2");
    assertThat(clicks.at("/failedPartitions/0/error").asText()).endsWith("rejected: bad value");
    assertThat(clicks.at("/failedBatches/0/state").asText()).isEqualTo("failed");
    assertThat(clicks.at("/failedBatches/0/errorClass").asText())
        .isEqualTo("org.apache.parquet.io.ParquetDecodingException");
    assertThat(clicks.at("/failedBatches/0/errorFile").asText()).isEqualTo("file:///landing/d2/b [1].parquet");
    // A profile's table the ledger does not know yet is listed with nothing in it.
    JsonNode views = json.get(1);
    assertThat(views.get("table").asText()).isEqualTo("local.demo.views");
    assertThat(views.get("partitions")).isEmpty();
    assertThat(views.get("lastCommit").isNull()).isTrue();
  }

  @Test
  void statusReadsTheLedgerTheDeploymentFileBesideTheProfilesOrNamedByTheOptionNames() throws Exception {
    ledger();
    Path elsewhere = Files.createDirectories(config.resolve("elsewhere")).resolve("ledger.db");
    Files.move(home.resolve("ledger.db"), elsewhere);
    Files.writeString(config.resolve("clicks.conf"), """
        extract { path = "file:///landing/clicks/*/*.csv", format = csv }
        load.iceberg.table = "local.demo.clicks"
        """);
    Path deployment = Files.writeString(config.resolve("elsewhere").resolve("prod.conf"),
        "ledger.sqlite-path = \"" + elsewhere.toString().replace("\\", "\\\\") + "\"\n");

    int named = run("status", "--config", config.toString(), "--deployment", deployment.toString(),
        "--home", home.toString(), "--json");
    assertThat(named).as(err.toString()).isEqualTo(ExitCode.ATTENTION);
    assertThat(JsonLinesOutput.parse(out.toString()).get(0).at("/lastCommit/snapshotId").textValue())
        .isEqualTo("4242");

    Files.copy(deployment, config.resolve("deployment.conf"));
    out.getBuffer().setLength(0);
    int beside = run("status", "--config", config.toString(), "--home", home.toString(), "--json");
    assertThat(beside).as(err.toString()).isEqualTo(ExitCode.ATTENTION);
    assertThat(JsonLinesOutput.parse(out.toString()).get(0).at("/lastCommit/snapshotId").textValue())
        .isEqualTo("4242");
  }

  @Test
  void oneTableOnly() {
    ledger();

    assertThat(run("status", "--home", home.toString(), "--table", TABLE)).isEqualTo(ExitCode.ATTENTION);
    assertThat(out.toString()).contains(TABLE);
    assertThat(run("status", "--home", home.toString(), "--table", "local.demo.nope")).isEqualTo(2);
    assertThat(err.toString()).contains("error: no table local.demo.nope in the ledger");
  }

  @Test
  void noLedgerInTheHomeIsAConfigurationError() {
    int exit = run("status", "--home", home.toString());

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).contains(home.resolve("ledger.db") + ": no embedded ledger");
    assertThat(home.resolve("ledger.db")).doesNotExist();
  }

  @Test
  void aFailedPartitionExitsFiveAndSaysWhyOnStderrUnlessExitZeroIsAsked() {
    ledger();

    int exit = run("status", "--home", home.toString());

    assertThat(exit).isEqualTo(5).isEqualTo(ExitCode.ATTENTION);
    assertThat(err.toString()).contains("attention: 1 partition(s) FAILED (" + TABLE + " d2)");
    assertThat(out.toString()).contains("FAILED PARTITIONS");

    err.getBuffer().setLength(0);
    assertThat(run("status", "--home", home.toString(), "--json", "--exit-zero")).as(err.toString()).isZero();
    assertThat(err.toString()).isEmpty();
  }

  @Test
  void aLedgerWithNothingFailedOrStoppedExitsZero() {
    try (SqliteLedger ledger = SqliteLedger.open(home.resolve("ledger.db"), Clock.systemUTC())) {
      String name = "landing/clicks/d1/part-0.csv";
      ledger.recordFile(new RecordFile(TABLE, "d1", "", name, 1, "file:///" + name, 10, "m0", Instant.now(),
          Optional.empty(), false));
      ledger.markReady(new MarkReady(TABLE, "d1", "file:///landing/clicks/d1/", "md1", Instant.now()));
    }

    int exit = run("status", "--home", home.toString());

    assertThat(exit).as(err.toString()).isZero();
    assertThat(err.toString()).isEmpty();
  }

  @Test
  void aTableStoppedByAFileThatMissesItsStrictPatternExitsFive() throws Exception {
    Files.writeString(config.resolve("clicks.conf"), """
        extract {
          path = "file:///landing/clicks/*/*.csv", format = csv
          batch-file { pattern = ".*/dt=([^/]+)/[^/]+", strict-pattern = true }
        }
        load.iceberg.table = "local.demo.clicks"
        """);
    try (SqliteLedger ledger = SqliteLedger.open(home.resolve("ledger.db"), Clock.systemUTC())) {
      ledger.quarantineMessage(new QuarantinedMessage("m-bad", "does not match the pattern", "{}",
          Optional.of("file:///landing/clicks/nodate/a.csv"), Instant.now()));
    }

    int exit = run("status", "--config", config.toString(), "--home", home.toString());

    assertThat(exit).as(out.toString()).isEqualTo(ExitCode.ATTENTION);
    assertThat(out.toString()).contains("STOPPED TABLES");
    assertThat(err.toString()).contains("attention: 1 table(s) STOPPED (" + TABLE + ")");
  }
}
