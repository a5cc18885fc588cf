package io.files2iceberg.sparkjob.sql;

import io.files2iceberg.core.ledger.LedgerTable;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsRowLevelOperations;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.RowLevelOperationBuilder;
import org.apache.spark.sql.connector.write.RowLevelOperationInfo;
import org.apache.spark.sql.execution.datasources.json.JsonFileFormat;
import org.apache.spark.sql.execution.datasources.v2.json.JsonTable;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The catalog {@value #NAME}: the ledger's files, partitions and batches ({@link LedgerTable}) as
 * read-only tables, over the JSON lines files the CLI wrote into the folder of option {@value
 * #FOLDER_OPTION}.
 *
 * <p>A catalog of its own rather than views: a catalog name is looked up before the current
 * catalog's namespaces, so {@code files2iceberg.files} resolves whatever the default catalog is
 * ({@code local}, an Iceberg catalog, or one a profile names); and every write is refused in one
 * place. Its tables support batch reads only, so Spark itself refuses an {@code INSERT}, {@code
 * DELETE}, {@code UPDATE} or {@code MERGE} naming the table; creating, altering, dropping or
 * renaming one fails here with {@link #readOnly}. The scan is Spark's own JSON source with the
 * schema the contract declares (no inference: a table with no rows still has its columns).
 */
public final class LedgerCatalog implements TableCatalog {
  /** The catalog's name in {@code sql}: tables are {@code files2iceberg.<name>}. */
  public static final String NAME = "files2iceberg";
  /** The catalog option naming the folder of {@code <table>.jsonl} files. */
  public static final String FOLDER_OPTION = "folder";

  /**
   * A line that does not fit the schema fails the statement rather than reading as nulls: the
   * files are this contract's, so a mismatch is a bug to see.
   */
  private static final CaseInsensitiveStringMap READ_OPTIONS = new CaseInsensitiveStringMap(Map.of("mode", "FAILFAST"));

  private String name = NAME;
  private Path folder;

  /** The Spark properties that register the catalog over {@code folder}. */
  static Map<String, String> sparkProperties(Path folder) {
    return Map.of(
        "spark.sql.catalog." + NAME, LedgerCatalog.class.getName(),
        "spark.sql.catalog." + NAME + "." + FOLDER_OPTION, folder.toAbsolutePath().toString());
  }

  @Override
  public void initialize(String catalogName, CaseInsensitiveStringMap options) {
    this.name = catalogName;
    String value = options.get(FOLDER_OPTION);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("spark.sql.catalog." + catalogName + "." + FOLDER_OPTION
          + " is not set: the folder of the ledger's tables");
    }
    this.folder = Path.of(value);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Identifier[] listTables(String[] namespace) {
    if (namespace.length > 0) {
      return new Identifier[0];
    }
    return LedgerTable.ALL.stream().map(table -> Identifier.of(new String[0], table.name()))
        .toArray(Identifier[]::new);
  }

  @Override
  public Table loadTable(Identifier ident) throws NoSuchTableException {
    LedgerTable<?> table = find(ident).orElseThrow(() -> new NoSuchTableException(ident));
    StructType schema = StructType.fromDDL(table.ddl());
    String path = folder.resolve(table.fileName()).toString();
    JsonTable json = new JsonTable(name + "." + table.name(), SparkSession.active(),
        READ_OPTIONS, CollectionConverters.asScala(java.util.List.of(path)).toSeq(),
        Option.apply(schema), JsonFileFormat.class);
    return new ReadOnlyTable(name + "." + table.name(), schema, json, readOnly(ident));
  }

  @Override
  public Table createTable(Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties) {
    throw readOnly(ident);
  }

  @Override
  public Table alterTable(Identifier ident, TableChange... changes) {
    throw readOnly(ident);
  }

  @Override
  public boolean dropTable(Identifier ident) {
    throw readOnly(ident);
  }

  @Override
  public void renameTable(Identifier oldIdent, Identifier newIdent) {
    throw readOnly(oldIdent);
  }

  private Optional<LedgerTable<?>> find(Identifier ident) {
    if (ident.namespace().length > 0) {
      return Optional.empty();
    }
    return LedgerTable.ALL.stream().filter(table -> table.name().equalsIgnoreCase(ident.name())).findFirst()
        .map(table -> (LedgerTable<?>) table);
  }

  /** The error of every change to the catalog: its tables are the ledger's, changed only by the pipeline. */
  private UnsupportedOperationException readOnly(Identifier ident) {
    String table = name + "." + (ident.namespace().length > 0 ? String.join(".", ident.namespace()) + "." : "")
        + ident.name();
    return new UnsupportedOperationException(table + " is read-only: the " + name + " tables show the ledger "
        + "(" + String.join(", ", LedgerTable.ALL.stream().map(t -> name + "." + t.name()).toList())
        + "); the pipeline and the operator commands (retry, replay, quarantine release) change it");
  }

  /**
   * A ledger table: Spark's JSON source behind it, batch reads only. Without a row-level operation
   * Spark would refuse an UPDATE or MERGE as "not supported temporarily", naming no table; so it
   * offers one, which refuses with {@code readOnly}. Iceberg's row-lineage rules (1.10) meet an
   * UPDATE or MERGE first and fail on a table that is not Iceberg's with a {@code MatchError}
   * showing the table, so the table shows as its {@code readOnly} message.
   */
  private record ReadOnlyTable(String name, StructType schema, JsonTable json, UnsupportedOperationException readOnly)
      implements SupportsRead, SupportsRowLevelOperations {
    @Override
    public Set<TableCapability> capabilities() {
      return EnumSet.of(TableCapability.BATCH_READ);
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
      return json.newScanBuilder(options);
    }

    @Override
    public RowLevelOperationBuilder newRowLevelOperationBuilder(RowLevelOperationInfo info) {
      throw new UnsupportedOperationException(readOnly.getMessage());
    }

    @Override
    public Map<String, String> properties() {
      return Map.of();
    }

    @Override
    @SuppressWarnings("deprecation")
    public Transform[] partitioning() {
      return new Transform[0];
    }

    @Override
    public String toString() {
      return readOnly.getMessage();
    }
  }
}
