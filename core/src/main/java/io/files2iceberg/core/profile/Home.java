package io.files2iceberg.core.profile;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * The one folder that holds all embedded-mode state: the SQLite ledger, the Iceberg JDBC catalog
 * (catalog name {@code local}) and the warehouse. Resolved from {@code --home}, then
 * {@code FILES2ICEBERG_HOME}, then {@code .files2iceberg/} in the working directory.
 */
public record Home(Path root) {

  public static final String ENV = "FILES2ICEBERG_HOME";
  public static final String DEFAULT_FOLDER = ".files2iceberg";
  /** The embedded catalog's name, so embedded tables are {@code local.<namespace>.<table>}. */
  public static final String LOCAL_CATALOG = "local";

  public Home {
    root = root.toAbsolutePath().normalize();
  }

  /** Resolves the home from an explicit option, the environment, or the working directory. */
  public static Home resolve(Optional<Path> option, Map<String, String> env) {
    if (option.isPresent()) {
      return new Home(option.get());
    }
    String fromEnv = env.get(ENV);
    if (fromEnv != null && !fromEnv.isBlank()) {
      return new Home(Path.of(fromEnv));
    }
    return new Home(Path.of(DEFAULT_FOLDER));
  }

  public Path ledgerDb() {
    return root.resolve("ledger.db");
  }

  public Path catalogDb() {
    return root.resolve("catalog.db");
  }

  public Path warehouse() {
    return root.resolve("warehouse");
  }

  public Path metadata(String profileName) {
    return root.resolve("metadata").resolve(profileName);
  }
}
