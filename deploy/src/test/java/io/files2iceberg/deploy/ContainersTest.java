package io.files2iceberg.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.batcher.cli.Files2Iceberg;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/** The images start what the Cloud Run resources expect, with the options the code has. */
class ContainersTest {

  private static final Pattern ENTRYPOINT = Pattern.compile("ENTRYPOINT \\[(.*)]");
  private static final Pattern MODULE = Pattern.compile("package -pl (\\S+) -am");

  @Test
  void eachImageBuildsItsModuleAndRunsItsMainClassOnTheJre() {
    assertImage("listener.Dockerfile", "listener", "io.files2iceberg.listener.ListenerApplication");
    assertImage("batcher.Dockerfile", "batcher", "io.files2iceberg.batcher.cli.Files2Iceberg");
  }

  private static void assertImage(String dockerfile, String module, String mainClass) {
    String text = Repository.read(Repository.ROOT.resolve("deploy/docker").resolve(dockerfile));
    Matcher built = MODULE.matcher(text);
    Matcher entry = ENTRYPOINT.matcher(text);

    assertThat(built.find()).as("%s builds a module with -pl", dockerfile).isTrue();
    assertThat(built.group(1)).as(dockerfile).isEqualTo(module);
    assertThat(text).contains("FROM maven:3.9-eclipse-temurin-17 AS build", "FROM eclipse-temurin:17-jre");
    assertThat(text)
        .contains(
            "COPY --from=build /src/" + module + "/target/classes /app/classes",
            "COPY --from=build /src/" + module + "/target/lib /app/lib");
    // target/lib is what the module's pom copies its runtime dependencies to.
    assertThat(Repository.read(Repository.ROOT.resolve(module).resolve("pom.xml")))
        .contains("<outputDirectory>${project.build.directory}/lib</outputDirectory>");
    assertThat(entry.find()).as("%s has an ENTRYPOINT", dockerfile).isTrue();
    assertThat(entry.group(1)).endsWith("\"" + mainClass + "\"");
    Path source =
        Repository.ROOT.resolve(module + "/src/main/java/" + mainClass.replace('.', '/') + ".java");
    assertThat(Files.isRegularFile(source)).as("%s exists", source).isTrue();
  }

  @Test
  void theBatcherJobsArgumentsAreACommandTheCliAccepts() {
    Map<String, Object> batcher = Hcl.parse(Repository.MODULE).resource("google_cloud_run_v2_job", "batcher");
    List<String> terraform =
        Hcl.list(Hcl.at(batcher, "template", "template", "containers", "args")).stream()
            .map(String::valueOf)
            .toList();
    // The options' values are expressions; put values like those Terraform computes in their place.
    List<String> args = new ArrayList<>();
    for (int i = 0; i < terraform.size(); i++) {
      args.add(i > 0 ? sampleValue(terraform.get(i - 1), terraform.get(i)) : terraform.get(i));
    }

    ParseResult parsed = Files2Iceberg.newCommandLine().parseArgs(args.toArray(String[]::new));

    List<CommandLine> commands = parsed.asCommandLineList();
    assertThat(commands)
        .extracting(CommandLine::getCommandName)
        .containsExactly("files2iceberg", "batch", "run-once");
    ParseResult runOnce = parsed.subcommand().subcommand();
    assertThat(runOnce.hasMatchedOption("--config")).isTrue();
    assertThat(runOnce.hasMatchedOption("--concurrency")).isTrue();
    assertThat(runOnce.hasMatchedOption("--job-timeout")).isTrue();
  }

  /** An option's value like the one Terraform computes; any other argument as it is. */
  private static String sampleValue(String option, String arg) {
    return switch (option) {
      case "--config" -> "/etc/files2iceberg/profiles";
      case "--concurrency" -> "4";
      case "--job-timeout" -> "3300s";
      default -> arg;
    };
  }
}
