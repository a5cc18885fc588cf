package io.files2iceberg.sparkjob.warm;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.storage.Storage;
import io.files2iceberg.core.ledger.MutableClock;
import io.files2iceberg.core.manifest.WarmDriverHeartbeat;
import io.files2iceberg.core.manifest.WarmRequest;
import io.files2iceberg.core.profile.StorageSettings;
import io.files2iceberg.core.storage.StorageClients;
import io.files2iceberg.core.storage.StorageStandIn;
import io.files2iceberg.core.warm.WarmFolder;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An idle warm driver's looks at a {@code gs://} folder, on the Cloud Storage stand-in (every
 * Storage request the driver makes is one HTTP request it counts), in simulated time: the driver's
 * loop runs with a clock the test moves and a sleeper that moves it, so an idle hour takes seconds.
 * Its heartbeat and its idle-timeout exit keep their times.
 */
class WarmDriverIdlePollingTest {
  private static final String BUCKET = "lake-metadata";
  private static final String FOLDER = "gs://" + BUCKET + "/clicks/warm/";
  private static final Duration BASE = Duration.ofMillis(500);
  private static final Instant START = Instant.parse("2026-12-05T12:00:00Z");

  @TempDir Path root;
  StorageStandIn standIn;
  Storage storage;
  final MutableClock clock = new MutableClock(START);
  /** The driver's sleeps, in order; each moves {@link #clock} on, then {@link #onSleep} sees the time after it. */
  final List<Duration> sleeps = new ArrayList<>();
  Consumer<Instant> onSleep = now -> {};
  /** The cancel test's: the look that saw the cancel, and the number of sleeps up to the one after it. */
  Instant cancelLook;
  int sleepsAfterCancel;

  @BeforeEach
  void startStandIn() {
    standIn = StorageStandIn.start(root);
    standIn.createBucket(BUCKET);
    storage = StorageClients.create(new StorageSettings(Optional.of(standIn.endpoint()),
        StorageSettings.Credentials.NONE));
  }

  @AfterEach
  void stopStandIn() {
    standIn.close();
  }

  @Test
  void anIdleHourOnCloudStorageCostsAFewThousandRequestsAndKeepsItsHeartbeatAndIdleExit() throws IOException {
    WarmFolder folder = WarmFolder.onCloudStorage(storage, FOLDER, clock);
    RecordedHold hold = hold(folder);
    WarmDriver driver = driver(folder, Duration.ofHours(1));
    int before = standIn.requests().size();

    int code = driver.loop(hold);

    List<String> requests = standIn.requests().subList(before, standIn.requests().size());
    long lists = requests.stream().filter(line -> line.startsWith("GET /storage/v1/b/" + BUCKET + "/o?")).count();
    System.out.printf("idle hour on %s: %d Storage requests (%d lists, %d others: heartbeats %d), %d looks%n",
        FOLDER, requests.size(), lists, requests.size() - lists, hold.renewals.size(), sleeps.size());
    assertThat(code).isZero();
    // The idle timeout ends it as before: after an hour without a batch, at most one base poll late.
    assertThat(clock.instant()).isAfter(START.plus(Duration.ofHours(1)))
        .isBeforeOrEqualTo(START.plus(Duration.ofHours(1)).plus(BASE));
    // The heartbeat is renewed every INTERVAL, at most one base poll late, as before.
    assertThat(hold.renewals).hasSizeBetween(700, 720);
    Instant previous = START;
    for (Instant renewal : hold.renewals) {
      assertThat(Duration.between(previous, renewal))
          .isBetween(WarmDriverHeartbeat.INTERVAL, WarmDriverHeartbeat.INTERVAL.plus(BASE));
      previous = renewal;
    }
    // Two listings per look at a 500 ms poll would be 14,400 list requests an hour.
    assertThat(requests).hasSizeLessThanOrEqualTo(2_500);
  }

  @Test
  void aCancelSeenByAnIdleDriverBringsItsPollBackToTheBase() throws IOException {
    WarmFolder folder = WarmFolder.onCloudStorage(storage, FOLDER, clock);
    String cancel = WarmRequest.CANCEL + "/b1-attempt1.request";
    Instant written = START.plus(Duration.ofMinutes(10));
    // The batcher writes the cancel at 10:00; the driver's first look after that sees it.
    onSleep = now -> {
      if (!now.isBefore(written) && cancelLook == null) {
        standIn.put(BUCKET, "clicks/warm/" + cancel, new byte[0]);
        cancelLook = now;
      } else if (cancelLook != null && sleepsAfterCancel == 0) {
        assertThat(standIn.generation(BUCKET, "clicks/warm/" + cancel)).as("the cancel, read and deleted").isEmpty();
        sleepsAfterCancel = sleeps.size();
      }
    };
    WarmDriver driver = driver(folder, Duration.ofMinutes(15));

    assertThat(driver.loop(hold(folder))).isZero();

    List<Duration> beforeCancel = sleeps.subList(0, sleepsAfterCancel - 1);
    assertThat(beforeCancel).contains(Duration.ofSeconds(5)).allSatisfy(sleep ->
        assertThat(sleep).isBetween(BASE, Duration.ofSeconds(5)));
    // Seen at the next look, within the idle cap; the wait after that look is the base one.
    assertThat(Duration.between(written, cancelLook)).isLessThan(Duration.ofSeconds(5));
    assertThat(sleeps.get(sleepsAfterCancel - 1)).isEqualTo(BASE);
    assertThat(sleeps.get(sleepsAfterCancel)).isGreaterThan(BASE);
  }

  private void sleep(Duration duration) {
    sleeps.add(duration);
    clock.advance(duration);
    onSleep.accept(clock.instant());
  }

  private WarmDriver driver(WarmFolder folder, Duration idleTimeout) {
    return new WarmDriver(folder, "f2i-warm-0a1b2c3d-1", idleTimeout, "local[1]", Map.of(), clock, this::sleep);
  }

  private RecordedHold hold(WarmFolder folder) throws IOException {
    folder.create();
    return new RecordedHold(folder.hold("f2i-warm-0a1b2c3d-1", "f").orElseThrow(), clock);
  }

  /** The driver's hold, recording when it was renewed. */
  private static final class RecordedHold implements WarmFolder.Hold {
    final WarmFolder.Hold hold;
    final Clock clock;
    final List<Instant> renewals = new ArrayList<>();

    RecordedHold(WarmFolder.Hold hold, Clock clock) {
      this.hold = hold;
      this.clock = clock;
    }

    @Override
    public boolean renew() throws IOException {
      renewals.add(clock.instant());
      return hold.renew();
    }

    @Override
    public void close() throws IOException {
      hold.close();
    }
  }
}
