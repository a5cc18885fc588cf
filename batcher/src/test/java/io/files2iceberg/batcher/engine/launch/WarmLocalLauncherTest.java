package io.files2iceberg.batcher.engine.launch;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.manifest.WarmRequest;
import io.files2iceberg.core.profile.DeploymentLoader;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.JobSettings;
import io.files2iceberg.core.profile.JobSettings.JobMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WarmLocalLauncherTest {
  private static final Path SPARK_JOB_TARGET = Path.of("..", "spark-job", "target");
  private static final List<String> SMALL = List.of("-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  @TempDir Path dir;

  @Test
  void theLocalLauncherIsWarmUnlessTheDeploymentAsksForAJvmPerBatch() {
    Home home = new Home(dir);
    JobSettings job = DeploymentLoader.defaults(home).job();

    assertThat(LocalSparkLauncher.forMode(SPARK_JOB_TARGET, home, job)).isInstanceOfSatisfying(
        WarmLocalLauncher.class, warm -> assertThat(warm.driverFolder()).isEqualTo(dir.resolve("warm")));
    assertThat(LocalSparkLauncher.forMode(SPARK_JOB_TARGET, home, job.withMode(JobMode.PER_BATCH)))
        .isInstanceOf(LocalSparkLauncher.class);
  }

  @Test
  void batchersStartingADriverAtOnceStartOneAndASecondDriverBesideItExits() throws Exception {
    Path folder = dir.resolve("warm");
    JobSettings job = DeploymentLoader.defaults(new Home(dir)).job();
    WarmLocalLauncher first = new WarmLocalLauncher(new LocalSparkLauncher(SPARK_JOB_TARGET, dir.resolve("logs"),
        SMALL), folder, job);
    WarmLocalLauncher second = new WarmLocalLauncher(new LocalSparkLauncher(SPARK_JOB_TARGET, dir.resolve("logs"),
        SMALL), folder, job);
    try {
      CompletableFuture<Long> one = CompletableFuture.supplyAsync(() -> first.ensureDriver(job, "t", "b1"));
      CompletableFuture<Long> two = CompletableFuture.supplyAsync(() -> second.ensureDriver(job, "t", "b2"));

      long pid = one.get(2, TimeUnit.MINUTES);
      assertThat(two.get(2, TimeUnit.MINUTES)).isEqualTo(pid);
      assertThat(first.driverPid()).contains(pid);

      // A driver started by hand beside the live one finds the lock taken and exits.
      Process extra = new ProcessBuilder(first.driverCommand(job)).directory(SPARK_JOB_TARGET.toFile())
          .redirectErrorStream(true).redirectOutput(dir.resolve("extra.log").toFile()).start();
      assertThat(extra.waitFor(2, TimeUnit.MINUTES)).isTrue();
      assertThat(extra.exitValue()).isZero();
      assertThat(Files.readString(dir.resolve("extra.log"))).contains("another driver holds");
      assertThat(first.driverPid()).contains(pid);

      // Its folder deleted (a test's temporary home), the driver exits.
      try (var files = Files.walk(folder)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
      }
      ProcessHandle driver = ProcessHandle.of(pid).orElseThrow();
      driver.onExit().get(30, TimeUnit.SECONDS);
      assertThat(driver.isAlive()).isFalse();
    } finally {
      first.driverPid().flatMap(ProcessHandle::of).ifPresent(ProcessHandle::destroyForcibly);
    }
  }

  @Test
  void aRequestNamesItsBatchAttemptAndSettingsAndReadsBack() {
    WarmRequest request = new WarmRequest("local.demo.clicks", "b1", "/m/b1.json", 2, "abc");

    assertThat(request.name()).isEqualTo("b1-attempt2.request");
    assertThat(request.jobGroup()).isEqualTo("b1-attempt2");
    assertThat(WarmRequest.fromJson(request.toJson(), "r")).isEqualTo(request);
    JobSettings job = DeploymentLoader.defaults(new Home(dir)).job();
    assertThat(WarmRequest.fingerprint(job)).isEqualTo(WarmRequest.fingerprint(job.withMode(JobMode.PER_BATCH)))
        .isNotEqualTo(WarmRequest.fingerprint(new JobSettings(java.util.Map.of("spark.sql.shuffle.partitions", "4"),
            job.master(), job.dataprocRegion(), job.runtimeVersion(), job.serviceAccount(), job.subnetwork(),
            job.jarUri(), job.leaseTimeout(), job.maxAttempts())));
  }
}
