package io.files2iceberg.sparkjob;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.DeploymentLoader;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileException;
import io.files2iceberg.core.profile.ProfileLoader;
import io.files2iceberg.core.profile.TableProfile;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the command lines of the mains the batcher launches like maintenance share ({@code
 * maintain}, {@code rollback}, {@code drop-partition}): the table's rendered profile ({@code
 * --profile}, as {@code ProfileJson} renders it, which names the catalog) and deployment ({@code
 * --deployment}, as {@code DeploymentLoader.render} renders it). Errors name the option.
 */
public final class MainArguments {
  private MainArguments() {}

  /** The profile of {@code --profile}, resolved already: the home's defaults are never used. */
  public static TableProfile profile(String json) {
    try {
      // The rendered profile names its file (its name is the file's).
      JsonNode source = new ObjectMapper().readTree(json).path("source");
      if (!source.isTextual()) {
        throw new IllegalArgumentException("--profile: not a rendered profile (no \"source\")");
      }
      return ProfileLoader.parse(json, Path.of(source.asText()), Home.resolve(Optional.empty(), Map.of()));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("--profile: not JSON: " + e.getOriginalMessage(), e);
    } catch (ProfileException e) {
      throw new IllegalArgumentException("--profile: " + e.getMessage(), e);
    }
  }

  /**
   * The profile of {@code --profile} for the table {@code --table} names: both are required, and
   * must agree (a profile of another table would change the wrong table).
   */
  public static TableProfile tableProfile(String profileJson, String table) {
    if (profileJson == null) {
      throw new IllegalArgumentException("--profile is required");
    }
    if (table == null) {
      throw new IllegalArgumentException("--table is required");
    }
    TableProfile profile = profile(profileJson);
    if (!profile.table().equals(table)) {
      throw new IllegalArgumentException("--table " + table + " is not the table of --profile, "
          + profile.table());
    }
    return profile;
  }

  /** The deployment of {@code --deployment}, or the defaults when the option was not given ({@code null}). */
  public static Deployment deployment(String json) {
    Home home = Home.resolve(Optional.empty(), Map.of());
    if (json == null) {
      return DeploymentLoader.defaults(home);
    }
    try {
      return DeploymentLoader.parse(json, Path.of("deployment.conf"), home);
    } catch (ProfileException e) {
      throw new IllegalArgumentException("--deployment: " + e.getMessage(), e);
    }
  }

  /** Takes the option's value from the rest of the command line. */
  public static String value(String option, List<String> rest) {
    if (rest.isEmpty()) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return rest.remove(0);
  }
}
