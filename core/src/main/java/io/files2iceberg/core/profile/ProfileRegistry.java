package io.files2iceberg.core.profile;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * All table profiles of one deployment, with its {@link Deployment}: every {@code *.conf}, {@code
 * *.yaml} and {@code *.yml} file directly inside a folder (sorted by file name), or a single profile
 * file; and the deployment file, {@code --deployment} or {@code deployment.conf} (or {@code .yaml},
 * {@code .yml}) beside the profiles, read once.
 *
 * <p>Beyond each profile's own checks, the profiles must agree: no object claimed by two profiles'
 * globs, no table loaded by two profiles, and one set of settings per catalog name.
 *
 * <p>Profiles of old carried the deployment's sections ({@code ledger}, {@code listener}, {@code
 * job}) themselves. They are still read, with one warning that names the files: without a
 * deployment file the sections give the deployment (and must be equal in every profile that has
 * them); beside one, a key they set must have the file's value.
 */
public final class ProfileRegistry {

  private static final Logger LOG = LoggerFactory.getLogger(ProfileRegistry.class);

  private final List<TableProfile> profiles;
  private final Deployment deployment;
  private final Optional<Path> deploymentFile;
  private final Optional<DeploymentHint> deploymentHint;
  private final List<ProfileError> warnings;

  private ProfileRegistry(List<TableProfile> profiles, Deployment deployment, Optional<Path> deploymentFile,
      Optional<DeploymentHint> deploymentHint, List<ProfileError> warnings) {
    this.profiles = List.copyOf(profiles);
    this.warnings = List.copyOf(warnings);
    this.deployment = deployment;
    this.deploymentFile = deploymentFile;
    this.deploymentHint = deploymentHint;
  }

  /**
   * The deployment file to write for profiles that carry the deployment's sections.
   *
   * @param file where the deployment file belongs, beside the profiles
   * @param text the file's text, every setting the sections give
   * @param profiles the profiles that carry sections, whose sections go once the file is written
   */
  public record DeploymentHint(Path file, String text, List<Path> profiles) {
    public DeploymentHint {
      profiles = List.copyOf(profiles);
    }
  }

  /**
   * Reads and validates every profile of a folder, or one profile file, with the deployment file
   * beside them.
   *
   * @throws ProfileException listing every problem of every file and between files
   */
  public static ProfileRegistry load(Path fileOrDir, Home home) throws ProfileException {
    return load(fileOrDir, Optional.empty(), home);
  }

  /**
   * Reads and validates every profile of a folder, or one profile file, and the deployment file:
   * {@code deploymentFile} when given, else the one beside the profiles, else none (the defaults,
   * or what profiles of old carry).
   *
   * @throws ProfileException listing every problem of every file and between files
   */
  public static ProfileRegistry load(Path fileOrDir, Optional<Path> deploymentFile, Home home)
      throws ProfileException {
    List<ProfileError> errors = new ArrayList<>();
    List<Path> files = profileFiles(fileOrDir, errors);
    List<ProfileLoader.Read> reads = new ArrayList<>();
    for (Path file : files) {
      ProfileLoader.readAll(file, home, errors).ifPresent(reads::add);
    }
    List<TableProfile> profiles = reads.stream().map(ProfileLoader.Read::profile).toList();
    errors.addAll(ProfileConflicts.find(profiles));
    Optional<Path> deploymentPath = deploymentFile(fileOrDir, deploymentFile, errors);
    Optional<Deployment> fromFile =
        deploymentPath.flatMap(path -> DeploymentLoader.read(path, home, errors));
    List<ProfileLoader.Read> legacy = reads.stream().filter(r -> r.deployment().isPresent()).toList();
    Deployment deployment;
    if (deploymentPath.isPresent()) {
      deployment = fromFile.orElse(null);
      fromFile.ifPresent(file -> legacy.forEach(r -> agrees(r, file, deploymentPath.get(), errors)));
    } else if (!legacy.isEmpty()) {
      deployment = legacy.get(0).deployment().orElseThrow();
      for (ProfileLoader.Read later : legacy.subList(1, legacy.size())) {
        agrees(later, legacy.get(0), errors);
      }
    } else {
      deployment = DeploymentLoader.defaults(home);
    }
    if (!errors.isEmpty()) {
      throw new ProfileException(errors);
    }
    Optional<DeploymentHint> hint = Optional.empty();
    if (!legacy.isEmpty()) {
      Path folder = Files.isDirectory(fileOrDir) ? fileOrDir : fileOrDir.toAbsolutePath().getParent();
      Path target = deploymentPath.orElse(folder.resolve(DeploymentLoader.FILE_NAMES.get(0)));
      List<Path> sources = legacy.stream().map(r -> r.profile().source()).toList();
      hint = Optional.of(new DeploymentHint(target, DeploymentLoader.render(deployment), sources));
      LOG.warn(
          "Table profile(s) {} carry deployment settings (ledger, listener, job), which belong in one"
              + " deployment file: write {} (bin/files2iceberg validate prints it) and remove those"
              + " sections from the profiles",
          sources.stream().map(p -> p.getFileName().toString()).collect(Collectors.joining(", ")),
          target);
    }
    LOG.debug("Loaded {} table profile(s) from {}", profiles.size(), fileOrDir);
    return new ProfileRegistry(
        profiles, Objects.requireNonNull(deployment), deploymentPath.map(p -> p.toAbsolutePath().normalize()), hint,
        reads.stream().flatMap(r -> r.warnings().stream()).toList());
  }

  /** The deployment file named, else the one beside the profiles; two beside them is an error. */
  private static Optional<Path> deploymentFile(
      Path fileOrDir, Optional<Path> named, List<ProfileError> errors) {
    if (named.isPresent()) {
      if (!Files.isRegularFile(named.get())) {
        errors.add(new ProfileError(named.get(), "", "no such deployment file"));
        return Optional.empty();
      }
      return named;
    }
    if (!Files.exists(fileOrDir)) {
      return Optional.empty();
    }
    List<Path> beside = DeploymentLoader.beside(fileOrDir);
    if (beside.size() > 1) {
      errors.add(new ProfileError(beside.get(1), "", "is a second deployment file beside "
          + beside.get(0).getFileName() + "; a deployment has one"));
    }
    return beside.stream().findFirst();
  }

  /** Profiles of old: every deployment key of a later profile's sections equals the first's. */
  private static void agrees(ProfileLoader.Read later, ProfileLoader.Read first, List<ProfileError> errors) {
    differences(later.profile().source(), first.deployment().orElseThrow(), later.deployment().orElseThrow(),
        DeploymentKeys.keys(), section -> " in " + first.profile().source().getFileName() + "; a deployment has one "
            + section + " (better: move the sections to one deployment file)", errors);
  }

  /** A profile of old beside a deployment file: each key its sections set has the file's value. */
  private static void agrees(
      ProfileLoader.Read profile, Deployment file, Path deploymentFile, List<ProfileError> errors) {
    differences(profile.profile().source(), file, profile.deployment().orElseThrow(), profile.deploymentKeys(),
        section -> " in the deployment file " + deploymentFile + "; the deployment file decides: remove the "
            + section + " section from this profile", errors);
  }

  /**
   * An error at {@code source} for each of the keys whose value in {@code actual} is not the one in
   * {@code expected}; {@code where} says, from the key's section, where the expected value is set
   * and what to do.
   */
  private static void differences(Path source, Deployment expected, Deployment actual,
      List<DeploymentKeys.Key<?>> keys, Function<String, String> where, List<ProfileError> errors) {
    for (DeploymentKeys.Key<?> key : keys) {
      JsonNode want = ProfileJson.value(key.resolved().apply(expected));
      JsonNode got = ProfileJson.value(key.resolved().apply(actual));
      if (!want.equals(got)) {
        errors.add(new ProfileError(source, key.path(), "is " + got + " here but " + want
            + where.apply(key.path().split("\\.")[0])));
      }
    }
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
              .filter(file -> !DeploymentLoader.isDeploymentFile(file))
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

  /** The deployment: its ledger, listener and job settings, read once. */
  public Deployment deployment() {
    return deployment;
  }

  /** The deployment file read, when there is one (else the defaults or the profiles' sections of old). */
  public Optional<Path> deploymentFile() {
    return deploymentFile;
  }

  /**
   * When profiles carry the deployment's sections (as profiles of old did): the deployment file to
   * write instead, which {@code validate} prints.
   */
  public Optional<DeploymentHint> deploymentHint() {
    return deploymentHint;
  }

  /**
   * The values the profiles may keep but should change (a key's spelling of old), each naming
   * its file and key; {@code validate} and {@code local} print them.
   */
  public List<ProfileError> warnings() {
    return warnings;
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
