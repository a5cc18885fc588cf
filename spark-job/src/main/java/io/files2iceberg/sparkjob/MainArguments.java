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
 * The options the command lines of the mains the batcher launches like maintenance share ({@code
 * maintain}, {@code rollback}, {@code drop-partition}): the table's rendered profile ({@code
 * --profile}, as {@code ProfileJson} renders it, which names the catalog), the deployment ({@code
 * --deployment}, as {@code DeploymentLoader.render} renders it), {@code --table} for a main that
 * names the table it changes, {@code --dry-run} and {@code --result URI}. A main's parser offers
 * each option to {@link #take} first, then reads its own. Errors name the option.
 */
public final class MainArguments {
  private final boolean takesTable;
  private String profileJson;
  private String deploymentJson;
  private String table;
  private boolean dryRun;
  private String resultUri;

  private MainArguments(boolean takesTable) {
    this.takesTable = takesTable;
  }

  /** The options of a main that names the table it changes: {@code --table} is required and must be the profile's. */
  public static MainArguments withTable() {
    return new MainArguments(true);
  }

  /** The options of a main whose table is its profile's ({@code maintain}). */
  public static MainArguments ofProfile() {
    return new MainArguments(false);
  }

  /** Takes {@code option} and its value off the command line if it is a shared one; returns whether it was. */
  public boolean take(String option, List<String> rest) {
    switch (option) {
      case "--profile" -> profileJson = value(option, rest);
      case "--deployment" -> deploymentJson = value(option, rest);
      case "--dry-run" -> dryRun = true;
      case "--result" -> resultUri = value(option, rest);
      case "--table" -> {
        if (!takesTable) {
          return false;
        }
        table = value(option, rest);
      }
      default -> {
        return false;
      }
    }
    return true;
  }

  /**
   * The profile of {@code --profile}, resolved already (the home's defaults are never used); with
   * {@code --table}, a profile of another table is refused: it would change the wrong table.
   */
  public TableProfile profile() {
    if (profileJson == null) {
      throw new IllegalArgumentException("--profile is required");
    }
    if (takesTable && table == null) {
      throw new IllegalArgumentException("--table is required");
    }
    TableProfile profile = parseProfile(profileJson);
    if (takesTable && !profile.table().equals(table)) {
      throw new IllegalArgumentException("--table " + table + " is not the table of --profile, " + profile.table());
    }
    return profile;
  }

  /** The deployment of {@code --deployment}, or the defaults when it is not given. */
  public Deployment deployment() {
    Home home = Home.resolve(Optional.empty(), Map.of());
    if (deploymentJson == null) {
      return DeploymentLoader.defaults(home);
    }
    try {
      return DeploymentLoader.parse(deploymentJson, Path.of("deployment.conf"), home);
    } catch (ProfileException e) {
      throw new IllegalArgumentException("--deployment: " + e.getMessage(), e);
    }
  }

  public boolean dryRun() {
    return dryRun;
  }

  public Optional<String> resultUri() {
    return Optional.ofNullable(resultUri);
  }

  /** Takes the option's value from the rest of the command line. */
  public static String value(String option, List<String> rest) {
    if (rest.isEmpty()) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return rest.remove(0);
  }

  private static TableProfile parseProfile(String json) {
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
}
