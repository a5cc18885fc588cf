package io.files2iceberg.batcher.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.files2iceberg.core.ledger.BatchMetrics;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import io.files2iceberg.core.match.ObjectLocation;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * What the tests of {@code replay}, {@code backfill} and {@code reconcile} share: a landing folder,
 * its profile and the embedded ledger, without Spark, and the command line capturing out and err.
 * Notified files are recorded the way the listener records them (its identity, READY by marker).
 */
public abstract class OperatorCommandsFixture {
  protected static final String TABLE = "local.test.clicks";
  protected static final ObjectMapper JSON = new ObjectMapper();

  @TempDir protected Path dir;
  protected Path home;
  protected Path landing;
  protected Path config;
  protected StringWriter out;
  protected StringWriter err;
  private Instant nextTime = Instant.now().minusSeconds(3600);

  @BeforeEach
  protected void deployment() throws IOException {
    home = dir.resolve("home");
    landing = Files.createDirectories(dir.resolve("landing"));
    config = dir.resolve("clicks.conf");
    Files.writeString(config, """
        extract {
          path = "file://%s/clicks/dt=*/*.csv"
          format = csv
          batch-file {
            partition-type = date
            pattern = ".+/dt=(\\\\d{8})/.+"
            date-format = "yyyyMMdd"
          }
        }
        load.iceberg.table = "%s"
        load.primary-key = [id]
        """.formatted(landing, TABLE));
  }

  protected int run(String... args) {
    out = new StringWriter();
    err = new StringWriter();
    CommandLine commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    return commandLine.execute(args);
  }

  protected int command(String name, String... more) {
    String[] args = new String[more.length + 5];
    args[0] = name;
    args[1] = "--config";
    args[2] = config.toString();
    args[3] = "--home";
    args[4] = home.toString();
    System.arraycopy(more, 0, args, 5, more.length);
    return run(args);
  }

  /** Writes a landing file; each write gets a later modification time, so a new generation. */
  protected Path write(String partition, String file, String content) throws IOException {
    Path path = landing.resolve("clicks/dt=" + partition + "/" + file);
    Files.createDirectories(path.getParent());
    Files.writeString(path, content);
    nextTime = nextTime.plusSeconds(1);
    Files.setLastModifiedTime(path, FileTime.from(nextTime));
    return path;
  }

  protected SqliteLedger ledger() {
    return SqliteLedger.open(home.resolve("ledger.db"), Clock.systemUTC());
  }

  /** As the listener records a notified data file. */
  protected static String notified(SqliteLedger ledger, String token, Path file) throws IOException {
    ObjectLocation object = ObjectLocation.file(file);
    return ledger.recordFile(new RecordFile(TABLE, token, "", object.name(),
        Files.getLastModifiedTime(file).to(TimeUnit.MICROSECONDS), object.uri(), Files.size(file),
        "msg-" + file.getFileName(), Instant.now(), Optional.empty(), false)).file().fileId();
  }

  protected static void notifiedMarker(SqliteLedger ledger, String token, Path marker) {
    ledger.markReady(new MarkReady(TABLE, token, ObjectLocation.file(marker).folderUri(), "msg-marker-" + token,
        Instant.now()));
  }

  protected static void ingestEverything(SqliteLedger ledger) {
    Optional<BatchRecord> batch;
    long snapshot = 1;
    while ((batch = ledger.claimPartitions(new ClaimPartitions(TABLE, 100, Duration.ofMinutes(5), true))).isPresent()) {
      ledger.commitBatch(new CommitBatch(batch.get().batchId(), snapshot++, BatchMetrics.EMPTY));
    }
  }
}
