package io.files2iceberg.batcher.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.profile.TableProfile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tables of the embedded catalog (JDBC on one SQLite file) take turns; a run that leaves a job
 * running keeps its turn until the run ends, and leaves the catalog's other tables to the next run.
 */
class CatalogPermitsTest {
  @TempDir Path dir;

  @Test
  void aRunThatWaitsForItsJobsGivesTheTurnToTheNextTableOfTheCatalogOnceTheStepEnds() throws Exception {
    try (Landing landing = Landing.inMemory(dir)) {
      List<TableProfile> tables = tables(landing);
      CatalogPermits permits = new CatalogPermits(true);
      CountDownLatch firstRuns = new CountDownLatch(1);
      CountDownLatch firstMayEnd = new CountDownLatch(1);
      List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();

      CompletableFuture<Boolean> first = CompletableFuture.supplyAsync(() -> permits.withPermit(tables.get(0), () -> {
        order.add("a starts");
        firstRuns.countDown();
        await(firstMayEnd);
        order.add("a ends");
        return true;
      }));
      assertThat(firstRuns.await(10, TimeUnit.SECONDS)).isTrue();
      CompletableFuture<Boolean> second = CompletableFuture.supplyAsync(() -> permits.withPermit(tables.get(1), () -> {
        order.add("b runs");
        return true;
      }));
      Thread.sleep(200);
      assertThat(second).as("waits for its turn").isNotDone();
      firstMayEnd.countDown();

      assertThat(first.get(10, TimeUnit.SECONDS)).isTrue();
      assertThat(second.get(10, TimeUnit.SECONDS)).isTrue();
      assertThat(order).containsExactly("a starts", "a ends", "b runs");
    }
  }

  @Test
  void aJobLeftRunningKeepsItsCatalogsTurnAndTheCatalogsOtherTablesAreLeftToTheNextRun() throws Exception {
    try (Landing landing = Landing.inMemory(dir)) {
      List<TableProfile> tables = tables(landing);
      CatalogPermits permits = new CatalogPermits(false);
      List<String> ran = new ArrayList<>();

      assertThat(permits.withPermit(tables.get(0), () -> {
        ran.add("a");
        permits.keep(tables.get(0));
        return false;
      })).isFalse();
      boolean second = permits.withPermit(tables.get(1), () -> ran.add("b"));
      boolean other = permits.withPermit(tables.get(2), () -> ran.add("c"));

      assertThat(second).as("left to the next run, without waiting").isFalse();
      assertThat(other).as("a table of another catalog runs").isTrue();
      assertThat(ran).containsExactly("a", "c");

      CatalogPermits nextRun = new CatalogPermits(false);
      assertThat(nextRun.withPermit(tables.get(1), () -> ran.add("b"))).isTrue();
      assertThat(nextRun.withPermit(tables.get(1), () -> ran.add("b again"))).as("a permit not kept is given back")
          .isTrue();
    }
  }

  /** Tables a and b in the embedded catalog, c in a Hadoop catalog of its own. */
  private static List<TableProfile> tables(Landing landing) throws Exception {
    landing.profile("a", "");
    landing.profile("b", "");
    landing.profile("c", "catalog { type = hadoop, warehouse = \"file://" + landing.root.resolve("hadoop") + "\" }\n"
        + "load.iceberg.table = \"hdp.test.c\"\n");
    List<TableProfile> profiles = landing.registry().profiles();
    return List.of(byName(profiles, "local.test.a"), byName(profiles, "local.test.b"), byName(profiles, "hdp.test.c"));
  }

  private static TableProfile byName(List<TableProfile> profiles, String table) {
    return profiles.stream().filter(p -> p.table().equals(table)).findFirst().orElseThrow();
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
