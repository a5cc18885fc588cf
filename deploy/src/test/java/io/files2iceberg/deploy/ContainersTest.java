package io.files2iceberg.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.batcher.cli.ExitCode;
import io.files2iceberg.batcher.cli.Files2Iceberg;
import io.files2iceberg.core.profile.KubernetesSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/** The images start what the Cloud Run resources expect, with the options the code has. */
class ContainersTest {

  private static final Pattern ENTRYPOINT = Pattern.compile("ENTRYPOINT \\[(.*)]");
  private static final Pattern MODULE = Pattern.compile("package -pl (\\S+) -am");
  private static final String PROFILES_DIR = "/etc/files2iceberg/profiles";

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
  void theSparkJobImageIsTheJobsSparkWithTheJarAndConnectorWhereTheLauncherLooks() {
    String text = Repository.read(Repository.ROOT.resolve("deploy/docker/spark-job.Dockerfile"));
    String parent = Repository.read(Repository.ROOT.resolve("pom.xml"));
    String sparkJobPom = Repository.read(Repository.ROOT.resolve("spark-job/pom.xml"));

    // The Spark and Scala the job is built against, on Java 17.
    assertThat(text).contains("FROM apache/spark:" + property(parent, "spark.version") + "-scala"
        + property(parent, "scala.binary.version") + "-java17-ubuntu\n");
    Matcher built = MODULE.matcher(text);
    assertThat(built.find()).isTrue();
    assertThat(built.group(1)).isEqualTo("spark-job");
    // The shaded jar the spark-job module builds, where job.kubernetes.jar points by default.
    assertThat(sparkJobPom).contains("<artifactId>files2iceberg-spark-job</artifactId>",
        "<shadedClassifierName>all</shadedClassifierName>");
    assertThat(KubernetesSettings.DEFAULT_JAR).startsWith("local://");
    String jarInImage = KubernetesSettings.DEFAULT_JAR.substring("local://".length());
    assertThat(text).contains("cp spark-job/target/files2iceberg-spark-job-*-all.jar /tmp/files2iceberg-spark-job-all.jar",
        "COPY --from=build /tmp/files2iceberg-spark-job-all.jar " + jarInImage + "\n");
    // The GCS connector the job compiles against (provided there), shaded, in Spark's jars folder.
    Matcher connector = Pattern.compile("<artifactId>gcs-connector</artifactId>\\s*<version>([^<]+)</version>\\s*"
        + "<classifier>shaded</classifier>").matcher(sparkJobPom);
    assertThat(connector.find()).as("spark-job/pom.xml has the shaded gcs-connector").isTrue();
    String version = connector.group(1);
    assertThat(text).contains("-Dartifact=com.google.cloud.bigdataoss:gcs-connector:" + version + ":jar:shaded",
        "COPY --from=build /tmp/connector/gcs-connector-" + version + "-shaded.jar /opt/spark/jars/gcs-connector-"
            + version + "-shaded.jar");
    // The pod's args are the command: the image keeps Spark's entry point, which passes them through.
    assertThat(text).doesNotContain("ENTRYPOINT", "CMD");
  }

  @Test
  void cloudBuildBuildsAndPushesEveryImageWithItsDockerignore() {
    String cloudbuild = Repository.read(Repository.ROOT.resolve("deploy/docker/cloudbuild.yaml"));
    for (String image : List.of("listener", "batcher", "spark-job")) {
      assertThat(cloudbuild).contains("\"-f\", \"deploy/docker/" + image + ".Dockerfile\", \"-t\", \"${_IMAGE_PREFIX}/"
          + image + ":${_TAG}\"", "- \"${_IMAGE_PREFIX}/" + image + ":${_TAG}\"");
      assertThat(Repository.read(Repository.ROOT.resolve("deploy/docker/" + image + ".Dockerfile.dockerignore")))
          .contains("**/target/");
    }
  }

  private static String property(String pom, String name) {
    Matcher m = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</" + Pattern.quote(name) + ">").matcher(pom);
    assertThat(m.find()).as("pom.xml property %s", name).isTrue();
    return m.group(1);
  }

  @Test
  void theBatcherJobsArgumentsAreACommandTheCliAccepts() {
    ParseResult parsed = parseJobArgs("batcher", "--compact");

    assertThat(parsed.asCommandLineList())
        .extracting(CommandLine::getCommandName)
        .containsExactly("files2iceberg", "batch", "run-once");
    ParseResult runOnce = parsed.subcommand().subcommand();
    assertThat(runOnce.hasMatchedOption("--config")).isTrue();
    assertThat(runOnce.hasMatchedOption("--concurrency")).isTrue();
    assertThat(runOnce.hasMatchedOption("--job-timeout")).isTrue();
  }

  @Test
  void theMaintenanceJobsArgumentsAreAMaintainCommandTheCliAccepts() {
    for (String compaction : List.of("--compact", "--no-compact")) {
      ParseResult parsed = Files2Iceberg.newCommandLine().parseArgs(maintenanceArgs(compaction, List.of())
          .toArray(String[]::new));

      assertThat(parsed.asCommandLineList())
          .extracting(CommandLine::getCommandName)
          .containsExactly("files2iceberg", "maintain");
      ParseResult maintain = parsed.subcommand();
      assertThat(maintain.matchedOptionValue("--config", Path.of(""))).isEqualTo(Path.of(PROFILES_DIR));
      assertThat(maintain.matchedOptionValue("--retention", "")).isEqualTo(defaultRetention());
      assertThat(maintain.matchedOptionValue("--compact", (Boolean) null))
          .as("maintenance_compact passes %s", compaction)
          .isEqualTo(compaction.equals("--compact"));
      assertThat(maintain.hasMatchedOption("--timeout")).isTrue();
    }
  }

  @Test
  void everyMaintenanceActionAndTheTableOptionsAreOptionsMaintainAccepts() {
    // What maintenance_action_args gives with every variable on, the orphan age at its default,
    // then what the per-table jobs and the skipping add.
    String olderThan = String.valueOf(Hcl.at(Hcl.parse(Repository.MODULE).variables(), "maintenance_orphan_older_than",
        "default"));
    List<String> actions = List.of("--sort", "--rewrite-position-deletes", "--rewrite-manifests",
        "--remove-orphan-files", "--orphan-older-than", olderThan, "--skip-table", "lake.sales.orders",
        "--table", "lake.sales.clicks");

    ParseResult maintain = Files2Iceberg.newCommandLine().parseArgs(maintenanceArgs("--compact", actions)
        .toArray(String[]::new)).subcommand();

    for (String flag : List.of("--sort", "--rewrite-position-deletes", "--rewrite-manifests", "--remove-orphan-files")) {
      assertThat(maintain.matchedOptionValue(flag, false)).as(flag).isTrue();
    }
    assertThat(maintain.matchedOptionValue("--orphan-older-than", (Object) null)).hasToString("PT72H");
    assertThat(maintain.matchedOptionValue("--skip-table", List.of())).isEqualTo(List.of("lake.sales.orders"));
  }

  /** {@code local.maintenance_base_args}, parsed values in place of expressions, then {@code actions}. */
  private static List<String> maintenanceArgs(String compaction, List<String> actions) {
    List<String> terraform = Hcl.list(Hcl.at(Hcl.parse(Repository.MODULE).blocks("locals"), "maintenance_base_args"))
        .stream().map(String::valueOf).toList();
    List<String> args = new ArrayList<>();
    for (int i = 0; i < terraform.size(); i++) {
      String arg = terraform.get(i);
      args.add(arg.equals("local.maintenance_compaction") ? compaction
          : i > 0 ? sampleValue(terraform.get(i - 1), arg) : arg);
    }
    args.addAll(actions);
    return args;
  }

  @Test
  void theReconcileJobsArgumentsAreAReconcileCommandTheCliAccepts() {
    String stuckAfter = String.valueOf(Hcl.at(Hcl.parse(Repository.MODULE).variables(), "reconcile_stuck_after",
        "default"));
    for (boolean fix : List.of(false, true)) {
      List<String> args = new ArrayList<>(List.of("reconcile", "--config", PROFILES_DIR, "--stuck-after", stuckAfter));
      if (fix) {
        args.add("--fix");
      }
      ParseResult parsed = Files2Iceberg.newCommandLine().parseArgs(args.toArray(String[]::new));

      assertThat(parsed.asCommandLineList()).extracting(CommandLine::getCommandName)
          .containsExactly("files2iceberg", "reconcile");
      assertThat(parsed.subcommand().matchedOptionValue("--stuck-after", (Object) null)).hasToString("PT6H");
      assertThat(parsed.subcommand().hasMatchedOption("--fix")).isEqualTo(fix);
    }
  }

  @Test
  void theBatcherServicesArgumentsAreAServeCommandTheCliAccepts() {
    Map<String, Object> container = Hcl.map(Hcl.map(
        Hcl.parse(Repository.MODULE).resource("google_cloud_run_v2_service", "batcher"), "template", "batcher"),
        "containers", "batcher template");
    List<String> terraform = Hcl.list(container.get("args")).stream().map(String::valueOf).toList();
    List<String> args = new ArrayList<>();
    for (int i = 0; i < terraform.size(); i++) {
      String arg = terraform.get(i);
      args.add(i == 0 ? arg : switch (terraform.get(i - 1)) {
        case "--interval" -> "60s";
        default -> sampleValue(terraform.get(i - 1), arg);
      });
    }

    ParseResult parsed = Files2Iceberg.newCommandLine().parseArgs(args.toArray(String[]::new));

    assertThat(parsed.asCommandLineList()).extracting(CommandLine::getCommandName)
        .containsExactly("files2iceberg", "batch", "serve");
    ParseResult serve = parsed.subcommand().subcommand();
    assertThat(serve.matchedOptionValue("--metrics-port", 0)).isEqualTo(8080);
    assertThat(serve.matchedOptionValue("--metrics-address", "")).isEqualTo("0.0.0.0");
    assertThat(serve.hasMatchedOption("--interval")).isTrue();
  }

  @Test
  void theDefaultRetentionIsOneMaintainAccepts(@TempDir Path emptyProfiles) {
    // maintain checks --retention when it runs, before it opens the profiles: the default passes
    // that check (and the run stops at the empty profile folder), a retention without a unit not.
    Run accepted = runMaintain(emptyProfiles, defaultRetention());
    Run rejected = runMaintain(emptyProfiles, "seven days");

    assertThat(accepted.exitCode()).isEqualTo(ExitCode.INVALID);
    assertThat(accepted.err()).doesNotContain("--retention").contains(emptyProfiles.toString());
    assertThat(rejected.exitCode()).isEqualTo(ExitCode.INVALID);
    assertThat(rejected.err()).contains("--retention", "seven days");
  }

  private record Run(int exitCode, String err) {}

  private static Run runMaintain(Path profiles, String retention) {
    StringWriter err = new StringWriter();
    CommandLine cli = Files2Iceberg.newCommandLine();
    cli.setErr(new PrintWriter(err, true));
    cli.setOut(new PrintWriter(new StringWriter(), true));
    int exitCode = cli.execute("maintain", "--config", profiles.toString(), "--retention", retention);
    return new Run(exitCode, err.toString());
  }

  private static String defaultRetention() {
    return String.valueOf(Hcl.at(Hcl.parse(Repository.MODULE).variables(), "maintenance_retention", "default"));
  }

  /**
   * The arguments of one job of the batcher image ({@code local.batcher_image_jobs}), parsed by
   * the CLI. The options' values are expressions: values like those Terraform computes take their
   * place, and {@code local.maintenance_compaction} becomes {@code compaction}.
   */
  private static ParseResult parseJobArgs(String job, String compaction) {
    Map<String, Object> jobs = Hcl.map(Hcl.parse(Repository.MODULE).blocks("locals"), "batcher_image_jobs", "locals");
    List<String> terraform =
        Hcl.list(Hcl.at(Hcl.map(jobs, job, "local.batcher_image_jobs"), "args")).stream()
            .map(String::valueOf)
            .toList();
    List<String> args = new ArrayList<>();
    for (int i = 0; i < terraform.size(); i++) {
      String arg = terraform.get(i);
      if (arg.equals("local.maintenance_compaction")) {
        args.add(compaction);
      } else {
        args.add(i > 0 ? sampleValue(terraform.get(i - 1), arg) : arg);
      }
    }
    return Files2Iceberg.newCommandLine().parseArgs(args.toArray(String[]::new));
  }

  /** An option's value like the one Terraform computes; any other argument as it is. */
  private static String sampleValue(String option, String arg) {
    return switch (option) {
      case "--config" -> PROFILES_DIR;
      case "--concurrency" -> "4";
      case "--job-timeout" -> "3300s";
      case "--retention" -> defaultRetention();
      case "--timeout" -> "14100s";
      default -> arg;
    };
  }
}
