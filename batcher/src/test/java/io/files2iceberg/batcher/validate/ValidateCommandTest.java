package io.files2iceberg.batcher.validate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.files2iceberg.batcher.cli.Files2Iceberg;
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
    assertThat(clickstream.at("/ledger/type").asText()).isEqualTo("sqlite");
    assertThat(clickstream.at("/ledger/sqlite-path").asText())
        .isEqualTo(home.resolve("ledger.db").toAbsolutePath().toString());
    assertThat(clickstream.at("/listener/push-path").asText()).isEqualTo("/pubsub/push");
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
}
