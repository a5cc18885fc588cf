package io.files2iceberg.batcher.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.batcher.cli.Files2Iceberg;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code local}'s configuration: the profiles and the deployment file every other command reads. No Spark here. */
class LocalCommandTest {
  private static final Path EXAMPLE = Path.of("..", "examples", "local");

  @TempDir Path work;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    return commandLine.execute(args);
  }

  @Test
  void theDeploymentOptionIsReadAndItsProblemsStopTheRunBeforeAnythingStarts() throws Exception {
    Path deployment = Files.createDirectories(work.resolve("ops")).resolve("prod.conf");
    Files.writeString(deployment, "listener.port = 0\nledger.type = cassandra\n");
    Path landing = Files.createDirectories(work.resolve("landing"));

    int exit = run("local", "--config", EXAMPLE.toString(), "--deployment", deployment.toString(),
        "--landing", landing.toString(), "--until-idle", "--home", work.resolve("home").toString());

    assertThat(exit).as(err.toString()).isEqualTo(Files2Iceberg.EXIT_INVALID);
    assertThat(err.toString())
        .contains(deployment + ": listener.port: must be at least 1, got 0")
        .contains(deployment + ": ledger.type: no ledger provider of type \"cassandra\" on the classpath");
    assertThat(out.toString()).doesNotContain("listener up");
  }

  @Test
  void aDeploymentFileThatDoesNotExistIsNamed() throws Exception {
    Path missing = work.resolve("ops").resolve("missing.conf");
    Path landing = Files.createDirectories(work.resolve("landing"));

    int exit = run("local", "--config", EXAMPLE.toString(), "--deployment", missing.toString(),
        "--landing", landing.toString(), "--until-idle", "--home", work.resolve("home").toString());

    assertThat(exit).as(err.toString()).isEqualTo(Files2Iceberg.EXIT_INVALID);
    assertThat(err.toString()).contains(missing + ": no such deployment file");
  }

  @Test
  void aProfileThatCannotMatchAFileOfTheLandingFolderIsRefusedBeforeAnythingStarts() throws Exception {
    Path landing = Files.createDirectories(work.resolve("landing"));
    Path config = Files.createDirectories(work.resolve("profiles"));
    Files.writeString(config.resolve("clicks.conf"), """
        extract { path = "file:///elsewhere/clicks/dt=*/*.csv", format = csv }
        load.iceberg.table = "local.demo.clicks"
        """);

    int exit = run("local", "--config", config.toString(), "--landing", landing.toString(), "--until-idle",
        "--home", work.resolve("home").toString());

    assertThat(exit).as(err.toString()).isEqualTo(Files2Iceberg.EXIT_INVALID);
    assertThat(err.toString()).contains(config.resolve("clicks.conf") + ": extract.path: profile \"clicks\""
        + " matches no file of the landing folder file://" + landing.toAbsolutePath() + "/:"
        + " \"file:///elsewhere/clicks/dt=*/*.csv\" lies outside it");
    assertThat(out.toString()).doesNotContain("listener up").doesNotContain("nothing new");
  }

  @Test
  void aGsProfileIsRefusedByLocal() throws Exception {
    Path landing = Files.createDirectories(work.resolve("landing"));
    Path config = Files.createDirectories(work.resolve("profiles"));
    Files.writeString(config.resolve("clicks.conf"), """
        extract { path = "gs://landing/raw/clicks/*.csv", format = csv }
        load.iceberg.table = "local.demo.clicks"
        """);

    int exit = run("local", "--config", config.toString(), "--landing", landing.toString(), "--until-idle",
        "--home", work.resolve("home").toString());

    assertThat(exit).as(err.toString()).isEqualTo(Files2Iceberg.EXIT_INVALID);
    assertThat(err.toString()).contains(config.resolve("clicks.conf") + ": extract.path: profile \"clicks\""
        + " matches no file of the landing folder file://" + landing.toAbsolutePath() + "/:"
        + " \"gs://landing/raw/clicks/*.csv\" is a gs:// path");
    assertThat(out.toString()).doesNotContain("listener up");
  }

  @Test
  void aBracketThatWasLiteralBeforeIsWarnedAboutAsValidateDoes() throws Exception {
    Path landing = Files.createDirectories(work.resolve("landing"));
    Path config = Files.createDirectories(work.resolve("profiles"));
    Files.writeString(config.resolve("clicks.conf"), """
        extract { path = "gs://landing/raw/part-[1-2].csv", format = csv }
        load.iceberg.table = "local.demo.clicks"
        """);

    int exit = run("local", "--config", config.toString(), "--landing", landing.toString(), "--until-idle",
        "--home", work.resolve("home").toString());

    assertThat(exit).isEqualTo(Files2Iceberg.EXIT_INVALID);
    assertThat(err.toString()).startsWith("warning: " + config.resolve("clicks.conf") + ": extract.path: profile"
        + " \"clicks\": \"gs://landing/raw/part-[1-2].csv\": \"[1-2]\" is now a character class");
  }
}
