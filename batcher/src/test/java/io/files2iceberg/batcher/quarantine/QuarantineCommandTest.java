package io.files2iceberg.batcher.quarantine;

import static io.files2iceberg.batcher.cli.OperatorLedger.TABLE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.cli.Files2Iceberg;
import io.files2iceberg.batcher.cli.JsonLinesOutput;
import io.files2iceberg.batcher.cli.OperatorLedger;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code quarantine list} and {@code quarantine release} on an embedded ledger and local files. */
class QuarantineCommandTest {
  private static final Instant RECEIVED = Instant.parse("2026-11-30T12:00:00Z");

  @TempDir Path home;
  @TempDir Path landing;
  @TempDir Path config;
  private OperatorLedger fixture;
  private final String d1File = LedgerSchema.fileId("", "landing/clicks/d1/part-0.csv", 1);
  private final String badFile = LedgerSchema.fileId("", "landing/clicks/d3/bad.csv", 1);

  @BeforeEach
  void ledger() {
    fixture = new OperatorLedger(home).write();
    try (SqliteLedger ledger = fixture.open()) {
      ledger.recordFile(new RecordFile(TABLE, "d3", "", "landing/clicks/d3/bad.csv", 1,
          "file:///landing/clicks/d3/bad.csv", 10, "evt-bad", Instant.now(), Optional.empty(), false));
      ledger.quarantineFile(badFile, "not UTF-8");
      ledger.quarantineMessage(new QuarantinedMessage("1001", "not a GCS notification", "{}", Optional.empty(),
          RECEIVED));
    }
  }

  private FileRecord file(String id) {
    try (SqliteLedger ledger = fixture.open()) {
      return ledger.file(id).orElseThrow();
    }
  }

  @Test
  void listShowsMessagesAndFilesWithTheirReasons() throws Exception {
    assertThat(fixture.run("quarantine", "list")).as(fixture.err.toString()).isZero();
    assertThat(fixture.out.toString()).isEqualTo("QUARANTINED MESSAGES (1)\n"
        + "  1001 received 2026-11-30T12:00:00Z object -: not a GCS notification\n"
        + "QUARANTINED FILES (1)\n"
        + "  " + TABLE + " d3 file:///landing/clicks/d3/bad.csv generation 1: not UTF-8 (file id "
        + LedgerSchema.fileId("", "landing/clicks/d3/bad.csv", 1) + ")\n");

    assertThat(fixture.run("quarantine", "list", "--json")).isZero();
    List<JsonNode> json = JsonLinesOutput.parse(fixture.out.toString());
    assertThat(JsonLinesOutput.kinds(json)).containsExactly("message", "file", "quarantine_summary");
    assertThat(json.get(0).get("messageId").asText()).isEqualTo("1001");
    assertThat(json.get(0).get("objectUri").isNull()).isTrue();
    assertThat(json.get(1).get("quarantineReason").asText()).isEqualTo("not UTF-8");
    assertThat(json.get(1).get("partition").asText()).isEqualTo("d3");
    assertThat(json.get(2).get("messages").asInt()).isEqualTo(1);
    assertThat(json.get(2).get("files").asInt()).isEqualTo(1);
  }

  @Test
  void releasedFileOfAnIngestedPartitionMakesItReadyAgain() throws Exception {
    try (SqliteLedger ledger = fixture.open()) {
      // d3 is loaded without its quarantined file.
      BatchRecord batch = ledger.claimPartitions(new ClaimPartitions(TABLE, 10, Duration.ofMinutes(5), true))
          .orElseThrow();
      ledger.commitBatch(new CommitBatch(batch.batchId(), 77, BatchMetrics.EMPTY));
      assertThat(ledger.partition(TABLE, "d3").orElseThrow().state()).isEqualTo(PartitionState.INGESTED);
    }

    assertThat(fixture.run("quarantine", "release", "--file", "/landing/clicks/d3/bad.csv", "--dry-run")).isZero();
    assertThat(fixture.out.toString()).startsWith("Would release file:///landing/clicks/d3/bad.csv generation 1:"
        + " QUARANTINED").endsWith("Dry run: nothing changed.\n");
    assertThat(file(badFile).state()).isEqualTo(FileState.QUARANTINED);

    assertThat(fixture.run("quarantine", "release", "--file", badFile, "--json")).as(fixture.err.toString()).isZero();
    List<JsonNode> json = JsonLinesOutput.parse(fixture.out.toString());
    assertThat(JsonLinesOutput.kinds(json)).containsExactly("file", "release_summary");
    assertThat(json.get(1).get("dryRun").asBoolean()).isFalse();
    assertThat(json.get(0).get("state").asText()).isEqualTo("recorded");
    assertThat(json.get(0).get("quarantineReason").isNull()).isTrue();
    assertThat(file(badFile).state()).isEqualTo(FileState.RECORDED);
    try (SqliteLedger ledger = fixture.open()) {
      assertThat(ledger.partition(TABLE, "d3").orElseThrow().state()).isEqualTo(PartitionState.READY);
    }
  }

  @Test
  void releasingAFileThatIsNotQuarantinedOrUnknownExitsTwo() {
    assertThat(fixture.run("quarantine", "release", "--file", OperatorLedger.uri("d1", 0))).isEqualTo(2);
    assertThat(fixture.err.toString()).isEqualTo("error: file " + OperatorLedger.uri("d1", 0)
        + " is not quarantined (generation(s) [1 INGESTED])\n");
    assertThat(fixture.run("quarantine", "release", "--file", "gs://landing/none.csv")).isEqualTo(2);
    assertThat(fixture.err.toString()).isEqualTo("error: no file gs://landing/none.csv in the ledger\n");
  }

  @Test
  void releasedMessageRecordsItsObjectAsTheListenerWouldThenIsDeleted() throws Exception {
    Path data = Files.createDirectories(landing.resolve("clicks/d9")).resolve("part-0.csv");
    Files.writeString(data, "id,name\n1,a\n");
    Files.writeString(config.resolve("clicks.conf"), "extract { path = \"file://" + landing
        + "/clicks/*/*.csv\", format = csv, batch-file.success-file-filter = false }\n"
        + "load.iceberg.table = \"" + TABLE + "\"\n");
    try (SqliteLedger ledger = fixture.open()) {
      ledger.quarantineMessage(new QuarantinedMessage("2002", "ledger.collection-prefix fixed since", "{}",
          Optional.of("file://" + data), RECEIVED));
    }

    assertThat(fixture.run("quarantine", "release", "--message", "2002", "--config", config.toString(), "--dry-run"))
        .as(fixture.err.toString()).isZero();
    assertThat(fixture.out.toString()).isEqualTo("Message 2002: would record file://" + data + " generation "
        + Files.getLastModifiedTime(data).to(TimeUnit.MICROSECONDS) + " in table " + TABLE
        + " partition d9; dry run: nothing changed.\n");
    assertThat(fixture.run("quarantine", "release", "--message", "2002", "--config", config.toString(), "--dry-run",
        "--json")).as(fixture.err.toString()).isZero();
    JsonNode dryRun = JsonLinesOutput.one("message_release_summary", JsonLinesOutput.parse(fixture.out.toString()));
    assertThat(dryRun.at("/message/messageId").asText()).isEqualTo("2002");
    assertThat(dryRun.get("deleted").asBoolean()).isFalse();

    assertThat(fixture.run("quarantine", "release", "--message", "2002", "--config", config.toString()))
        .as(fixture.err.toString()).isZero();

    assertThat(fixture.out.toString()).startsWith("Message 2002: recorded file://" + data)
        .endsWith("in table " + TABLE + " partition d9 (READY); its quarantine record is deleted.\n");
    try (SqliteLedger ledger = fixture.open()) {
      List<FileRecord> recorded = ledger.filesNamed("", data.toString().substring(1));
      assertThat(recorded).hasSize(1);
      assertThat(recorded.get(0).generation()).isEqualTo(Files.getLastModifiedTime(data).to(TimeUnit.MICROSECONDS));
      assertThat(recorded.get(0).eventId()).isEqualTo("2002");
      assertThat(recorded.get(0).size()).isEqualTo(Files.size(data));
      assertThat(ledger.partition(TABLE, "d9").orElseThrow().state()).isEqualTo(PartitionState.READY);
      assertThat(ledger.quarantinedMessages()).extracting(QuarantinedMessage::messageId).containsExactly("1001");
    }
  }

  @Test
  void releasedMarkerMessageRecordsItsFolderThenMarksThePartitionReady() throws Exception {
    Path folder = Files.createDirectories(landing.resolve("clicks/d8"));
    Files.writeString(folder.resolve("part-0.csv"), "id\n1\n");
    Files.writeString(folder.resolve("part-1.csv"), "id\n2\n");
    Files.writeString(folder.resolve("_SUCCESS"), "");
    Files.writeString(config.resolve("clicks.conf"), "extract { path = \"file://" + landing
        + "/clicks/*/*.csv\", format = csv }\nload.iceberg.table = \"" + TABLE + "\"\n");
    try (SqliteLedger ledger = fixture.open()) {
      ledger.quarantineMessage(new QuarantinedMessage("3003", "listing failed: permission denied", "{}",
          Optional.of("file://" + folder.resolve("_SUCCESS")), RECEIVED));
    }

    assertThat(fixture.run("quarantine", "release", "--message", "3003", "--config", config.toString()))
        .as(fixture.err.toString()).isZero();

    assertThat(fixture.out.toString()).isEqualTo("Message 3003: recorded 2 new data file(s) of file://" + folder
        + "/; table " + TABLE + " partition d8 is READY; its quarantine record is deleted.\n");
    try (SqliteLedger ledger = fixture.open()) {
      assertThat(ledger.filesOfPartition(TABLE, "d8")).extracting(FileRecord::eventId)
          .containsExactly("listing:3003", "listing:3003");
    }
  }

  @Test
  void messageWithoutAnObjectNeedsDiscardAndReleaseNeedsConfig() throws Exception {
    Files.writeString(config.resolve("clicks.conf"), "extract { path = \"file://" + landing
        + "/clicks/*/*.csv\", format = csv }\nload.iceberg.table = \"" + TABLE + "\"\n");

    assertThat(fixture.run("quarantine", "release", "--message", "1001")).isEqualTo(2);
    assertThat(fixture.err.toString()).contains("--config: required");
    assertThat(fixture.run("quarantine", "release", "--message", "1001", "--config", config.toString()))
        .isEqualTo(1);
    assertThat(fixture.err.toString()).isEqualTo(
        "error: cannot release message 1001: it names no object; pass --discard to delete it\n");
    assertThat(fixture.run("quarantine", "release", "--message", "9999", "--config", config.toString()))
        .isEqualTo(2);
    assertThat(fixture.err.toString()).isEqualTo("error: no quarantined message 9999 in the ledger\n");

    assertThat(fixture.run("quarantine", "release", "--message", "1001", "--discard", "--config",
        config.toString())).isZero();
    assertThat(fixture.out.toString()).isEqualTo(
        "Message 1001: discarded (it names no object); its quarantine record is deleted.\n");
    try (SqliteLedger ledger = fixture.open()) {
      assertThat(ledger.quarantinedMessages()).isEmpty();
    }
  }

  @Test
  void homeMayAlsoComeBeforeTheSubcommand() {
    CommandLine commandLine = Files2Iceberg.newCommandLine();
    StringWriter out = new StringWriter();
    commandLine.setOut(new PrintWriter(out, true));

    assertThat(commandLine.execute("quarantine", "--home", home.toString(), "list")).isZero();
    assertThat(out.toString()).contains("QUARANTINED FILES (1)");
  }

  @Test
  void releaseTakesExactlyOneOfFileOrMessage() {
    assertThat(fixture.run("quarantine", "release", "--file", "x", "--message", "1")).isEqualTo(2);
    assertThat(fixture.err.toString()).contains("mutually exclusive");
    assertThat(fixture.run("quarantine", "release", "--file", d1File, "--discard")).isEqualTo(2);
    assertThat(fixture.err.toString()).contains("--discard goes with --message");
    assertThat(fixture.run("quarantine")).isEqualTo(2);
  }
}
