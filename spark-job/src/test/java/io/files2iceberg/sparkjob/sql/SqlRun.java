package io.files2iceberg.sparkjob.sql;

import io.files2iceberg.core.profile.Home;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;

/** One {@link SqlMain#run} in the test's session, on a home: its exit code and what it printed. */
record SqlRun(int code, String out, String err) {

  static SqlRun of(SparkSession spark, Home home, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    List<String> all = new ArrayList<>(List.of("--home", home.root().toString()));
    all.addAll(List.of(args));
    int code = SqlMain.run(spark, SqlMain.Options.parse(all.toArray(String[]::new)),
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    return new SqlRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
