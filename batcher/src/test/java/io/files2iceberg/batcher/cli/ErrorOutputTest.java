package io.files2iceberg.batcher.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Every error the command line prints, in one style: {@code error: <message>} on stderr. No Spark here. */
class ErrorOutputTest {
  private static final Path INVALID_PROFILES = Path.of("..", "core", "src", "test", "resources", "profiles", "invalid");

  @TempDir Path home;

  private StringWriter out = new StringWriter();
  private StringWriter err = new StringWriter();

  private int run(String... args) {
    out = new StringWriter();
    err = new StringWriter();
    CommandLine commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    return commandLine.execute(args);
  }

  @AfterEach
  void forgetJobBuild() {
    System.clearProperty(LocalSparkLauncher.SPARK_JOB_DIR_PROPERTY);
  }

  @Test
  void aMisspeltRequiredOptionIsNamedWithTheOptionMeantRatherThanReportedMissing() {
    for (String[] args : new String[][] {{"validate", "--confg", "x"}, {"validate", "--confg=x"}}) {
      assertThat(run(args)).isEqualTo(ExitCode.INVALID);
      assertThat(err.toString()).isEqualTo("error: unknown option '--confg'; did you mean '--config'?\n");
      assertThat(out.toString()).isEmpty();
    }
  }

  @Test
  void aMisspeltCommandIsNamedWithTheLikeliestCommand() {
    assertThat(run("vaildate", "--config", "x")).isEqualTo(ExitCode.INVALID);
    assertThat(err.toString()).isEqualTo("error: unknown command 'vaildate'; did you mean 'validate'?\n");

    assertThat(run("batch", "run-onc")).isEqualTo(ExitCode.INVALID);
    assertThat(err.toString()).isEqualTo("error: unknown command 'run-onc'; did you mean 'run-once'?\n");
  }

  @Test
  void aMissingRequiredOptionIsNamedAndFollowedByTheUsage() {
    assertThat(run("validate")).isEqualTo(ExitCode.INVALID);
    assertThat(err.toString()).startsWith("error: missing required option: '--config=FILE|DIR'\n"
        + "Usage: files2iceberg validate ");
  }

  @Test
  void everyCommandGroupRunWithoutItsCommandExitsTwoWithItsUsageOnStderr() {
    for (List<String> group : List.<List<String>>of(List.of(), List.of("batch"), List.of("quarantine"))) {
      int exit = run(group.toArray(String[]::new));

      String name = String.join(" ", List.of("files2iceberg", String.join(" ", group))).strip();
      assertThat(exit).as(name).isEqualTo(ExitCode.INVALID);
      assertThat(out.toString()).as(name).isEmpty();
      assertThat(err.toString().lines().toList().get(1)).as(name).startsWith("Usage: " + name + " [");
      assertThat(err.toString()).as(name).contains("Commands:");
    }
    assertThat(run("batch")).isEqualTo(ExitCode.INVALID);
    assertThat(err.toString()).startsWith("error: files2iceberg batch needs a command: run-once or serve\n");
    assertThat(run("quarantine")).isEqualTo(ExitCode.INVALID);
    assertThat(err.toString()).startsWith("error: files2iceberg quarantine needs a command: list or release\n");
  }

  @Test
  void badConfigurationUsageErrorsAndFailuresWhileRunningShareOneStyle() {
    // A configuration error: every problem, under one error line.
    assertThat(run("validate", "--config", INVALID_PROFILES.toString(), "--home", home.toString()))
        .isEqualTo(ExitCode.INVALID);
    String config = err.toString();
    // A usage error.
    assertThat(run("batch", "run-once", "--config", INVALID_PROFILES.toString(), "--concurrency", "two"))
        .isEqualTo(ExitCode.INVALID);
    String usage = err.toString();
    // A failure while running: the exception a command throws.
    System.setProperty(LocalSparkLauncher.SPARK_JOB_DIR_PROPERTY, home.resolve("no-build").toString());
    assertThat(run("sql", "--home", home.toString(), "SELECT 1")).isEqualTo(ExitCode.FAILED);
    String failure = err.toString();

    assertThat(config).matches("(?s)error: \\d+ problem\\(s\\) in .*invalid:\n  .*");
    assertThat(usage).startsWith("error: invalid value for option '--concurrency': 'two' is not an int\n");
    assertThat(failure).isEqualTo("error: the Spark job is not built: "
        + home.resolve("no-build").resolve("classpath.txt")
        + " is missing; build the job first: mvn -pl spark-job -am package -DskipTests\n");
  }

  @Test
  void withJsonAFailurePrintsOnlyEventsOnStdoutAndTheErrorOnStderr() throws Exception {
    System.setProperty(LocalSparkLauncher.SPARK_JOB_DIR_PROPERTY, home.resolve("no-build").toString());

    // demo: the job's build is missing when it writes the sample data.
    assertThat(run("demo", "--json", "--home", home.toString())).isEqualTo(ExitCode.FAILED);
    List<JsonNode> events = EventLines.parse(out.toString());
    assertThat(EventLines.kinds(events)).containsExactly("started");
    assertThat(events.get(0).get("home").asText()).isEqualTo(home.toString());
    assertThat(err.toString()).startsWith("error: the Spark job is not built: ");

    // local: its landing folder is missing.
    Path profiles = Files.createDirectories(home.resolve("profiles"));
    assertThat(run("local", "--json", "--config", profiles.toString(), "--landing", home.resolve("none").toString(),
        "--home", home.toString())).isEqualTo(ExitCode.INVALID);
    assertThat(out.toString()).isEmpty();
    assertThat(err.toString()).isEqualTo("error: --landing " + home.resolve("none") + ": no such folder\n");
  }
}
