package io.files2iceberg.batcher.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.batcher.cli.ExitCode;
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

    assertThat(exit).as(err.toString()).isEqualTo(ExitCode.INVALID);
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

    assertThat(exit).as(err.toString()).isEqualTo(ExitCode.INVALID);
    assertThat(err.toString()).contains(missing + ": no such deployment file");
  }

  /** {@code local --until-idle} on one profile, clicks.conf, whose {@code extract.path} is {@code path}. */
  private int runLocalOnAProfileWithPath(String path) throws Exception {
    Files.writeString(Files.createDirectories(work.resolve("profiles")).resolve("clicks.conf"), """
        extract { path = "%s", format = csv }
        load.iceberg.table = "local.demo.clicks"
        """.formatted(path));
    return run("local", "--config", work.resolve("profiles").toString(), "--landing",
        Files.createDirectories(work.resolve("landing")).toString(), "--until-idle", "--home",
        work.resolve("home").toString());
  }

  private String refusal(String path, String why) {
    return work.resolve("profiles").resolve("clicks.conf") + ": extract.path: profile \"clicks\" matches no file"
        + " of the landing folder file://" + work.resolve("landing").toAbsolutePath() + "/: \"" + path + "\" " + why;
  }

  @Test
  void aProfileThatCannotMatchAFileOfTheLandingFolderIsRefusedBeforeAnythingStarts() throws Exception {
    int exit = runLocalOnAProfileWithPath("file:///elsewhere/clicks/dt=*/*.csv");

    assertThat(exit).as(err.toString()).isEqualTo(ExitCode.INVALID);
    assertThat(err.toString()).contains(refusal("file:///elsewhere/clicks/dt=*/*.csv", "lies outside it"));
    assertThat(out.toString()).doesNotContain("listener up").doesNotContain("nothing new");
  }

  @Test
  void aGsProfileIsRefusedByLocal() throws Exception {
    int exit = runLocalOnAProfileWithPath("gs://landing/raw/clicks/*.csv");

    assertThat(exit).as(err.toString()).isEqualTo(ExitCode.INVALID);
    assertThat(err.toString()).contains(refusal("gs://landing/raw/clicks/*.csv", "is a gs:// path"));
    assertThat(out.toString()).doesNotContain("listener up");
  }

  @Test
  void aBracketThatWasLiteralBeforeIsWarnedAboutAsValidateDoes() throws Exception {
    int exit = runLocalOnAProfileWithPath("gs://landing/raw/part-[1-2].csv");

    assertThat(exit).isEqualTo(ExitCode.INVALID);
    assertThat(err.toString()).startsWith("warning: " + work.resolve("profiles").resolve("clicks.conf")
        + ": extract.path: profile \"clicks\": \"gs://landing/raw/part-[1-2].csv\": \"[1-2]\" is now a character"
        + " class");
  }
}
