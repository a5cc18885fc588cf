package io.files2iceberg.batcher.validate;

import io.files2iceberg.batcher.cli.CliCommand;
import io.files2iceberg.batcher.cli.ConfigOption;
import io.files2iceberg.batcher.cli.ConfigProblems;
import io.files2iceberg.batcher.cli.ExitCode;
import io.files2iceberg.batcher.cli.HomeOption;
import io.files2iceberg.batcher.local.LandingScope;
import io.files2iceberg.core.profile.ProfileError;
import io.files2iceberg.core.profile.ProfileJson;
import io.files2iceberg.core.profile.ProfileRegistry;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code validate}: loads profiles, prints them resolved, or every error with file and key path. */
@Command(
    name = "validate",
    mixinStandardHelpOptions = true,
    description = {
      "Checks table profiles and prints them as JSON with every default filled in.",
      "Exits 0 when valid; exits 2 and lists every error (file, key path, reason) when not.",
      "Warns (stderr) about an extract.path whose '[' or '\\' meant itself before globs had classes and escapes.",
      "Checks each quality.expectations check with Spark's SQL parser against the table's columns (the",
      "profile's typed columns when the table does not exist yet), in a Spark child JVM: a column the",
      "table lacks is an error; one only the files can tell is a warning (checked when a batch reads them)."
    })
public final class ValidateCommand extends CliCommand {

  @Mixin ConfigOption.Required config;

  @Option(
      names = "--landing",
      paramLabel = "DIR",
      description = "Also check the profiles as local --landing DIR would: each extract.path must be a file:// glob"
          + " that can match a file inside DIR.")
  Path landing;

  @Mixin HomeOption home;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = out();
    PrintWriter err = err();
    Optional<ProfileRegistry> registry = ConfigProblems.load(config.path(), home.resolve(), err);
    if (registry.isEmpty()) {
      return ExitCode.INVALID;
    }
    if (landing != null) {
      List<ProfileError> unreachable = LandingScope.unreachable(registry.get().profiles(), landing);
      if (!unreachable.isEmpty()) {
        ConfigProblems.print(err, config.path().toString(), unreachable.stream().map(ProfileError::toString).toList());
        return ExitCode.INVALID;
      }
    }
    ConfigProblems.warn(registry.get(), err);
    if (ExpectationCheckRun.isNeeded(registry.get())) {
      ExpectationCheckRun checks = ExpectationCheckRun.run(config.path(), home.resolve(), System.getenv());
      checks.warnings().forEach(warning -> err.println("warning: " + warning));
      if (!checks.errors().isEmpty()) {
        ConfigProblems.print(err, config.path().toString(), checks.errors());
        return ExitCode.INVALID;
      }
    }
    out.println(ProfileJson.render(registry.get().profiles()));
    out.flush();
    DeploymentHintText.print(registry.get(), err);
    return 0;
  }
}
