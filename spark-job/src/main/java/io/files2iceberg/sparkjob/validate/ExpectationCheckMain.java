package io.files2iceberg.sparkjob.validate;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileException;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.OwnSession;
import io.files2iceberg.sparkjob.sql.SqlMain;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * Checks the expectations of every profile under {@code --config} against its table's columns
 * ({@link ExpectationChecks}): what {@code files2iceberg validate} starts as a child JVM on the
 * job's classpath when a profile has expectations to check.
 *
 * <pre>{@code
 * ExpectationCheckMain --home DIR --config DIR
 * }</pre>
 *
 * <p>Prints one JSON object per finding on stdout: {@code profile}, {@code source}, {@code key},
 * {@code outcome} ({@code error} or {@code unchecked}) and {@code reason}, and one {@code
 * {"unreadable": ...}} per table whose schema could not be read (its checks are then made against
 * the profile's declared columns). Exits 0 once every profile was checked, 2 for bad arguments or
 * profiles.
 */
public final class ExpectationCheckMain {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ExpectationCheckMain() {}

  public static void main(String[] args) {
    if (System.getProperty("log4j2.configurationFile") == null) {
      System.setProperty("log4j2.configurationFile", SqlMain.QUIET_LOGGING);
    }
    Path config = null;
    Optional<Path> home = Optional.empty();
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--config" -> config = Path.of(args[i + 1]);
        case "--home" -> home = Optional.of(Path.of(args[i + 1]));
        default -> {
          System.err.println("error: unknown option " + args[i]);
          System.exit(2);
        }
      }
    }
    if (config == null || args.length % 2 != 0) {
      System.err.println("usage: ExpectationCheckMain --home DIR --config DIR");
      System.exit(2);
      return;
    }
    Home resolved = Home.resolve(home, System.getenv());
    List<TableProfile> profiles;
    Map<String, String> catalogs;
    try {
      profiles = ProfileRegistry.load(config, resolved).profiles().stream()
          .filter(profile -> profile.quality().namesColumns())
          .toList();
      catalogs = SqlMain.catalogProperties(resolved, Optional.of(config));
    } catch (ProfileException e) {
      System.err.println("error: " + e.getMessage());
      System.exit(2);
      return;
    }
    if (profiles.isEmpty()) {
      System.exit(0);
      return;
    }
    SparkSession spark = SqlMain.session(catalogs);
    OwnSession.runAndExit(spark, session -> run(session, profiles, System.out));
  }

  static int run(SparkSession spark, List<TableProfile> profiles, PrintStream out) {
    for (TableProfile profile : profiles) {
      Optional<StructType> schema;
      try {
        schema = spark.catalog().tableExists(profile.table())
            ? Optional.of(spark.table(profile.table()).schema()) : Optional.empty();
      } catch (Exception e) { // an unreachable catalog: Scala code throws checked exceptions undeclared
        ObjectNode line = JSON.createObjectNode().put("unreadable", profile.table())
            .put("profile", profile.name()).put("reason", String.valueOf(e.getMessage()).lines().findFirst()
                .orElse(e.toString()));
        out.println(line);
        schema = Optional.empty();
      }
      for (ExpectationChecks.Finding finding : ExpectationChecks.check(spark, profile, schema)) {
        out.println(JSON.createObjectNode().put("profile", finding.profile()).put("source", finding.source())
            .put("key", finding.key()).put("outcome", finding.outcome().code()).put("reason", finding.reason()));
      }
    }
    out.flush();
    return 0;
  }
}
