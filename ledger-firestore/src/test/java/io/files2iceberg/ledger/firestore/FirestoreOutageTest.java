package io.files2iceberg.ledger.firestore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.LedgerUnavailableException;
import io.files2iceberg.core.ledger.MutableClock;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.profile.LedgerSettings;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Firestore that stops answering (its process frozen with SIGSTOP: connections stay open, nothing
 * replies) fails each ledger call as unavailable within {@code ledger.deadline}, so the listener
 * answers {@code 503} in time and {@code /health} is DOWN; once it resumes, the redelivered message
 * is recorded once and calls are answered at once.
 */
class FirestoreOutageTest {
  @RegisterExtension static final FirestoreEmulatorExtension FIRESTORE = new FirestoreEmulatorExtension();

  private static final Duration DEADLINE = Duration.ofSeconds(2);
  /** Scheduling and the worker's hand-off, on a machine shared with other builds. */
  private static final Duration SLACK = Duration.ofMillis(1500);

  private final String prefix = FirestoreEmulator.newPrefix();
  private final MutableClock clock = new MutableClock(Instant.parse("2024-05-01T10:00:00Z"));

  @Test
  void aFrozenFirestoreFailsEachCallAsUnavailableWithinTheDeadlineAndTheRedeliveryIsRecordedOnceAfterItResumes()
      throws Exception {
    Process emulator = FIRESTORE.emulator().process().orElse(null);
    assumeTrue(emulator != null, "needs an emulator process this run started (not FIRESTORE_EMULATOR_HOST) to freeze");
    LedgerSettings settings = new LedgerSettings(FirestoreLedgerProvider.TYPE, "unused.db",
        Optional.of(FirestoreEmulator.PROJECT), "(default)", prefix, DEADLINE);
    try (FirestoreLedger ledger = FirestoreLedger.open(settings, clock, FIRESTORE.emulator().host())) {
      warmUp(ledger);
      ledger.recordFile(file("part-0.parquet"));
      RecordFile pushed = file("part-1.parquet");

      long frozenCall;
      long frozenProbe;
      Throwable failure;
      Optional<String> unavailable;
      signal("STOP", emulator);
      try {
        long start = System.nanoTime();
        try {
          ledger.recordFile(pushed);
          failure = null;
        } catch (RuntimeException e) {
          failure = e;
        }
        frozenCall = System.nanoTime() - start;
        start = System.nanoTime();
        unavailable = ledger.unavailableBecause();
        frozenProbe = System.nanoTime() - start;
      } finally {
        signal("CONT", emulator);
      }
      // Pub/Sub redelivers the push that got 503: answered at once, though the abandoned attempt's
      // transaction was still waiting on the frozen emulator.
      long redelivered = System.nanoTime();
      ledger.recordFile(pushed);
      long redelivery = System.nanoTime() - redelivered;
      long start = System.nanoTime();
      Optional<String> resumed = ledger.unavailableBecause();
      long resumedProbe = System.nanoTime() - start;

      assertThat(failure).isInstanceOf(LedgerUnavailableException.class)
          .hasMessageStartingWith("Ledger recordFile for " + prefix + LedgerSchema.FILES + "/" + pushed.fileId())
          .hasMessageContaining("Firestore did not answer within 2 s (ledger.deadline)");
      assertThat(Duration.ofNanos(frozenCall)).isLessThan(DEADLINE.plus(SLACK));
      assertThat(unavailable).hasValueSatisfying(reason -> assertThat(reason)
          .startsWith("Ledger probe for " + prefix + LedgerSchema.PROBE + "/")
          .contains("did not answer within 2 s"));
      assertThat(Duration.ofNanos(frozenProbe)).isLessThan(DEADLINE.plus(SLACK));
      assertThat(Duration.ofNanos(redelivery)).isLessThan(DEADLINE);
      assertThat(resumed).isEmpty();
      assertThat(Duration.ofNanos(resumedProbe)).isLessThan(DEADLINE);
      List<FileRecord> recorded = ledger.filesOfPartition(pushed.table(), pushed.partition());
      assertThat(recorded).extracting(FileRecord::uri)
          .containsExactlyInAnyOrder("gs://landing/raw/dt=2024-05-01/part-0.parquet", pushed.uri());
    }
  }

  private static RecordFile file(String name) {
    String objectName = "raw/dt=2024-05-01/" + name;
    return new RecordFile("clicks", "2024-05-01", "landing", objectName, 1, "gs://landing/" + objectName, 100,
        "evt-" + name, Instant.parse("2024-05-01T09:59:00Z"), Optional.empty(), false);
  }

  /** A fresh client's first calls (and a cold emulator's) may take longer than the deadline. */
  private static void warmUp(FirestoreLedger ledger) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (ledger.unavailableBecause().isPresent() && System.nanoTime() < end) {
      Thread.sleep(200);
    }
  }

  /** Signals only the emulator process this run started. */
  private static void signal(String signal, Process emulator) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(emulator.pid())).inheritIO().start();
    assertThat(kill.waitFor()).as("kill -%s %d", signal, emulator.pid()).isZero();
  }
}
