package io.files2iceberg.batcher.validate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.files2iceberg.batcher.cli.ExitCode;
import io.files2iceberg.batcher.cli.Files2Iceberg;
import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.DeploymentLoader;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ValidateCommandTest {

  private static final Path EXAMPLE = Path.of("..", "examples", "profiles", "clickstream.conf");

  @TempDir Path home;
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
  void exampleProfileValidatesAndPrintsDefaults() throws IOException {
    int exit = run("validate", "--config", EXAMPLE.toString(), "--home", home.toString());

    assertThat(exit).as(err.toString()).isZero();
    JsonNode profiles = new ObjectMapper().readTree(out.toString());
    assertThat(profiles.isArray()).isTrue();
    JsonNode clickstream = profiles.get(0);
    assertThat(clickstream.get("name").asText()).isEqualTo("clickstream");
    assertThat(clickstream.at("/load/iceberg/table").asText()).isEqualTo("prod_catalog.raw.clickstream");
    assertThat(clickstream.at("/extract/max-batch-size").asInt()).isEqualTo(100);
    // Defaults are filled in, and the embedded ones point into the home folder.
    assertThat(clickstream.at("/catalog/warehouse").asText())
        .isEqualTo(home.resolve("warehouse").toAbsolutePath().toString());
    // A profile is its table only: the deployment's settings are the deployment file's.
    assertThat(clickstream.has("ledger") || clickstream.has("listener") || clickstream.has("job")).isFalse();
    assertThat(err.toString()).isEmpty();
  }

  @Test
  void profilesOfOldValidateAndTheDeploymentFileToWriteIsPrintedWithTheirSettings() throws Exception {
    String sections = """
        ledger { sqlite-path = "/var/lib/files2iceberg/ledger.db" }
        listener { port = 9090, push-path = "/gcs/push" }
        job { lease-timeout = 5m, spark-properties { "spark.executor.memory" = 4g } }
        """;
    Files.writeString(work.resolve("clicks.conf"), Files.readString(EXAMPLE) + sections);

    int exit = run("validate", "--config", work.toString(), "--home", home.toString());

    assertThat(exit).as(err.toString()).isZero();
    assertThat(new ObjectMapper().readTree(out.toString()).get(0).has("listener")).isFalse();
    String printed = err.toString();
    assertThat(printed).contains("clicks.conf carry deployment settings",
        work.resolve("deployment.conf").toString());
    String file = printed.substring(
        printed.indexOf(DeploymentHintText.BEGIN) + DeploymentHintText.BEGIN.length(),
        printed.indexOf(DeploymentHintText.END));
    Deployment written = DeploymentLoader.parse(file, work.resolve("deployment.conf"), new Home(home));
    Deployment fromSections = ProfileRegistry.load(work, new Home(home)).deployment();
    assertThat(written).isEqualTo(fromSections);
    assertThat(written.listener().port()).isEqualTo(9090);
    assertThat(written.job().sparkProperties()).containsEntry("spark.executor.memory", "4g");
    assertThat(written.ledger().sqlitePath()).isEqualTo("/var/lib/files2iceberg/ledger.db");
  }

  @Test
  void theDeploymentOptionNamesTheDeploymentFileAndItsProblemsAreListedWithTheProfiles() throws IOException {
    Path deployment = work.resolve("ops").resolve("prod.conf");
    Files.createDirectories(deployment.getParent());
    Files.writeString(deployment, "listener.port = 0\nledger.type = cassandra\n");

    int exit = run("validate", "--config", EXAMPLE.toString(), "--deployment", deployment.toString(),
        "--home", home.toString());

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString())
        .contains(deployment + ": listener.port: must be at least 1, got 0")
        .contains(deployment + ": ledger.type: no ledger provider of type \"cassandra\" on the classpath; found:"
            + " firestore, sqlite");
  }

  @Test
  void snapshotDeletesOfAnIncrementalOrAKeylessTableExitTwoNamingTheKeyAndTheReason() throws IOException {
    String example = Files.readString(EXAMPLE);
    Files.writeString(work.resolve("clicks.conf"), example + "load.snapshot-deletes = true\n");
    Files.writeString(work.resolve("keyless.conf"), example
        .replace("\"incremental\"", "\"full\"")
        .replace("primary-key = [\"click_id\"]", "primary-key = []")
        .replace("iceberg.precombine-field = \"click_time\"", "")
        .replace("raw/clicks/", "raw/keyless/")
        .replace("raw.clickstream", "raw.keyless") + "load.snapshot-deletes = true\n");

    int exit = run("validate", "--config", work.toString(), "--home", home.toString());

    assertThat(exit).isEqualTo(2);
    assertThat(out.toString()).isEmpty();
    assertThat(err.toString())
        .contains(work.resolve("clicks.conf") + ": load.snapshot-deletes: requires"
            + " extract.batch-file.ingestion-type = last or full: with incremental a batch holds only the files that"
            + " arrived since the last one, not the table's whole content, so a key absent from it was not deleted")
        .contains(work.resolve("keyless.conf") + ": load.snapshot-deletes: requires a non-empty load.primary-key: a"
            + " stored row is deleted when its key is absent from the batch");
  }

  @Test
  void brokenProfileExitsTwoListingEveryErrorWithFileAndKeyPath() throws IOException {
    String broken =
        Files.readString(EXAMPLE)
            .replace("max-batch-size = 100", "max-batch-sise = 100")
            .replace("(\\\\d{4}-\\\\d{2}-\\\\d{2})", "(\\\\d{4})-(\\\\d{2}-\\\\d{2})")
            .replace("\"prod_catalog.raw.clickstream\"", "\"clickstream\"");
    Path file = work.resolve("clicks.conf");
    Files.writeString(file, broken);

    int exit = run("validate", "--config", file.toString(), "--home", home.toString());

    assertThat(exit).isEqualTo(2);
    assertThat(out.toString()).isEmpty();
    assertThat(err.toString())
        .contains("clicks.conf: extract.max-batch-sise")
        .contains("did you mean 'max-batch-size'")
        .contains("clicks.conf: extract.batch-file.pattern")
        .contains("clicks.conf: load.iceberg.table");
  }

  @Test
  void missingConfigExitsTwoNamingThePath() {
    Path missing = work.resolve("nope.conf");

    int exit = run("validate", "--config", missing.toString(), "--home", home.toString());

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).contains(missing + ": no such file or folder");
  }

  @Test
  void everySubcommandHasHelp() {
    CommandLine commandLine = Files2Iceberg.newCommandLine();
    for (String name : commandLine.getSubcommands().keySet()) {
      if (name.equals("help")) {
        continue;
      }
      StringWriter help = new StringWriter();
      CommandLine sub = Files2Iceberg.newCommandLine();
      sub.setOut(new PrintWriter(help, true));
      assertThat(sub.execute(name, "--help")).as(name).isZero();
      assertThat(help.toString()).as(name).contains("Usage: files2iceberg " + name).contains("--home");
    }
  }

  private Path profile(String name, String path) throws IOException {
    return Files.writeString(work.resolve(name + ".conf"), """
        extract { path = "%s", format = csv }
        load.iceberg.table = "local.demo.%s"
        """.formatted(path.replace("\\", "\\\\"), name));
  }

  @Test
  void aGlobWithAnUnclosedBracketOrBraceIsRefusedNamingTheKeyPath() throws IOException {
    Path clicks = profile("clicks", "file:///landing/clicks/part-[1-2.csv");
    Path views = profile("views", "file:///landing/views/{a,b.csv");

    int exit = run("validate", "--config", work.toString(), "--home", home.toString());

    assertThat(exit).isEqualTo(ExitCode.INVALID);
    assertThat(out.toString()).isEmpty();
    assertThat(err.toString())
        .contains(clicks + ": extract.path: ")
        .contains("glob \"file:///landing/clicks/part-[1-2.csv\": unclosed '[' at \"[1-2.csv\"; write \\[ for a"
            + " literal '['")
        .contains(views + ": extract.path: ")
        .contains("glob \"file:///landing/views/{a,b.csv\": unclosed '{' at \"{a,b.csv\"");
  }

  @Test
  void aBracketThatWasLiteralBeforeValidatesWithAWarningNamingItsNewMeaningAndTheEscape() throws IOException {
    Path clicks = profile("clicks", "file:///landing/clicks/part-[1-2].csv");
    profile("views", "file:///landing/views/{a,b}/*.csv");

    int exit = run("validate", "--config", work.toString(), "--home", home.toString());

    assertThat(exit).as(err.toString()).isZero();
    assertThat(err.toString()).isEqualTo("warning: " + clicks + ": extract.path: profile \"clicks\":"
        + " \"file:///landing/clicks/part-[1-2].csv\": \"[1-2]\" is now a character class (one character of those"
        + " listed), no longer the literal text; write \\[1-2] for a literal '['\n");
  }

  @Test
  void theBooleanSchemaEvolutionOfOldValidatesWithAWarningNamingTheModeItIsReadAs() throws IOException {
    Path clicks = Files.writeString(work.resolve("clicks.conf"), """
        extract { path = "file:///landing/clicks/*.csv", format = csv }
        load { iceberg.table = "local.demo.clicks", schema-evolution = false }
        """);

    int exit = run("validate", "--config", work.toString(), "--home", home.toString());

    assertThat(exit).as(err.toString()).isZero();
    assertThat(err.toString()).isEqualTo("warning: " + clicks + ": load.schema-evolution: false is the boolean of old,"
        + " read as fail-on-new-columns; write load.schema-evolution = fail-on-new-columns (one of [add-new-columns,"
        + " fail-on-new-columns, rescue, none])\n");
    assertThat(out.toString()).contains("\"schema-evolution\" : \"fail-on-new-columns\"");
  }

  @Test
  void rescueWithoutARescuedDataColumnIsRefusedNamingTheKey() throws IOException {
    Path clicks = Files.writeString(work.resolve("clicks.conf"), """
        extract { path = "file:///landing/clicks/*.csv", format = csv }
        load { iceberg.table = "local.demo.clicks", schema-evolution = rescue }
        """);

    int exit = run("validate", "--config", work.toString(), "--home", home.toString());

    assertThat(exit).isEqualTo(ExitCode.INVALID);
    assertThat(err.toString()).contains(clicks + ": load.schema-evolution: rescue puts the values of new columns in"
        + " the rescued data column, and transform.rescued-data-column is not set");
  }

  @Test
  void anEscapedBracketValidatesAndMatchesItself() throws IOException {
    profile("clicks", "file:///landing/clicks/\\[eu]/*.csv");

    int exit = run("validate", "--config", work.toString(), "--home", home.toString());

    assertThat(exit).as(err.toString()).isZero();
    assertThat(new ObjectMapper().readTree(out.toString()).get(0).at("/extract/path").asText())
        .isEqualTo("file:///landing/clicks/\\[eu]/*.csv");
    assertThat(err.toString()).contains("'\\' now escapes the character after it");
  }

  @Test
  void withLandingAProfileThatCannotMatchAFileInsideTheFolderIsRefusedNamingProfilePathAndFolder()
      throws IOException {
    Path landing = Files.createDirectories(work.resolve("landing"));
    Path config = Files.createDirectories(work.resolve("profiles"));
    Files.writeString(config.resolve("inside.conf"), """
        extract { path = "file://%s/clicks/*/*.csv", format = csv }
        load.iceberg.table = "local.demo.inside"
        """.formatted(landing.toAbsolutePath()));
    Files.writeString(config.resolve("outside.conf"), """
        extract { path = "file:///elsewhere/clicks/*/*.csv", format = csv }
        load.iceberg.table = "local.demo.outside"
        """);
    Files.writeString(config.resolve("bucket.conf"), """
        extract { path = "gs://landing/raw/*.csv", format = csv }
        load.iceberg.table = "local.demo.bucket"
        """);

    int exit = run("validate", "--config", config.toString(), "--landing", landing.toString(),
        "--home", home.toString());

    assertThat(exit).isEqualTo(ExitCode.INVALID);
    assertThat(out.toString()).isEmpty();
    String folder = "file://" + landing.toAbsolutePath() + "/";
    assertThat(err.toString())
        .contains("error: 2 problem(s) in " + config)
        .contains(config.resolve("outside.conf") + ": extract.path: profile \"outside\" matches no file of the"
            + " landing folder " + folder + ": \"file:///elsewhere/clicks/*/*.csv\" lies outside it")
        .contains(config.resolve("bucket.conf") + ": extract.path: profile \"bucket\" matches no file of the"
            + " landing folder " + folder + ": \"gs://landing/raw/*.csv\" is a gs:// path")
        .doesNotContain("inside.conf");

    err.getBuffer().setLength(0);
    Files.delete(config.resolve("outside.conf"));
    Files.delete(config.resolve("bucket.conf"));
    assertThat(run("validate", "--config", config.toString(), "--landing", landing.toString(),
        "--home", home.toString())).as(err.toString()).isZero();
  }
}
