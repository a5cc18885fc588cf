package io.files2iceberg.batcher.validate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.files2iceberg.batcher.local.SparkMain;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileError;
import io.files2iceberg.core.profile.ProfileRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code validate}'s check of {@code quality.expectations} with Spark's own parser and analyzer,
 * in a child JVM on the job's classpath ({@value SparkMain#EXPECTATION_CHECKS}), as {@code sql}
 * runs: only when a profile has a {@code check} or a {@code max-null-fraction} column, since
 * starting Spark takes seconds.
 *
 * @param errors problems as {@code validate} lists them ({@code file: key: reason}): exit 2
 * @param warnings what could not be checked, and why
 */
record ExpectationCheckRun(List<String> errors, List<String> warnings) {
  /** How long the child may take: it starts Spark and reads each table's schema once. */
  static final Duration TIMEOUT = Duration.ofMinutes(3);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Whether any profile has something to check before files are read. */
  static boolean isNeeded(ProfileRegistry registry) {
    return registry.profiles().stream().anyMatch(p -> p.quality().namesColumns());
  }

  /** Runs the check; what cannot run (no job build, a child that fails) is a warning, never silent. */
  static ExpectationCheckRun run(Path config, Home home, Map<String, String> env) throws InterruptedException {
    SparkMain.Result result;
    try {
      result = SparkMain.locate(env, home.root()).run(SparkMain.EXPECTATION_CHECKS,
          List.of("--home", home.root().toString(), "--config", config.toAbsolutePath().toString()), TIMEOUT);
    } catch (RuntimeException e) {
      return notChecked(e.getMessage());
    }
    if (!result.isSuccess()) {
      return notChecked("the check exited " + result.exitCode() + ": " + lastLine(result.stderr()));
    }
    List<String> errors = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    for (String line : result.stdout().lines().filter(l -> l.startsWith("{")).toList()) {
      JsonNode node;
      try {
        node = JSON.readTree(line);
      } catch (IOException e) {
        continue; // a line of Spark's, not ours
      }
      if (node.has("unreadable")) {
        warnings.add("table " + node.path("unreadable").asText() + " (profile \"" + node.path("profile").asText()
            + "\"): its schema could not be read, so its expectations were checked against the profile's columns: "
            + node.path("reason").asText());
        continue;
      }
      String problem = new ProfileError(Path.of(node.path("source").asText()), node.path("key").asText(),
          node.path("reason").asText()).toString();
      if (node.path("outcome").asText().equals("error")) {
        errors.add(problem);
      } else {
        warnings.add(problem);
      }
    }
    return new ExpectationCheckRun(errors, warnings);
  }

  private static ExpectationCheckRun notChecked(String why) {
    return new ExpectationCheckRun(List.of(), List.of("quality.expectations were not checked against the tables'"
        + " columns: " + why + "; a batch checks them when it reads files"));
  }

  private static String lastLine(String text) {
    List<String> lines = text.strip().lines().toList();
    return lines.isEmpty() ? "(nothing on stderr)" : lines.get(lines.size() - 1);
  }
}
