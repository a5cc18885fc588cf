package io.files2iceberg.batcher.cli;

import io.files2iceberg.core.match.Glob;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileError;
import io.files2iceberg.core.profile.ProfileException;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.profile.TableProfile;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * How every command reports configuration it cannot use: all problems at once, each on its own
 * line, then exit {@link ExitCode#INVALID}.
 *
 * <pre>
 * error: 2 problem(s) in profiles/:
 *   profiles/clicks.conf: extract.max-batch-sise: unknown key; did you mean 'max-batch-size'?
 *   profiles/clicks.conf: extract.batch-file.pattern: must have exactly one capture group, has 2
 * </pre>
 */
public final class ConfigProblems {
  private ConfigProblems() {}

  /**
   * Loads the profiles with the deployment file ({@link DeploymentFile}), or prints every problem
   * and returns empty.
   */
  public static Optional<ProfileRegistry> load(Path config, Home home, PrintWriter err) {
    if (!Files.exists(config)) {
      ErrorOutput.print(err, config + ": no such file or folder");
      err.flush();
      return Optional.empty();
    }
    try {
      return Optional.of(ProfileRegistry.load(config, DeploymentFile.chosen(), home));
    } catch (ProfileException e) {
      print(err, config.toString(), e.errors().stream().map(ProfileError::toString).toList());
      return Optional.empty();
    }
  }

  /**
   * Every warning about the profiles: one {@code warning:} line per value a profile may keep but
   * should change ({@link ProfileRegistry#warnings()}, such as a boolean {@code
   * load.schema-evolution}), naming the file and the key, then the globs' ({@link
   * #warnAboutChangedGlobs}).
   */
  public static void warn(ProfileRegistry registry, PrintWriter err) {
    for (ProfileError warning : registry.warnings()) {
      err.println("warning: " + warning);
    }
    warnAboutChangedGlobs(registry.profiles(), err);
  }

  /**
   * One {@code warning:} line per profile glob that holds a {@code [} or {@code \\} which matched
   * itself before globs had classes and escapes ({@link Glob#changedMeanings()}), naming the file,
   * {@code extract.path}, the profile, the new meaning and the escape.
   */
  public static void warnAboutChangedGlobs(List<TableProfile> profiles, PrintWriter err) {
    for (TableProfile profile : profiles) {
      for (String changed : Glob.parse(profile.extract().path()).changedMeanings()) {
        err.println("warning: " + new ProfileError(profile.source(), "extract.path", "profile \"" + profile.name()
            + "\": \"" + profile.extract().path() + "\": " + changed));
      }
    }
    err.flush();
  }

  /** {@code error: N problem(s) in WHERE:} and one indented line per problem. */
  public static void print(PrintWriter err, String where, List<String> problems) {
    ErrorOutput.print(err, describe(where, problems));
    err.flush();
  }

  /** {@code N problem(s) in WHERE:} and one indented line per problem, as {@link #print} prints it. */
  public static String describe(String where, List<String> problems) {
    StringBuilder text = new StringBuilder(problems.size() + " problem(s) in " + where + ":");
    for (String problem : problems) {
      text.append(System.lineSeparator()).append("  ").append(problem);
    }
    return text.toString();
  }
}
