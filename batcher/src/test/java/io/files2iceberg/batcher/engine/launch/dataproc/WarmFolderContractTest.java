package io.files2iceberg.batcher.engine.launch.dataproc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.storage.Storage;
import com.google.cloud.storage.contrib.nio.testing.LocalStorageHelper;
import io.files2iceberg.core.ledger.MutableClock;
import io.files2iceberg.core.manifest.AtomicFile;
import io.files2iceberg.core.manifest.WarmRequest;
import io.files2iceberg.core.profile.StorageSettings;
import io.files2iceberg.core.storage.StorageClients;
import io.files2iceberg.core.storage.StorageStandIn;
import io.files2iceberg.core.warm.WarmFolder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One contract for the warm driver's folder, run on a local folder and on Cloud Storage (the
 * stand-in bucket with generation preconditions): one driver holds a folder, a request is taken
 * by one driver at most, and a withdrawn one by none.
 */
class WarmFolderContractTest {

  /** A folder as drivers see it, and a batcher's hand on the same folder. */
  abstract static class Contract {
    /** A new driver's view of the one folder of this test. */
    abstract WarmFolder driver() throws Exception;

    /** Writes a waiting request, as a batcher does. */
    abstract void put(String name) throws Exception;

    /** Withdraws a waiting request, as a cancelling batcher does; true when it was still waiting. */
    abstract boolean withdraw(String name) throws Exception;

    /** Asks for a cancel, as a batcher does. */
    abstract void cancel(String name) throws Exception;

    static WarmRequest requestOf(String batchId) {
      return new WarmRequest("lake.web.clicks", batchId, "gs://lake-metadata/clicks/batches/" + batchId + ".json", 1,
          "0123456789abcdef");
    }

    @Test
    void aRequestTwoDriversRaceForIsTakenByExactlyOne() throws Exception {
      List<String> names = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        String name = requestOf("b" + i).name();
        put(name);
        names.add(name);
      }
      WarmFolder one = driver();
      WarmFolder other = driver();
      Map<String, List<String>> takers = new ConcurrentHashMap<>();
      CountDownLatch go = new CountDownLatch(1);
      ExecutorService pool = Executors.newFixedThreadPool(2);
      try {
        List<Future<?>> runs = new ArrayList<>();
        for (var driver : List.of(Map.entry("d1", one), Map.entry("d2", other))) {
          runs.add(pool.submit(() -> {
            go.await();
            for (String name : names) {
              if (driver.getValue().take(name, driver.getKey()) == WarmFolder.Take.TAKEN) {
                takers.computeIfAbsent(name, n -> Collections.synchronizedList(new ArrayList<>())).add(driver.getKey());
              }
            }
            return null;
          }));
        }
        go.countDown();
        for (Future<?> run : runs) {
          run.get(60, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }

      assertThat(takers.keySet()).containsExactlyInAnyOrderElementsOf(names);
      assertThat(takers.values()).allSatisfy(taken -> assertThat(taken).hasSize(1));
      assertThat(one.waiting()).isEmpty();
    }

    @Test
    void aWaitingRequestIsListedAndReadUntilTaken() throws Exception {
      String name = requestOf("b1").name();
      put(name);
      WarmFolder driver = driver();

      assertThat(driver.waiting()).containsExactly(name);
      assertThat(WarmRequest.fromJson(driver.readWaiting(name).orElseThrow(), name)).isEqualTo(requestOf("b1"));
      assertThat(driver.take(name, "d1")).isEqualTo(WarmFolder.Take.TAKEN);
      assertThat(driver.waiting()).isEmpty();
      assertThat(driver.readWaiting(name)).isEmpty();
      assertThat(driver.take(name, "d2")).isNotEqualTo(WarmFolder.Take.TAKEN);
    }

    @Test
    void aWithdrawnRequestIsNeverTaken() throws Exception {
      String name = requestOf("b1").name();
      put(name);

      assertThat(withdraw(name)).isTrue();

      assertThat(driver().take(name, "d1")).isEqualTo(WarmFolder.Take.WITHDRAWN);
      assertThat(driver().waiting()).isEmpty();
    }

    @Test
    void aTakenRequestCannotBeWithdrawn() throws Exception {
      String name = requestOf("b1").name();
      put(name);
      assertThat(driver().take(name, "d1")).isEqualTo(WarmFolder.Take.TAKEN);

      assertThat(withdraw(name)).isFalse();
    }

    @Test
    void oneDriverHoldsTheFolderAtATime() throws Exception {
      WarmFolder one = driver();
      WarmFolder other = driver();
      one.create();

      WarmFolder.Hold held = one.hold("d1", "f").orElseThrow();
      assertThat(other.hold("d2", "f")).isEmpty();
      assertThat(held.renew()).isTrue();
      held.close();

      WarmFolder.Hold next = other.hold("d2", "f").orElseThrow();
      assertThat(next.renew()).isTrue();
      next.close();
    }

    @Test
    void cancelsAreListedUntilDeleted() throws Exception {
      WarmFolder driver = driver();
      driver.create();
      String name = requestOf("b1").name();

      cancel(name);
      assertThat(driver.cancels()).containsExactly(name);
      driver.deleteCancel(name);

      assertThat(driver.cancels()).isEmpty();
    }
  }

  @Nested
  class OnALocalFolder extends Contract {
    @TempDir Path root;

    Path folder() {
      return root.resolve("warm");
    }

    @Override
    WarmFolder driver() throws Exception {
      WarmFolder folder = WarmFolder.local(folder());
      folder.create();
      return folder;
    }

    @Override
    void put(String name) throws Exception {
      driver();
      AtomicFile.replace(folder().resolve(WarmRequest.REQUESTS).resolve(name),
          requestOf(name.substring(0, name.indexOf("-attempt"))).toJson());
    }

    @Override
    boolean withdraw(String name) throws Exception {
      return Files.deleteIfExists(folder().resolve(WarmRequest.REQUESTS).resolve(name));
    }

    @Override
    void cancel(String name) throws Exception {
      Files.writeString(folder().resolve(WarmRequest.CANCEL).resolve(name), "");
    }
  }

  @Nested
  class OnCloudStorage extends Contract {
    static final String FOLDER = "gs://lake-metadata/clicks/warm/";
    final Storage storage = storage();
    final WarmFolder batcher = WarmFolder.onCloudStorage(storage, FOLDER, Clock.systemUTC());

    /** The bucket: {@link LocalStorageHelper} with the generations and preconditions it lacks. */
    Storage storage() {
      return GcsWithPreconditions.create();
    }

    @Override
    WarmFolder driver() {
      return WarmFolder.onCloudStorage(storage, FOLDER, Clock.systemUTC());
    }

    @Override
    void put(String name) throws Exception {
      batcher.write(requestOf(name.substring(0, name.indexOf("-attempt"))));
    }

    @Override
    boolean withdraw(String name) throws Exception {
      return batcher.withdraw(name);
    }

    @Override
    void cancel(String name) throws Exception {
      batcher.cancel(name);
    }

    @Test
    void aHolderSilentForTheStaleBoundIsTakenOverAndLearnsIt() throws Exception {
      MutableClock clock = new MutableClock(Instant.parse("2026-11-30T12:00:00Z"));
      WarmFolder.Hold first = WarmFolder.onCloudStorage(storage, FOLDER, clock).hold("f2i-warm-0a1b2c3d-1", "f")
          .orElseThrow();
      WarmFolder other = WarmFolder.onCloudStorage(storage, FOLDER, clock);
      assertThat(other.hold("f2i-warm-0a1b2c3d-2", "f")).isEmpty();

      clock.advance(Duration.ofSeconds(61));
      WarmFolder.Hold second = other.hold("f2i-warm-0a1b2c3d-2", "f").orElseThrow();

      assertThat(first.renew()).isFalse();
      assertThat(second.renew()).isTrue();
      assertThat(batcher.holder().orElseThrow().driverId()).isEqualTo("f2i-warm-0a1b2c3d-2");
      assertThat(batcher.holder().orElseThrow().sequence()).isEqualTo(2);
    }

    @Test
    void twoDriversHoldingAFreeFolderAtOnceLeaveItToOne() throws Exception {
      for (int round = 0; round < 10; round++) {
        String folder = "gs://lake-metadata/race-" + round + "/warm/";
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
          List<Future<Boolean>> holds = new ArrayList<>();
          for (String driverId : List.of("f2i-warm-0a1b2c3d-1", "f2i-warm-0a1b2c3d-2")) {
            holds.add(pool.submit(() -> {
              go.await();
              return WarmFolder.onCloudStorage(storage, folder, Clock.systemUTC()).hold(driverId, "f").isPresent();
            }));
          }
          go.countDown();
          int held = 0;
          for (Future<Boolean> hold : holds) {
            held += hold.get(30, TimeUnit.SECONDS) ? 1 : 0;
          }
          assertThat(held).as("drivers holding %s", folder).isEqualTo(1);
        } finally {
          pool.shutdownNow();
        }
      }
    }

    @Test
    void aDriverThatGaveTheFolderUpIsNoLongerServing() throws Exception {
      WarmFolder.Hold held = driver().hold("f2i-warm-0a1b2c3d-1", "f").orElseThrow();
      assertThat(batcher.holder().orElseThrow().serving()).isTrue();

      held.close();

      assertThat(batcher.holder().orElseThrow().serving()).isFalse();
      assertThat(driver().hold("f2i-warm-0a1b2c3d-2", "f")).isPresent();
    }

    @Test
    void aRequestWithdrawnBetweenATakersCreateAndDeleteIsNotRun() throws Exception {
      String name = requestOf("b1").name();
      put(name);
      // The driver has read the request; the batcher withdraws it before the driver takes it.
      assertThat(driver().readWaiting(name)).isPresent();
      assertThat(withdraw(name)).isTrue();

      assertThat(driver().take(name, "d1")).isEqualTo(WarmFolder.Take.WITHDRAWN);
      assertThat(batcher.runner(name)).isEmpty();
    }
  }

  /**
   * The same contract over HTTP, against the Cloud Storage stand-in whose generations and
   * preconditions answer as the JSON API's do (412): the folder's protocol as a Dataproc warm
   * driver and its batchers run it, on the wire.
   */
  @Nested
  class OnTheStorageStandIn extends OnCloudStorage {
    @Override
    Storage storage() {
      try {
        StorageStandIn standIn = StorageStandIn.start(Files.createTempDirectory("driver-folder-gcs"));
        standIns.add(standIn);
        standIn.createBucket("lake-metadata");
        return StorageClients.create(new StorageSettings(Optional.of(standIn.endpoint()),
            StorageSettings.Credentials.NONE));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    @AfterEach
    void stopTheStandIn() throws Exception {
      for (StorageStandIn standIn : standIns) {
        standIn.close();
      }
    }
  }

  /** The stand-ins the nested classes started, stopped after each test. */
  final List<StorageStandIn> standIns = new java.util.concurrent.CopyOnWriteArrayList<>();
}
