package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.CatalogKeys.CATALOG_AUTH_TYPE;
import static io.files2iceberg.core.profile.CatalogKeys.CATALOG_IO_IMPL;
import static io.files2iceberg.core.profile.CatalogKeys.CATALOG_PROPERTIES;
import static io.files2iceberg.core.profile.CatalogKeys.CATALOG_TYPE;
import static io.files2iceberg.core.profile.CatalogKeys.CATALOG_URI;
import static io.files2iceberg.core.profile.CatalogKeys.CATALOG_USER_PROJECT;
import static io.files2iceberg.core.profile.CatalogKeys.CATALOG_VENDED_CREDENTIALS;
import static io.files2iceberg.core.profile.CatalogKeys.CATALOG_WAREHOUSE;
import static io.files2iceberg.core.profile.CatalogKeys.METADATA_PATH;
import static io.files2iceberg.core.profile.ExtractKeys.BATCH_FILE_INGESTION_TYPE;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_ON_OVERWRITE;
import static io.files2iceberg.core.profile.ExtractKeys.EXTRACT_SAVE_CHECKPOINT;
import static io.files2iceberg.core.profile.LoadKeys.LOAD_SAVE_MODE;
import static io.files2iceberg.core.profile.LoadKeys.TRANSFORM_RESCUED_DATA_COLUMN;
import static io.files2iceberg.core.profile.ProfileKeys.RENDERED_NAME;
import static io.files2iceberg.core.profile.ProfileKeys.RENDERED_SOURCE;

import io.files2iceberg.core.profile.Catalog.CatalogType;
import io.files2iceberg.core.profile.Extract.LineageColumn;
import io.files2iceberg.core.profile.Extract.OnOverwrite;
import io.files2iceberg.core.profile.Load.SaveMode;
import io.files2iceberg.core.profile.ProfileValues.Rule;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one table profile, HOCON ({@code .conf}) or YAML ({@code .yaml}, {@code .yml}), into a
 * validated {@link TableProfile} with every default filled in. The keys, their defaults and their
 * meaning are listed in docs/reference/profile-keys.md, generated from {@link ProfileKeys}. The
 * sections are read by {@link ExtractReader} and {@link LoadReader}; the checks across sections
 * and the catalog section are here.
 */
public final class ProfileLoader {

  private static final Logger LOG = LoggerFactory.getLogger(ProfileLoader.class);

  /**
   * Why {@code extract.format = delta} is refused: a Delta table is not its files. Which rows are
   * live is decided by its {@code _delta_log} (files removed by updates, deletes and compactions,
   * deletion vectors, column mapping), so loading each Parquet file as it lands would load deleted
   * and rewritten rows again.
   */
  static final String DELTA_REFUSED = "delta is not a format files2iceberg can load: a Delta table's live rows are"
      + " decided by its _delta_log (files removed by updates, deletes and compactions, deletion vectors, column"
      + " mapping), so loading its Parquet files one by one as they land would load deleted and rewritten rows"
      + " again. Export the table's rows (or its change data feed) as parquet files into a landing folder with a"
      + " _SUCCESS marker, or expose it as Iceberg with Delta UniForm; see Limitations in docs/limitations.md";

  private ProfileLoader() {}

  /**
   * Reads and validates one profile; its name is the file name without the extension.
   *
   * @throws ProfileException listing every problem in the file
   */
  public static TableProfile load(Path file, Home home) throws ProfileException {
    return ProfileException.unlessAny(errors -> read(file, home, errors));
  }

  /**
   * Parses and validates one profile from HOCON text (JSON, such as {@link ProfileJson#toJson}
   * writes, is HOCON), as {@link #load} reads a {@code .conf} file: {@code source} stands for the
   * file, giving the profile's name (its file name without the extension) and its source, and
   * naming it in the problems.
   *
   * @throws ProfileException listing every problem in the text
   */
  public static TableProfile parse(String text, Path source, Home home) throws ProfileException {
    return ProfileException.unlessAny(source,
        problems -> validated(ProfileTree.readHocon(text, source, problems), source, home, problems));
  }

  /** Reads one profile, adding its problems to {@code errors}; empty when there are any. */
  static Optional<TableProfile> read(Path file, Home home, List<ProfileError> errors) {
    return readAll(file, home, errors).map(Read::profile);
  }

  /**
   * One profile file read: its table profile and, when it carries the deployment's sections as
   * profiles of old did, the deployment they give and the deployment keys it sets.
   */
  record Read(TableProfile profile, Optional<Deployment> deployment, List<DeploymentKeys.Key<?>> deploymentKeys,
      List<ProfileError> warnings) {
    Read {
      warnings = List.copyOf(warnings);
    }
  }

  /** Reads one profile with its deployment sections, adding its problems to {@code errors}. */
  static Optional<Read> readAll(Path file, Home home, List<ProfileError> errors) {
    Problems problems = new Problems(file);
    Optional<Read> read = readTree(ProfileTree.read(file, problems), file, home, problems);
    errors.addAll(problems.errors());
    return read;
  }

  /** The profile built from a parsed tree; empty when the tree or any value has a problem. */
  private static Optional<TableProfile> validated(
      Optional<Map<String, Object>> tree, Path file, Home home, Problems problems) {
    return readTree(tree, file, home, problems).map(Read::profile);
  }

  private static Optional<Read> readTree(
      Optional<Map<String, Object>> tree, Path file, Home home, Problems problems) {
    Optional<Read> read =
        tree.map(
            t -> {
              ProfileValues v = new ProfileValues(t, problems);
              TableProfile profile = build(file, home, v);
              // Sections of old are still read (and checked), for the deployment they give.
              Optional<Deployment> deployment =
                  DeploymentLoader.carriesDeployment(v)
                      ? Optional.of(DeploymentLoader.build(v, home))
                      : Optional.empty();
              List<DeploymentKeys.Key<?>> set =
                  DeploymentKeys.keys().stream().filter(v::isSet).toList();
              return new Read(profile, deployment, set, problems.warnings());
            });
    if (!problems.isEmpty()) {
      return Optional.empty();
    }
    read.ifPresent(
        r -> LOG.debug("Read profile {} for table {} from {}", r.profile().name(), r.profile().table(), file));
    return read;
  }

  /** The file name without its extension. */
  static String profileName(Path file) {
    String name = file.getFileName().toString();
    int dot = name.lastIndexOf('.');
    return dot > 0 ? name.substring(0, dot) : name;
  }

  private static TableProfile build(Path file, Home home, ProfileValues v) {
    v.rejectUnknownKeys();
    String name = profileName(file);
    checkRenderedFields(v, name);
    // Sections are read in file order, so that problems are listed in that order too.
    Extract extract = ExtractReader.extract(v);
    Transform transform = LoadReader.transform(v);
    Load load = LoadReader.load(v, extract, transform);
    checkBackfillLoadsOnce(v, extract, load);
    checkRescuedDataColumn(v, extract, transform, load);
    Quality quality = QualityKeys.read(v);
    return new TableProfile(
        name,
        file.toAbsolutePath().normalize(),
        extract.withOnOverwrite(onOverwrite(v, load)),
        transform,
        load,
        new Metadata(v.get(METADATA_PATH, home.metadata(name) + File.separator)),
        catalog(v, home),
        MaintainKeys.read(v),
        quality);
  }

  /**
   * A rendered profile's {@code name} must be the one its file gives; its {@code source} only has
   * to be text, as the file read is the source.
   */
  private static void checkRenderedFields(ProfileValues v, String name) {
    v.optional(
        RENDERED_NAME,
        rendered ->
            rendered.equals(name)
                ? Optional.empty()
                : Optional.of(
                    "is "
                        + ValueType.quote(rendered)
                        + ", but a profile's name is its file name without the extension, "
                        + ValueType.quote(name)));
    v.optional(RENDERED_SOURCE);
  }

  /**
   * A table loaded without a checkpoint (a backfill) loads every listed file on every run it is
   * asked for: with a key the MERGE makes that safe, without one an incremental Append would add
   * the files' rows again on each run. Such a table is backfilled through the ledger instead
   * ({@code backfill}), which loads each file once.
   */
  private static void checkBackfillLoadsOnce(ProfileValues v, Extract extract, Load load) {
    if (!extract.saveCheckpoint() && !extract.batchFile().ingestionType().replacesTable()
        && load.primaryKey().isEmpty() && load.saveMode() == SaveMode.APPEND
        && v.isValid(LOAD_SAVE_MODE, BATCH_FILE_INGESTION_TYPE)) {
      v.reject(EXTRACT_SAVE_CHECKPOINT, "false cannot go with an Append table without load.primary-key: every run"
          + " would append every listed file's rows again; add a primary key, use load.save-mode = Overwrite, or"
          + " keep the checkpoint and load old partitions with bin/files2iceberg backfill");
    }
  }

  /**
   * {@code extract.on-overwrite}; default {@code reload} with a primary key (the MERGE updates the
   * keys) or {@code save-mode = Overwrite} (the partition mirrors its folder), else {@code ignore}
   * (an Append table would load a rewritten object's rows a second time). {@code ignore} with
   * {@code Overwrite} is refused: an Overwrite re-reads the partition's live content, in which the
   * old generation is gone.
   */
  private static OnOverwrite onOverwrite(ProfileValues v, Load load) {
    boolean mirrors = !load.primaryKey().isEmpty() || load.saveMode() == SaveMode.OVERWRITE;
    OnOverwrite fallback = mirrors ? OnOverwrite.RELOAD : OnOverwrite.IGNORE;
    Optional<OnOverwrite> chosen = v.choice(EXTRACT_ON_OVERWRITE, fallback, OnOverwrite::code);
    if (chosen.equals(Optional.of(OnOverwrite.IGNORE)) && v.isSet(EXTRACT_ON_OVERWRITE)
        && load.saveMode() == SaveMode.OVERWRITE && v.isValid(LOAD_SAVE_MODE)) {
      v.reject(EXTRACT_ON_OVERWRITE, "ignore cannot go with load.save-mode = Overwrite: an Overwrite writes the"
          + " partition's live files, in which a rewritten object's old generation is gone; use reload");
    }
    return chosen.orElse(fallback);
  }

  /**
   * The rescued data column is a STRING column the job fills, so no other setting may claim its
   * name: not a key (a NULL key is a bad record, and a JSON text is no key), not a column the job
   * adds or the transforms produce, not the job's internal prefix.
   */
  private static void checkRescuedDataColumn(ProfileValues v, Extract extract, Transform transform, Load load) {
    Optional<String> rescued = transform.rescuedDataColumn();
    if (rescued.isEmpty()) {
      return;
    }
    String name = rescued.get();
    List<String> conflicts = new ArrayList<>();
    if (name.startsWith("_f2i_")) {
      conflicts.add("starts with _f2i_, which the job reserves for its own columns");
    }
    for (int i = 0; i < load.primaryKey().size(); i++) {
      if (load.primaryKey().get(i).equals(name)) {
        conflicts.add("is load.primary-key[" + i + "]; the rescued data column is never a key");
      }
    }
    if (load.precombineField().equals(Optional.of(name))) {
      conflicts.add("is load.iceberg.precombine-field; the rescued data column is never a key");
    }
    Pattern mentioned = Pattern.compile("(^|[^A-Za-z0-9_])" + Pattern.quote(name) + "($|[^A-Za-z0-9_])");
    for (int i = 0; i < load.partitionBy().size(); i++) {
      if (mentioned.matcher(load.partitionBy().get(i)).find()) {
        conflicts.add("is in load.partition-by[" + i + "]; the rescued data column is never a partition key");
      }
    }
    if (extract.batchFile().partitionColumn().equals(name)) {
      conflicts.add("is the partition column the job adds (extract.batch-file.partition-column)");
    }
    if (extract.lineageColumns().stream().map(LineageColumn::code).anyMatch(name::equals)) {
      conflicts.add("is in extract.lineage-columns, a column the job adds");
    }
    if (transform.castColumns().containsKey(name)) {
      conflicts.add("is a column of transform.cast.columns; the rescued data column is always STRING");
    }
    transform.renameColumns().forEach((from, to) -> {
      if (to.equals(name)) {
        conflicts.add("is the target of transform.rename-columns." + from);
      }
    });
    for (String conflict : conflicts) {
      v.reject(TRANSFORM_RESCUED_DATA_COLUMN, "\"" + name + "\" " + conflict);
    }
  }

  private static Catalog catalog(ProfileValues v, Home home) {
    CatalogType type =
        v.choice(CATALOG_TYPE, CatalogType.JDBC, CatalogType::code).orElse(CatalogType.JDBC);
    Rule<String> uriRule =
        uri ->
            type != CatalogType.HADOOP && uri.isBlank()
                ? Optional.of("must not be blank when catalog.type = " + type.code())
                : Optional.empty();
    String restOnly = "catalog.type = rest";
    return new Catalog(
        type,
        switch (type) {
          case JDBC -> v.get(CATALOG_URI, "jdbc:sqlite:" + home.catalogDb(), uriRule);
          case HADOOP -> v.get(CATALOG_URI, "");
          case REST -> v.requiredWhen(CATALOG_URI, restOnly, uriRule).orElse("");
        },
        type == CatalogType.REST
            ? v.requiredWhen(CATALOG_WAREHOUSE, restOnly).orElse("")
            : v.get(CATALOG_WAREHOUSE, home.warehouse().toString()),
        v.optional(CATALOG_USER_PROJECT),
        type == CatalogType.REST
            ? Optional.of(v.get(CATALOG_AUTH_TYPE, Catalog.GOOGLE_AUTH_MANAGER))
            : v.optional(CATALOG_AUTH_TYPE),
        type == CatalogType.REST
            ? Optional.of(v.get(CATALOG_IO_IMPL, Catalog.GCS_FILE_IO))
            : v.optional(CATALOG_IO_IMPL),
        v.get(CATALOG_VENDED_CREDENTIALS, false),
        v.get(CATALOG_PROPERTIES, Map.of()));
  }
}
