package io.files2iceberg.sparkjob.undo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.files2iceberg.core.profile.Catalog;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileJson;
import io.files2iceberg.core.profile.ProfileLoader;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.catalog.CatalogConf;
import io.files2iceberg.sparkjob.sql.TestSessions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;

/** The embedded catalog (JDBC on SQLite) the undo tests share, and what they read back. */
final class UndoTables {
  /** A main's run: exit code, stdout and stderr. */
  record Ran(int code, String out, String err) {
    /** The one field object of the result line. */
    JsonNode result(String key) throws Exception {
      return new ObjectMapper().readTree(out.trim()).path(key);
    }
  }

  interface Main {
    int run(PrintStream out, PrintStream err);
  }

  final Home home;
  final SparkSession spark;

  UndoTables(Path root) {
    home = new Home(root);
    Catalog embedded = new Catalog(Catalog.CatalogType.JDBC, "jdbc:sqlite:" + home.catalogDb(),
        home.warehouse().toString(), Optional.empty(), Optional.empty(), Optional.empty(), false, Map.of());
    spark = TestSessions.newSession(CatalogConf.sparkProperties("local", embedded));
    SparkSession.setActiveSession(spark);
  }

  /** The rendered profile of the table, with the extra HOCON lines given. */
  String profile(String table, String lines) throws Exception {
    TableProfile profile = ProfileLoader.parse("extract.path = \"file:///landing/u/*.json\"\nextract.format = json\n"
        + "load.iceberg.table = \"" + table + "\"\n" + lines, Path.of("u.conf"), home);
    return ProfileJson.toJson(profile);
  }

  /** Runs the statement with these properties in the summary of the snapshot it commits; returns that snapshot. */
  Snapshot commit(String table, Map<String, String> summary, String sql) throws Exception {
    CommitMetadata.withCommitProperties(summary, () -> spark.sql(sql).collectAsList(), RuntimeException.class);
    Thread.sleep(5); // distinct commit times, as batches minutes apart have
    return load(table).currentSnapshot();
  }

  Table load(String table) throws Exception {
    Table loaded = Spark3Util.loadIcebergTable(spark, table);
    loaded.refresh();
    return loaded;
  }

  /** The rows as Iceberg's own reader returns them at the current snapshot, sorted. */
  List<String> rows(String table) throws Exception {
    Table loaded = load(table);
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(loaded).build()) {
      records.forEach(r -> rows.add(loaded.schema().columns().stream().map(c -> String.valueOf(r.getField(c.name())))
          .collect(Collectors.joining(",", "[", "]"))));
    }
    rows.sort(String::compareTo);
    return rows;
  }

  static Ran run(Main main) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = main.run(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true,
        StandardCharsets.UTF_8));
    return new Ran(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
