package io.files2iceberg.batcher.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code -V}/{@code --version} on the top level and on every command prints the build's version. */
class VersionTest {

  private static String version(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine = Files2Iceberg.newCommandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int exit = commandLine.execute(args);
    assertThat(exit).as(String.join(" ", args) + ": " + err).isZero();
    return out.toString();
  }

  /** Every command path below the top level ({@code status}, {@code batch run-once}, ...), help aside. */
  private static List<List<String>> commands(CommandLine parent, List<String> path) {
    List<List<String>> found = new ArrayList<>();
    parent.getSubcommands().forEach((name, sub) -> {
      if (!name.equals("help")) {
        List<String> here = new ArrayList<>(path);
        here.add(name);
        found.add(here);
        found.addAll(commands(sub, here));
      }
    });
    return found;
  }

  @Test
  void theTopLevelVersionIsTheBuildVersion() {
    String printed = version("--version");

    assertThat(printed).matches("files2iceberg \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?" + System.lineSeparator());
    assertThat(version("-V")).isEqualTo(printed);
  }

  @Test
  void everyCommandPrintsTheSameVersionWithDashVAndDashDashVersion() {
    String expected = version("--version");
    List<List<String>> commands = commands(Files2Iceberg.newCommandLine(), List.of());
    assertThat(commands).extracting(path -> String.join(" ", path))
        .contains("status", "listen", "batch run-once", "quarantine release");

    for (List<String> path : commands) {
      for (String option : new String[] {"--version", "-V"}) {
        List<String> args = new ArrayList<>(path);
        args.add(option);
        assertThat(version(args.toArray(String[]::new))).as(String.join(" ", args)).isEqualTo(expected);
      }
    }
  }
}
