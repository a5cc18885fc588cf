package io.files2iceberg.batcher.testing;

import io.files2iceberg.core.profile.Catalog;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;

/**
 * Reads a table back in the test's own JVM through Iceberg's own API: its generic reader over the
 * table's current snapshot (or one named), and its snapshot log. What a user checks with {@code
 * sql}, without a Spark JVM per check; the {@code sql} command has tests of its own.
 *
 * <p>The table is {@code <catalog>.<namespace>.<name>}, in a home's embedded catalog (JDBC on
 * {@code <home>/catalog.db}) or in the catalog its profile names (jdbc or hadoop).
 */
public final class IcebergRows {
  private IcebergRows() {}

  /** Every row of the table's current snapshot, as column name to value (none if the table has no snapshot). */
  public static List<Map<String, Object>> rows(Home home, String table) {
    return rows(embedded(home), table);
  }

  /** Every row of the table, in the catalog of the profile that loads it. */
  public static List<Map<String, Object>> rows(ProfileRegistry registry, String table) {
    return rows(catalogOf(registry, table), table);
  }

  /** Every row of the table, in that catalog. */
  public static List<Map<String, Object>> rows(Catalog catalog, String table) {
    return read(catalog, table, OptionalLong.empty());
  }

  /** Every row of the table as of that snapshot. */
  public static List<Map<String, Object>> rowsAt(Home home, String table, long snapshotId) {
    return read(embedded(home), table, OptionalLong.of(snapshotId));
  }

  /** The table's snapshots, oldest first. */
  public static List<Snapshot> snapshots(Home home, String table) {
    return snapshots(embedded(home), table);
  }

  /** The table's snapshots, oldest first, in the catalog of the profile that loads it. */
  public static List<Snapshot> snapshots(ProfileRegistry registry, String table) {
    return snapshots(catalogOf(registry, table), table);
  }

  private static List<Snapshot> snapshots(Catalog catalog, String table) {
    return withTable(catalog, table, t -> {
      List<Snapshot> snapshots = new ArrayList<>();
      t.snapshots().forEach(snapshots::add);
      snapshots.sort(Comparator.comparingLong(Snapshot::sequenceNumber));
      return snapshots;
    });
  }

  /** The table loaded fresh from the home's embedded catalog, handed to {@code use} while the catalog is open. */
  public static <T> T withTable(Home home, String table, Function<Table, T> use) {
    return withTable(embedded(home), table, use);
  }

  /** The table loaded fresh from that catalog, handed to {@code use} while the catalog is open. */
  public static <T> T withTable(Catalog settings, String table, Function<Table, T> use) {
    String[] parts = table.split("\\.", 2);
    if (parts.length < 2) {
      throw new IllegalArgumentException("not <catalog>.<namespace>.<table>: " + table);
    }
    org.apache.iceberg.catalog.Catalog catalog = open(parts[0], settings);
    try {
      return use.apply(catalog.loadTable(TableIdentifier.parse(parts[1])));
    } finally {
      try {
        ((Closeable) catalog).close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** The embedded catalog of a home, as a profile without a {@code catalog} section has it. */
  public static Catalog embedded(Home home) {
    return new Catalog(Catalog.CatalogType.JDBC, "jdbc:sqlite:" + home.catalogDb(), home.warehouse().toString(),
        Optional.empty(), Optional.empty(), Optional.empty(), false, Map.of());
  }

  private static Catalog catalogOf(ProfileRegistry registry, String table) {
    return registry.byTable(table).orElseThrow(() -> new IllegalArgumentException("no profile loads " + table))
        .catalog();
  }

  /**
   * The rows' {@code format} values, sorted and joined with commas: what Spark's {@code
   * concat_ws(',', sort_array(collect_list(...)))} gives.
   */
  public static String joined(List<Map<String, Object>> rows, Function<Map<String, Object>, String> format) {
    return rows.stream().map(format).sorted().collect(Collectors.joining(","));
  }

  /** How many distinct values the rows have in that column (nulls not counted, as {@code count(DISTINCT c)}). */
  public static long distinct(List<Map<String, Object>> rows, String column) {
    return rows.stream().map(row -> row.get(column)).filter(Objects::nonNull).distinct().count();
  }

  /** The sum of the column's values as longs (nulls skipped). */
  public static long sum(List<Map<String, Object>> rows, String column) {
    return rows.stream().map(row -> row.get(column)).filter(Objects::nonNull)
        .mapToLong(value -> ((Number) value).longValue()).sum();
  }

  private static List<Map<String, Object>> read(Catalog catalog, String table, OptionalLong snapshot) {
    return withTable(catalog, table, t -> {
      if (t.currentSnapshot() == null) {
        return List.of();
      }
      IcebergGenerics.ScanBuilder scan = IcebergGenerics.read(t);
      if (snapshot.isPresent()) {
        scan = scan.useSnapshot(snapshot.getAsLong());
      }
      Schema schema = snapshot.isPresent() ? t.schemas().get(t.snapshot(snapshot.getAsLong()).schemaId()) : t.schema();
      try (CloseableIterable<Record> records = scan.build()) {
        return StreamSupport.stream(records.spliterator(), false)
            .map(record -> values(record, schema.asStruct()))
            .toList();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
  }

  private static Map<String, Object> values(Record record, Types.StructType struct) {
    Map<String, Object> values = new LinkedHashMap<>();
    for (Types.NestedField field : struct.fields()) {
      Object value = record.getField(field.name());
      values.put(field.name(), value instanceof Record nested && field.type().isStructType()
          ? values(nested, field.type().asStructType()) : value);
    }
    return values;
  }

  private static org.apache.iceberg.catalog.Catalog open(String name, Catalog settings) {
    Map<String, String> properties = new HashMap<>(settings.properties());
    properties.put(CatalogProperties.WAREHOUSE_LOCATION, settings.warehouse());
    String implementation = switch (settings.type()) {
      case JDBC -> {
        properties.put(CatalogProperties.URI, settings.uri());
        // A batch may be committing beside the read: wait for SQLite's lock rather than fail.
        properties.put("jdbc.busy_timeout", "30000");
        yield JdbcCatalog.class.getName();
      }
      case HADOOP -> HadoopCatalog.class.getName();
      case REST -> throw new IllegalArgumentException("a rest catalog is not read here: " + settings.uri());
    };
    return CatalogUtil.loadCatalog(implementation, name, properties, new Configuration());
  }
}
