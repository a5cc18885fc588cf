package io.files2iceberg.core.profile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * All table profiles of one deployment: every {@code *.conf}, {@code *.yaml} and {@code *.yml} file
 * directly inside a folder (sorted by file name), or a single profile file.
 *
 * <p>Beyond each profile's own checks, the profiles must agree: no object claimed by two profiles'
 * globs, no table loaded by two profiles, one set of settings per catalog name, and one ledger and
 * one listener for all.
 */
public final class ProfileRegistry {

  private static final Logger LOG = LoggerFactory.getLogger(ProfileRegistry.class);

  private final List<TableProfile> profiles;

  private ProfileRegistry(List<TableProfile> profiles) {
    this.profiles = List.copyOf(profiles);
  }

  /**
   * Reads and validates every profile of a folder, or one profile file.
   *
   * @throws ProfileException listing every problem of every file and between files
   */
  public static ProfileRegistry load(Path fileOrDir, Home home) throws ProfileException {
    List<ProfileError> errors = new ArrayList<>();
    List<Path> files = profileFiles(fileOrDir, errors);
    List<TableProfile> profiles = new ArrayList<>();
    for (Path file : files) {
      ProfileLoader.read(file, home, errors).ifPresent(profiles::add);
    }
    errors.addAll(ProfileConflicts.find(profiles));
    if (!errors.isEmpty()) {
      throw new ProfileException(errors);
    }
    LOG.debug("Loaded {} table profile(s) from {}", profiles.size(), fileOrDir);
    return new ProfileRegistry(profiles);
  }

  private static List<Path> profileFiles(Path fileOrDir, List<ProfileError> errors) {
    if (!Files.exists(fileOrDir)) {
      errors.add(new ProfileError(fileOrDir, "", "no such file or folder"));
      return List.of();
    }
    if (!Files.isDirectory(fileOrDir)) {
      return List.of(fileOrDir);
    }
    List<Path> files;
    try (Stream<Path> entries = Files.list(fileOrDir)) {
      files =
          entries
              .filter(Files::isRegularFile)
              .filter(ProfileTree::isProfileFile)
              .sorted(Comparator.comparing(file -> file.getFileName().toString()))
              .toList();
    } catch (IOException e) {
      errors.add(new ProfileError(fileOrDir, "", "cannot list the folder: " + e.getMessage()));
      return List.of();
    }
    if (files.isEmpty()) {
      errors.add(new ProfileError(fileOrDir, "", "holds no .conf, .yaml or .yml profile"));
    }
    return files;
  }

  /** Every profile, sorted by file name. */
  public List<TableProfile> profiles() {
    return profiles;
  }

  /** The profile that loads {@code catalog.namespace.table}. */
  public Optional<TableProfile> byTable(String qualifiedTable) {
    return profiles.stream().filter(p -> p.table().equals(qualifiedTable)).findFirst();
  }

  /** The profile of that name: its file name without the extension. */
  public Optional<TableProfile> byName(String name) {
    return profiles.stream().filter(p -> p.name().equals(name)).findFirst();
  }
}
