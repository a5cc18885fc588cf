package io.files2iceberg.batcher.engine.launch;

import io.files2iceberg.core.profile.DeploymentLoader;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.files2iceberg.core.manifest.AttemptResult;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.JobExit;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.JobSettings;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.profile.TableProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalSparkLauncherTest {
  private static final Path SPARK_JOB_TARGET = Path.of("..", "spark-job", "target");

  @TempDir Path dir;

  @Test
  void missingJobBuildIsANonRetryableErrorSayingHowToBuildIt() {
    assertThatThrownBy(() -> new LocalSparkLauncher(dir.resolve("target"), new Home(dir)))
        .isInstanceOfSatisfying(LaunchException.class, e -> assertThat(e.isRetryable()).isFalse())
        .hasMessageContaining(dir.resolve("target").resolve("classpath.txt") + " is missing")
        .hasMessageContaining("build the job first: mvn -pl spark-job -am package -DskipTests");
  }

  @Test
  void jobBuildIsFoundAboveTheWorkingDirectoryUnlessTheEnvironmentNamesIt() throws Exception {
    Path checkout = Files.createDirectories(dir.resolve("checkout"));
    Files.createDirectories(checkout.resolve("spark-job"));
    Files.writeString(checkout.resolve("spark-job").resolve("pom.xml"), "<project/>");
    Path nested = Files.createDirectories(checkout.resolve("examples").resolve("local"));

    assertThat(LocalSparkLauncher.locateSparkJobTarget(Map.of(), nested))
        .isEqualTo(checkout.resolve("spark-job").resolve("target"));
    assertThat(LocalSparkLauncher.locateSparkJobTarget(
        Map.of(LocalSparkLauncher.SPARK_JOB_DIR_ENV, "/opt/job/target"), nested)).isEqualTo(Path.of("/opt/job/target"));
    assertThatThrownBy(() -> LocalSparkLauncher.locateSparkJobTarget(Map.of(), dir))
        .isInstanceOf(LaunchException.class)
        .hasMessageContaining(LocalSparkLauncher.SPARK_JOB_DIR_PROPERTY)
        .hasMessageContaining(LocalSparkLauncher.SPARK_JOB_DIR_ENV);
  }

  @Test
  void commandIsSparksJavaOptionsThenTheJobsClasspathAndMain() throws Exception {
    LocalSparkLauncher launcher = new LocalSparkLauncher(SPARK_JOB_TARGET, new Home(dir));
    List<String> command = launcher.command();
    Path target = SPARK_JOB_TARGET.toAbsolutePath().normalize();

    assertThat(command.get(0)).endsWith("/bin/java");
    assertThat(command).contains("--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "-Xmx2g");
    int cp = command.indexOf("-cp");
    assertThat(command.get(cp + 1)).startsWith(target.resolve("classes") + ":")
        .contains(Files.readString(target.resolve("classpath.txt")).trim())
        .endsWith(":" + Files.readString(target.resolve("ledger-classpath.txt")).trim())
        .contains("files2iceberg-ledger-firestore-").contains("-shaded.jar");
    assertThat(command.get(command.size() - 1)).isEqualTo("io.files2iceberg.sparkjob.BatchJob");
  }

  @Test
  void theEnvironmentsSparkJavaOptionsComeAfterTheLaunchersOwnSoThatTheyWin() {
    assertThat(LocalSparkLauncher.withOptionsOf(Map.of(LocalSparkLauncher.JAVA_OPTS_ENV, "  -Xmx8g\t-XX:TieredStopAtLevel=1 "),
        LocalSparkLauncher.DEFAULT_JVM_OPTIONS)).containsExactly("-Xmx2g", "-Xmx8g", "-XX:TieredStopAtLevel=1");
    assertThat(LocalSparkLauncher.withOptionsOf(Map.of(LocalSparkLauncher.JAVA_OPTS_ENV, " "),
        LocalSparkLauncher.DEFAULT_JVM_OPTIONS)).containsExactly("-Xmx2g");
    assertThat(LocalSparkLauncher.withOptionsOf(Map.of(), List.of("-Xmx1g"))).containsExactly("-Xmx1g");

    List<String> command = new LocalSparkLauncher(SPARK_JOB_TARGET, dir.resolve("logs"),
        LocalSparkLauncher.withOptionsOf(Map.of(LocalSparkLauncher.JAVA_OPTS_ENV, "-Xmx8g"), List.of("-Xmx2g")),
        ClassDataSharing.off()).command();
    assertThat(command.indexOf("-Xmx8g")).isGreaterThan(command.indexOf("-Xmx2g")).isLessThan(command.indexOf("-cp"));
  }

  @Test
  void aClusterMastersExecutorsGetTheJobsClasspathAndUtf8NamesUnlessTheDeploymentSetsThem() throws Exception {
    LocalSparkLauncher launcher = new LocalSparkLauncher(SPARK_JOB_TARGET, new Home(dir));
    String classpath = classpathOf(launcher);
    Home home = new Home(dir);
    JobSettings cluster = DeploymentLoader.parse("job.master = \"spark://10.0.0.5:7077\"", dir.resolve("d.conf"), home)
        .job();
    JobSettings own = DeploymentLoader.parse("""
        job.master = "spark://10.0.0.5:7077"
        job.spark-properties { "spark.executor.extraClassPath" = "/opt/files2iceberg/*" }
        """, dir.resolve("d.conf"), home).job();

    assertThat(launcher.executorOptions(cluster)).containsExactly("-Dspark.executor.extraClassPath=" + classpath,
        "-Dspark.executorEnv.LC_ALL=C.UTF-8");
    assertThat(launcher.executorOptions(own)).containsExactly("-Dspark.executorEnv.LC_ALL=C.UTF-8");
    for (String apart : List.of("spark://h:7077", "local-cluster[2,1,1024]", "yarn")) {
      assertThat(LocalSparkLauncher.runsExecutorsApart(apart)).as(apart).isTrue();
    }
    for (String together : List.of("local", "local[2]", "local[*]", " local[4] ")) {
      assertThat(LocalSparkLauncher.runsExecutorsApart(together)).as(together).isFalse();
    }
    assertThat(launcher.executorOptions(DeploymentLoader.defaults(home).job())).isEmpty();
    // The warm driver's command carries it too, before its main class.
    List<String> driver = new WarmLocalLauncher(launcher, dir.resolve("warm"), cluster).driverCommand(cluster);
    assertThat(driver.indexOf("-Dspark.executor.extraClassPath=" + classpath))
        .isPositive().isLessThan(driver.indexOf(WarmLocalLauncher.MAIN_CLASS));
  }

  /** A checkout with spark-job/target as the build writes it, naming jars of its own modules. */
  private static Path builtCheckout(Path checkout, Path library) throws Exception {
    Path target = Files.createDirectories(checkout.resolve("spark-job").resolve("target"));
    Path resources = Files.createDirectories(target.resolve("classes").resolve("files2iceberg"));
    Files.writeString(resources.resolve("spark-java-options.txt"), "# options\n--add-opens=java.base/java.nio=ALL-UNNAMED\n");
    Files.writeString(resources.resolve("build-folder.txt"), "# built in\n" + checkout.resolve("spark-job") + "\n");
    Path core = Files.createDirectories(checkout.resolve("core").resolve("target")).resolve("core.jar");
    Files.writeString(core, "jar");
    Path ledger = Files.createDirectories(checkout.resolve("ledger-firestore").resolve("target")).resolve("ledger-shaded.jar");
    Files.writeString(ledger, "jar");
    Files.writeString(target.resolve("classpath.txt"), core + ":" + library + "\n");
    Files.writeString(target.resolve("ledger-classpath.txt"), ledger + "\n");
    return target;
  }

  private static String classpathOf(LocalSparkLauncher launcher) {
    List<String> command = launcher.command();
    return command.get(command.indexOf("-cp") + 1);
  }

  @Test
  void copiedCheckoutRunsItsOwnModulesJarsNotTheTreeThatBuiltIt() throws Exception {
    Path library = Files.writeString(dir.resolve("spark-sql.jar"), "a library of the local Maven repository");
    Path original = dir.resolve("original");
    builtCheckout(original, library);
    Path copy = dir.resolve("copy");
    try (var paths = Files.walk(original)) {
      for (Path from : paths.toList()) {
        Files.copy(from, copy.resolve(original.relativize(from).toString()));
      }
    }

    String classpath = classpathOf(new LocalSparkLauncher(copy.resolve("spark-job").resolve("target"), new Home(dir)));

    assertThat(classpath).isEqualTo(String.join(":",
        copy.resolve("spark-job/target/classes").toString(),
        copy.resolve("core/target/core.jar").toString(),
        library.toString(),
        copy.resolve("ledger-firestore/target/ledger-shaded.jar").toString()));
    assertThat(classpath).doesNotContain(original.toString());
  }

  @Test
  void classpathEntryThatDoesNotExistIsANonRetryableErrorNamingIt() throws Exception {
    Path library = dir.resolve("gone.jar");
    Path target = builtCheckout(dir.resolve("checkout"), library);

    assertThatThrownBy(() -> new LocalSparkLauncher(target, new Home(dir)))
        .isInstanceOfSatisfying(LaunchException.class, e -> assertThat(e.isRetryable()).isFalse())
        .hasMessage("The Spark job's build is incomplete: " + library + " (in " + target.resolve("classpath.txt")
            + ") does not exist; build the job first: mvn -pl spark-job -am package -DskipTests");
  }

  @Test
  void logsGoUnderALocalMetadataPathElseUnderTheHome() throws Exception {
    LocalSparkLauncher launcher = new LocalSparkLauncher(SPARK_JOB_TARGET, new Home(dir));
    TableProfile local = profile("clicks", "");
    TableProfile remote = profile("remote", "metadata.path = \"gs://bucket/meta/remote/\"\n");

    assertThat(launcher.logFile(manifest(local, "b-1"), 2))
        .isEqualTo(dir.resolve("metadata").resolve("clicks").resolve("logs").resolve("b-1-attempt2.log"));
    assertThat(launcher.logFile(manifest(remote, "b-2"), 1))
        .isEqualTo(dir.resolve("logs").resolve("remote").resolve("b-2-attempt1.log"));
  }

  @Test
  void unreadableManifestEndsWithTheJobsOwnLineAndExitCode() throws Exception {
    LocalSparkLauncher launcher = new LocalSparkLauncher(SPARK_JOB_TARGET, new Home(dir));
    BatchManifest manifest = manifest(profile("clicks", ""), "b-missing");
    Path missing = dir.resolve("nowhere.json");

    LaunchedJob job = launcher.launch(manifest, missing.toString(), 1);
    JobResult result = job.await(Duration.ofMinutes(2)).orElseThrow();

    assertThat(job.jobId()).startsWith("pid ");
    assertThat(result.exit()).isEqualTo(JobExit.INVALID_MANIFEST);
    assertThat(result.fromJob()).isTrue();
    assertThat(result.report()).isEmpty();
    assertThat(result.detail()).startsWith("files2iceberg: cannot read manifest " + missing);
    Path log = dir.resolve("metadata").resolve("clicks").resolve("logs").resolve("b-missing-attempt1.log");
    assertThat(result.log()).contains(log.toString());
    assertThat(job.log()).contains(log.toString());
    assertThat(Files.readString(log)).contains(result.detail());
    assertThat(result.describe()).isEqualTo(result.detail() + " (log: " + log + ")");
    assertThat(job.await(Duration.ZERO)).contains(result);
    // The job recorded its own outcome beside the manifest, and the launcher took it from there.
    Path resultFile = dir.resolve("nowhere-attempt1.result.json");
    AttemptResult written = AttemptResult.fromJson(Files.readString(resultFile), resultFile.toString());
    assertThat(written.exit()).isEqualTo(JobExit.INVALID_MANIFEST);
    assertThat(written.exitCode()).isEqualTo(2);
    assertThat(written.batchId()).isEqualTo("nowhere");
    assertThat(written.error()).contains(result.detail());
    assertThat(Files.readString(log.resolveSibling("b-missing-attempt1.pid")).strip())
        .isEqualTo(String.valueOf(written.pid()));
    assertThat(job.jobId()).isEqualTo("pid " + written.pid());
    // It has ended: there is nothing to reattach to.
    assertThat(launcher.reattach(manifest, missing.toString(), 1)).isEmpty();
  }

  @Test
  void reattachIgnoresAPidFileWhoseProcessIsNotThatAttemptsJob() throws Exception {
    LocalSparkLauncher launcher = new LocalSparkLauncher(SPARK_JOB_TARGET, new Home(dir));
    BatchManifest manifest = manifest(profile("clicks", ""), "b-reused");
    Path log = launcher.logFile(manifest, 1);
    Files.createDirectories(log.getParent());
    // A pid that is alive, but another process's (this test's JVM): the pid was reused.
    Files.writeString(log.resolveSibling("b-reused-attempt1.pid"), ProcessHandle.current().pid() + "\n");

    assertThat(launcher.reattach(manifest, dir.resolve("b-reused.json").toString(), 1)).isEmpty();
    assertThat(launcher.reattach(manifest, dir.resolve("b-reused.json").toString(), 2)).as("no pid file").isEmpty();
  }

  @Test
  void reattachFindsTheRunningJobByItsCommandLineWhenItsBatcherDiedBeforeWritingThePid() throws Exception {
    LocalSparkLauncher launcher = new LocalSparkLauncher(SPARK_JOB_TARGET, new Home(dir));
    BatchManifest manifest = manifest(profile("clicks", ""), "b-nopid");
    String manifestUri = dir.resolve("b-nopid.json").toString();
    // The job's command line as the launcher starts it, in a process that outlives its starter;
    // the batcher was killed before it wrote the pid file.
    Process orphan = new ProcessBuilder("bash", "-c", "sleep 120; :", LocalSparkLauncher.MAIN_CLASS,
        "--manifest", manifestUri, "--attempt", "1").start();
    try {
      // Its log was opened before it started.
      Path log = Files.createDirectories(launcher.logFile(manifest, 1).getParent()).resolve("b-nopid-attempt1.log");
      Files.writeString(log, "");
      Path pidFile = log.resolveSibling("b-nopid-attempt1.pid");
      assertThat(pidFile).doesNotExist();

      LaunchedJob found = launcher.reattach(manifest, manifestUri, 1).orElseThrow();

      assertThat(found.jobId()).isEqualTo("pid " + orphan.pid());
      assertThat(Files.readString(pidFile).strip()).as("written for the next recovery").isEqualTo(
          String.valueOf(orphan.pid()));
      assertThat(launcher.reattach(manifest, manifestUri, 2)).as("another attempt's job").isEmpty();
      assertThat(launcher.reattach(manifest(profile("other", ""), "b-nopid"), dir.resolve("other.json").toString(), 1))
          .as("another manifest's job").isEmpty();
    } finally {
      orphan.destroyForcibly().waitFor();
    }
    Files.delete(launcher.logFile(manifest, 1).resolveSibling("b-nopid-attempt1.pid"));
    assertThat(launcher.reattach(manifest, manifestUri, 1)).as("it has ended").isEmpty();
  }

  private TableProfile profile(String name, String extra) throws Exception {
    Path config = Files.createDirectories(dir.resolve("profiles-" + name));
    Files.writeString(config.resolve(name + ".conf"), """
        extract { path = "file:///data/%s/*/*.csv", format = csv }
        load.iceberg.table = "local.test.%s"
        """.formatted(name, name) + extra);
    return ProfileRegistry.load(config, new Home(dir)).profiles().get(0);
  }

  private static BatchManifest manifest(TableProfile profile, String batchId) {
    return new BatchManifest(BatchManifest.CURRENT_VERSION, batchId, profile,
        DeploymentLoader.defaults(new Home(profile.source().getParent())), IngestionType.INCREMENTAL, true,
        Instant.parse("2026-11-30T12:00:00Z"), List.of(new ManifestFile("f1", "file:///data/x/p1/a.csv", "p1", 1, 1,
            "e1", Instant.parse("2026-11-30T12:00:00Z"))));
  }
}
