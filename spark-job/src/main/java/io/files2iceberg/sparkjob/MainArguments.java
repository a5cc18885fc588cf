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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The options the command lines of the mains the batcher launches like maintenance share ({@code
 * maintain}, {@code rollback}, {@code drop-partition}): the table's rendered profile ({@code
 * --profile}, as {@code ProfileJson} renders it, which names the catalog), the deployment ({@code
 * --deployment}, as {@code DeploymentLoader.render} renders it), {@code --table} for a main that
 * names the table it changes, {@code --dry-run} and {@code --result URI}. A main's parser reads
 * its own options ({@link #hasOwnOption}, {@link #nextOption}, {@link #value}); these are taken on
 * the way. Errors name the option.
 */
public final class MainArguments {
  private final List<String> rest;
  private final boolean takesTable;
  private String profileJson;
  private String deploymentJson;
  private String table;
  private boolean dryRun;
  private String resultUri;

  private MainArguments(String[] args, boolean takesTable) {
    this.rest = new ArrayList<>(List.of(args));
    this.takesTable = takesTable;
  }

  /** The command line of a main that names the table it changes: {@code --table} is required and must be the profile's. */
  public static MainArguments withTable(String[] args) {
    return new MainArguments(args, true);
  }

  /** The command line of a main whose table is its profile's ({@code maintain}). */
  public static MainArguments ofProfile(String[] args) {
    return new MainArguments(args, false);
  }

  /** Takes the shared options up to the next option of the main's own; returns whether there is one. */
  public boolean hasOwnOption() {
    while (!rest.isEmpty() && take(rest.get(0))) {
      // taken
    }
    return !rest.isEmpty();
  }

  /** The next option of the main's own (after {@link #hasOwnOption}). */
  public String nextOption() {
    return rest.remove(0);
  }

  /** Takes the value of {@code option} off the command line. */
  public String value(String option) {
    if (rest.isEmpty()) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return rest.remove(0);
  }

  /** Takes the option first on the command line, and its value, if it is a shared one; returns whether it was. */
  private boolean take(String option) {
    if (!option.equals("--profile") && !option.equals("--deployment") && !option.equals("--dry-run")
        && !option.equals("--result") && !(takesTable && option.equals("--table"))) {
      return false;
    }
    rest.remove(0);
    switch (option) {
      case "--profile" -> profileJson = value(option);
      case "--deployment" -> deploymentJson = value(option);
      case "--dry-run" -> dryRun = true;
      case "--result" -> resultUri = value(option);
      default -> table = value(option);
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
