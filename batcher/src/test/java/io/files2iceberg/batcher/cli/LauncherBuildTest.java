package io.files2iceberg.batcher.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/files2iceberg}'s build on first use, in a copy of the launcher whose {@code mvn} and
 * {@code java} are stand-ins on the PATH: the stand-in Maven prints what a reactor build prints
 * and exits as told; the stand-in java prints its command line.
 */
class LauncherBuildTest {
  private static final Path LAUNCHER = Path.of("..", "bin", "files2iceberg");

  /** What {@code mvn -B package -pl batcher,spark-job -am} prints, shortened. */
  private static final String MAVEN_OUTPUT = """
      [INFO] Scanning for projects...
      [INFO] ------------------------------------------------------------------------
      [INFO] Reactor Build Order:
      [INFO]
      [INFO] files2iceberg                                                      [pom]
      [INFO] files2iceberg core                                                 [jar]
      [INFO] files2iceberg spark-job                                            [jar]
      [INFO] files2iceberg batcher                                              [jar]
      [INFO]
      [INFO] ------------------< io.files2iceberg:files2iceberg-parent >-------------------
      [INFO] Building files2iceberg 0.1.0-SNAPSHOT                              [1/4]
      [INFO] --------------------------------[ pom ]---------------------------------
      [INFO]
      [INFO] -------------------< io.files2iceberg:files2iceberg-core >-------------------
      [INFO] Building files2iceberg core 0.1.0-SNAPSHOT                         [2/4]
      [INFO] --------------------------------[ jar ]---------------------------------
      Downloading from central: https://repo.maven.apache.org/maven2/org/apache/iceberg/iceberg-core/1.9.2/iceberg-core-1.9.2.pom
      [INFO] Building jar: /checkout/core/target/files2iceberg-core-0.1.0-SNAPSHOT.jar
      [INFO]
      [INFO] -----------------< io.files2iceberg:files2iceberg-spark-job >-----------------
      [INFO] Building files2iceberg spark-job 0.1.0-SNAPSHOT                    [3/4]
      [INFO] --------------------------------[ jar ]---------------------------------
      [INFO] Building jar: /checkout/spark-job/target/files2iceberg-spark-job-0.1.0-SNAPSHOT.jar
      [INFO]
      [INFO] ------------------< io.files2iceberg:files2iceberg-batcher >------------------
      [INFO] Building files2iceberg batcher 0.1.0-SNAPSHOT                      [4/4]
      [INFO] --------------------------------[ jar ]---------------------------------
      """;

  private static final List<String> MODULES_BUILT = List.of(
      "files2iceberg: building files2iceberg (1/4)",
      "files2iceberg: building core (2/4)",
      "files2iceberg: building spark-job (3/4)",
      "files2iceberg: building batcher (4/4)");

  @TempDir Path dir;

  private Path checkout;
  private Path home;
  private Path tmp;

  private record Run(int exit, String out, String err) {}

  @BeforeEach
  void standIns() throws IOException {
    checkout = Files.createDirectories(dir.resolve("checkout"));
    Files.createDirectories(checkout.resolve("bin"));
    Files.copy(LAUNCHER, checkout.resolve("bin/files2iceberg"));
    Files.writeString(checkout.resolve("pom.xml"), "<project/>\n");
    home = Files.createDirectories(dir.resolve("home"));
    tmp = Files.createDirectories(dir.resolve("tmp"));
    Path bin = Files.createDirectories(dir.resolve("stand-ins"));
    executable(bin.resolve("mvn"), """
        #!/usr/bin/env bash
        mkdir -p batcher/target/classes batcher/target/lib spark-job/target/classes listener/target/classes \
          listener/target/lib
        touch spark-job/target/classpath.txt spark-job/target/ledger-classpath.txt
        cat "$MAVEN_OUTPUT"
        if [[ "${MAVEN_FAILS:-}" == true ]]; then
          echo "[ERROR] Failed to execute goal on project files2iceberg-core: Could not resolve dependencies"
          exit 1
        fi
        echo "[INFO] BUILD SUCCESS"
        """);
    executable(bin.resolve("java"), """
        #!/usr/bin/env bash
        echo "java $*"
        """);
    Files.writeString(dir.resolve("maven-output.txt"), MAVEN_OUTPUT);
  }

  private static void executable(Path file, String text) throws IOException {
    Files.writeString(file, text);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  private Run launch(Map<String, String> env, String... args) throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of("bash", checkout.resolve("bin/files2iceberg").toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command)
        .redirectOutput(dir.resolve("out.txt").toFile())
        .redirectError(dir.resolve("err.txt").toFile());
    builder.environment().remove("MAVEN_OPTS");
    builder.environment().remove("MAVEN_ARGS");
    builder.environment().put("PATH", dir.resolve("stand-ins") + ":" + System.getenv("PATH"));
    builder.environment().put("HOME", home.toString());
    builder.environment().put("TMPDIR", tmp.toString());
    builder.environment().put("MAVEN_OUTPUT", dir.resolve("maven-output.txt").toString());
    builder.environment().putAll(env);
    Process process = builder.start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the launcher ended").isTrue();
    return new Run(process.exitValue(), Files.readString(dir.resolve("out.txt")),
        Files.readString(dir.resolve("err.txt")));
  }

  @Test
  void firstBuildSaysItDownloadsAboutAGigabyteThenNamesEachModuleAsMavenBuildsIt() throws Exception {
    Run run = launch(Map.of(), "validate", "--config", "profiles");

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.err().lines().toList()).containsExactlyElementsOf(concat(List.of(
        "files2iceberg: building batcher,spark-job and the modules they need (first use or sources changed)",
        "files2iceberg: the first build downloads about 1 GB of dependencies (Spark, Iceberg, Hadoop, Google Cloud)"
            + " into " + home.resolve(".m2/repository") + " and takes a few minutes; later builds reuse them"),
        MODULES_BUILT));
    assertThat(run.out()).endsWith(" io.files2iceberg.batcher.cli.Files2Iceberg validate --config profiles\n");
    try (var left = Files.list(tmp)) {
      assertThat(left).as("Maven's output is not kept after a build that succeeded").isEmpty();
    }

    Run again = launch(Map.of(), "validate", "--config", "profiles");

    assertThat(again.err()).as("built: no build the second time").isEmpty();
    assertThat(again.out()).isEqualTo(run.out());
  }

  @Test
  void aBuildWithTheDependenciesInTheMavenRepositoryOnlyNamesTheModules() throws Exception {
    Path repository = dir.resolve("repository");
    Files.createDirectories(repository.resolve("org/apache/spark"));

    Run run = launch(Map.of("MAVEN_OPTS", "-Xmx1g -Dmaven.repo.local=" + repository), "status");

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.err().lines().toList()).containsExactlyElementsOf(concat(List.of(
        "files2iceberg: building batcher,spark-job and the modules they need (first use or sources changed)"),
        MODULES_BUILT));
  }

  @Test
  void aFailedBuildShowsMavensWholeOutputThenTheErrorAndExitsOne() throws Exception {
    Run run = launch(Map.of("MAVEN_FAILS", "true"), "validate", "--config", "profiles");

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.out()).as("java is not started").isEmpty();
    assertThat(run.err()).contains(MAVEN_OUTPUT)
        .contains("[ERROR] Failed to execute goal on project files2iceberg-core: Could not resolve dependencies\n");
    List<String> lines = run.err().lines().toList();
    String last = lines.get(lines.size() - 1);
    assertThat(last).startsWith("error: the build failed; Maven's output is above and in " + tmp.resolve("files2iceberg-build."));
    assertThat(Files.readString(Path.of(last.substring(last.lastIndexOf(" in ") + 4))))
        .contains("[ERROR] Failed to execute goal");
  }

  private static List<String> concat(List<String> first, List<String> second) {
    List<String> all = new java.util.ArrayList<>(first);
    all.addAll(second);
    return all;
  }
}
