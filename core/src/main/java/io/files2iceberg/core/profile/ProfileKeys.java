package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ValueType.BOOLEAN;
import static io.files2iceberg.core.profile.ValueType.BYTES;
import static io.files2iceberg.core.profile.ValueType.LIST;
import static io.files2iceberg.core.profile.ValueType.MAP;
import static io.files2iceberg.core.profile.ValueType.NON_BLANK;
import static io.files2iceberg.core.profile.ValueType.NON_BLANK_MAP;
import static io.files2iceberg.core.profile.ValueType.STRING;
import static io.files2iceberg.core.profile.ValueType.WHOLE_NUMBER;

import io.files2iceberg.core.profile.Extract.LineageColumn;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Every key a table profile may set: its dotted path, its value type and where the resolved value
 * lives in a {@link TableProfile}. The one list that the parser's unknown-key check, the JSON
 * rendering and the README test all read. The deployment's keys ({@code ledger}, {@code listener},
 * {@code job}) are {@link DeploymentKeys}.
 */
final class ProfileKeys {

  /**
   * One leaf key.
   *
   * @param path the dotted path, such as {@code extract.batch-file.pattern}
   * @param type the value's type
   * @param resolved the resolved value in a profile, as the key spells it (enum codes, null for
   *     none)
   */
  record Key<T>(String path, ValueType<T> type, Function<TableProfile, T> resolved)
      implements SettingKey<T> {}

  private static final KeyList<Key<?>> ALL = new KeyList<>();
  private static final Pattern PLAIN_KEY = Pattern.compile("[A-Za-z0-9_-]+");

  static final Key<String> EXTRACT_PATH = key("extract.path", NON_BLANK, p -> p.extract().path());
  static final Key<String> EXTRACT_FORMAT =
      key("extract.format", NON_BLANK, p -> p.extract().format().code());
  static final Key<Map<String, String>> EXTRACT_OPTIONS =
      key("extract.options", MAP, p -> p.extract().options());
  static final Key<Boolean> EXTRACT_RECURSIVE_FILE_LOOKUP =
      key("extract.recursive-file-lookup", BOOLEAN, p -> p.extract().recursiveFileLookup());
  static final Key<String> BATCH_FILE_INGESTION_TYPE =
      key(
          "extract.batch-file.ingestion-type",
          NON_BLANK,
          p -> p.extract().batchFile().ingestionType().code());
  static final Key<String> BATCH_FILE_PARTITION_TYPE =
      key(
          "extract.batch-file.partition-type",
          NON_BLANK,
          p -> p.extract().batchFile().partitionType().code());
  static final Key<String> BATCH_FILE_PATTERN =
      key(
          "extract.batch-file.pattern",
          NON_BLANK,
          p -> p.extract().batchFile().pattern().orElse(null));
  static final Key<String> BATCH_FILE_PARTITION_COLUMN =
      key(
          "extract.batch-file.partition-column",
          NON_BLANK,
          p -> p.extract().batchFile().partitionColumn());
  static final Key<String> BATCH_FILE_DATE_FORMAT =
      key(
          "extract.batch-file.date-format",
          NON_BLANK,
          p -> p.extract().batchFile().dateFormat().orElse(null));
  static final Key<Boolean> BATCH_FILE_STRICT_PATTERN =
      key(
          "extract.batch-file.strict-pattern",
          BOOLEAN,
          p -> p.extract().batchFile().strictPattern());
  static final Key<Boolean> BATCH_FILE_SUCCESS_FILE_FILTER =
      key(
          "extract.batch-file.success-file-filter",
          BOOLEAN,
          p -> p.extract().batchFile().successFileFilter());
  static final Key<String> BATCH_FILE_SUCCESS_FILE_NAME =
      key(
          "extract.batch-file.success-file-name",
          NON_BLANK,
          p -> p.extract().batchFile().successFileName());
  static final Key<Integer> EXTRACT_KEEP_CHECKPOINTS =
      key("extract.keep-checkpoints", WHOLE_NUMBER, p -> p.extract().keepCheckpoints());
  static final Key<Boolean> EXTRACT_SAVE_CHECKPOINT =
      key("extract.save-checkpoint", BOOLEAN, p -> p.extract().saveCheckpoint());
  static final Key<Integer> EXTRACT_MAX_BATCH_SIZE =
      key("extract.max-batch-size", WHOLE_NUMBER, p -> p.extract().maxBatchSize());
  static final Key<Long> EXTRACT_MAX_BATCH_BYTES =
      key("extract.max-batch-bytes", BYTES,
          p -> p.extract().maxBatchBytes().isPresent() ? p.extract().maxBatchBytes().getAsLong() : null);
  static final Key<List<String>> EXTRACT_LINEAGE_COLUMNS =
      key(
          "extract.lineage-columns",
          LIST,
          p -> p.extract().lineageColumns().stream().map(LineageColumn::code).toList());
  static final Key<Boolean> EXTRACT_QUARANTINE_BAD_FILES =
      key("extract.quarantine-bad-files", BOOLEAN, p -> p.extract().quarantineBadFiles());
  static final Key<String> EXTRACT_ON_OVERWRITE =
      key("extract.on-overwrite", NON_BLANK, p -> p.extract().onOverwrite().code());

  static final Key<List<String>> TRANSFORM_FILTER =
      key("transform.filter", LIST, p -> p.transform().filter());
  static final Key<Map<String, String>> TRANSFORM_RENAME_COLUMNS =
      key("transform.rename-columns", NON_BLANK_MAP, p -> p.transform().renameColumns());
  static final Key<Map<String, String>> TRANSFORM_CAST_COLUMNS =
      key("transform.cast.columns", NON_BLANK_MAP, p -> p.transform().castColumns());
  static final Key<String> TRANSFORM_ON_BAD_RECORD =
      key("transform.on-bad-record", NON_BLANK, p -> p.transform().onBadRecord().code());
  static final Key<String> TRANSFORM_RESCUED_DATA_COLUMN =
      key("transform.rescued-data-column", NON_BLANK, p -> p.transform().rescuedDataColumn().orElse(null));

  static final Key<String> LOAD_TABLE = key("load.iceberg.table", NON_BLANK, TableProfile::table);
  static final Key<String> LOAD_SAVE_MODE =
      key("load.save-mode", NON_BLANK, p -> p.load().saveMode().code());
  static final Key<List<String>> LOAD_PRIMARY_KEY =
      key("load.primary-key", LIST, p -> p.load().primaryKey());
  static final Key<List<String>> LOAD_PARTITION_BY =
      key("load.partition-by", LIST, p -> p.load().partitionBy());
  static final Key<String> LOAD_PRECOMBINE_FIELD =
      key("load.iceberg.precombine-field", NON_BLANK, p -> p.load().precombineField().orElse(null));
  static final Key<Boolean> LOAD_SCHEMA_EVOLUTION =
      key("load.schema-evolution", BOOLEAN, p -> p.load().schemaEvolution());
  static final Key<Map<String, String>> LOAD_TABLE_PROPERTIES =
      key("load.iceberg.table-properties", MAP, p -> p.load().tableProperties());
  static final Key<String> LOAD_MISSING_COLUMNS =
      key("load.missing-columns", NON_BLANK, p -> p.load().missingColumns().code());
  static final Key<String> LOAD_WRITE_MODE =
      key("load.write-mode", NON_BLANK, p -> p.load().writeMode().code());
  static final Key<String> LOAD_MERGE_SCOPE =
      key("load.merge-scope", NON_BLANK, p -> p.load().mergeScope().code());

  static final Key<String> LOAD_CDC_OP_COLUMN =
      key("load.cdc.op-column", NON_BLANK, p -> p.load().cdc()
          .filter(c -> c.style() == Load.Cdc.Style.OP_COLUMN).map(Load.Cdc::column).orElse(null));
  static final Key<List<String>> LOAD_CDC_DELETE_VALUES =
      key("load.cdc.delete-values", LIST, p -> p.load().cdc()
          .filter(c -> c.style() == Load.Cdc.Style.OP_COLUMN).map(Load.Cdc::deleteValues).orElse(null));
  static final Key<String> LOAD_CDC_DELETE_FLAG =
      key("load.cdc.delete-flag", NON_BLANK, p -> p.load().cdc()
          .filter(c -> c.style() == Load.Cdc.Style.DELETE_FLAG).map(Load.Cdc::column).orElse(null));

  static final Key<String> METADATA_PATH =
      key("metadata.path", NON_BLANK, p -> p.metadata().path());

  static final Key<String> CATALOG_TYPE =
      key("catalog.type", NON_BLANK, p -> p.catalog().type().code());
  static final Key<String> CATALOG_URI = key("catalog.uri", STRING, p -> p.catalog().uri());
  static final Key<String> CATALOG_WAREHOUSE =
      key("catalog.warehouse", NON_BLANK, p -> p.catalog().warehouse());
  static final Key<String> CATALOG_USER_PROJECT =
      key("catalog.user-project", NON_BLANK, p -> p.catalog().userProject().orElse(null));
  static final Key<String> CATALOG_AUTH_TYPE =
      key("catalog.auth-type", NON_BLANK, p -> p.catalog().authType().orElse(null));
  static final Key<String> CATALOG_IO_IMPL =
      key("catalog.io-impl", NON_BLANK, p -> p.catalog().ioImpl().orElse(null));
  static final Key<Boolean> CATALOG_VENDED_CREDENTIALS =
      key("catalog.vended-credentials", BOOLEAN, p -> p.catalog().vendedCredentials());
  static final Key<Map<String, String>> CATALOG_PROPERTIES =
      key("catalog.properties", MAP, p -> p.catalog().properties());

  /**
   * The two top-level fields a rendered profile ({@link ProfileJson}) carries besides its keys.
   * They are not profile keys: the file decides a profile's name and source. The loader accepts
   * them, so that a rendered profile loads as it is, and checks that {@code name} is the file's.
   */
  static final Key<String> RENDERED_NAME = new Key<>("name", NON_BLANK, TableProfile::name);

  static final Key<String> RENDERED_SOURCE =
      new Key<>("source", NON_BLANK, p -> p.source().toString());

  private ProfileKeys() {}

  /** Whether a top-level field is one of the fields a rendered profile carries. */
  static boolean isRenderedField(String path) {
    return path.equals(RENDERED_NAME.path()) || path.equals(RENDERED_SOURCE.path());
  }

  private static <T> Key<T> key(
      String path, ValueType<T> type, Function<TableProfile, T> resolved) {
    return ALL.add(new Key<>(path, type, resolved));
  }

  static List<String> all() {
    return ALL.paths();
  }

  static List<Key<?>> keys() {
    return ALL.keys();
  }

  /** The table keys, for the unknown-key check. */
  static KeyPaths paths() {
    return ALL.keyPaths();
  }

  /**
   * Whether {@code path} is a map whose keys are the user's (Spark properties and such), in a
   * profile or the deployment file.
   */
  static boolean isFreeForm(String path) {
    return paths().plus(DeploymentKeys.paths()).isFreeForm(path);
  }

  /** The path of a key inside {@code parent}; keys that are not plain names are quoted. */
  static String child(String parent, String key) {
    String segment = PLAIN_KEY.matcher(key).matches() ? key : ValueType.quote(key);
    return parent.isEmpty() ? segment : parent + "." + segment;
  }

  /** The path of a list element. */
  static String element(String list, int index) {
    return list + "[" + index + "]";
  }
}
