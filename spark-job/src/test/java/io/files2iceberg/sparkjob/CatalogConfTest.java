package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.files2iceberg.core.profile.DeploymentLoader;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.JobSettings;
import io.files2iceberg.core.profile.ProfileLoader;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.catalog.CatalogConf;
import io.files2iceberg.sparkjob.catalog.CommitDurations;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The exact Spark properties each catalog type turns into. */
class CatalogConfTest {
  @TempDir Path home;

  private TableProfile profile(String hocon) throws Exception {
    return ProfileLoader.parse("""
        extract.path = "gs://bucket/raw/clicks/*.parquet"
        """ + hocon, home.resolve("clicks.conf"), new Home(home));
  }

  @Test
  void embeddedDefaultIsAJdbcCatalogOnSqliteUnderTheHome() throws Exception {
    TableProfile profile = profile("load.iceberg.table = local.demo.clicks");

    assertThat(CatalogConf.sparkProperties(profile)).containsExactly(
        entry("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"),
        entry("spark.sql.catalog.local", "org.apache.iceberg.spark.SparkCatalog"),
        entry("spark.sql.catalog.local.type", "jdbc"),
        entry("spark.sql.catalog.local.uri", "jdbc:sqlite:" + home.resolve("catalog.db")),
        entry("spark.sql.catalog.local.warehouse", home.resolve("warehouse").toString()),
        entry("spark.sql.catalog.local.jdbc.busy_timeout", "30000"),
        entry("spark.sql.catalog.local.metrics-reporter-impl", CommitDurations.class.getName()));
  }

  @Test
  void folderOfTheEmbeddedSqliteCatalogIsCreatedWhenNothingCreatedTheHomeYet() throws Exception {
    Path fresh = home.resolve("not-yet").resolve("home");
    TableProfile profile = ProfileLoader.parse("""
        extract.path = "gs://bucket/raw/clicks/*.parquet"
        load.iceberg.table = local.demo.clicks
        ledger { type = firestore, firestore-project = p }
        """, home.resolve("clicks.conf"), new Home(fresh));

    CatalogConf.createSqliteFolder(profile.catalog());

    assertThat(fresh).isDirectory();
    try (var connection = java.sql.DriverManager.getConnection(profile.catalog().uri())) {
      assertThat(connection.isValid(1)).isTrue();
    }
    assertThat(fresh.resolve("catalog.db")).isRegularFile();
  }

  @Test
  void hadoopCatalogHasAWarehouseOnly() throws Exception {
    TableProfile profile = profile("""
        load.iceberg.table = lake.raw.clicks
        catalog { type = hadoop, warehouse = "file:///data/warehouse" }
        """);

    assertThat(CatalogConf.sparkProperties(profile)).containsExactly(
        entry("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"),
        entry("spark.sql.catalog.lake", "org.apache.iceberg.spark.SparkCatalog"),
        entry("spark.sql.catalog.lake.type", "hadoop"),
        entry("spark.sql.catalog.lake.warehouse", "file:///data/warehouse"),
        entry("spark.sql.catalog.lake.metrics-reporter-impl", CommitDurations.class.getName()));
  }

  @Test
  void restCatalogOnBigLakeHasGoogleAuthGcsFileIoAndTheUserProjectHeader() throws Exception {
    TableProfile profile = profile("""
        load.iceberg.table = prod.raw.clicks
        catalog {
          type = rest
          uri = "https://biglake.googleapis.com/iceberg/v1/restcatalog"
          warehouse = "gs://my-lakehouse-bucket"
          user-project = my-project
        }
        """);

    assertThat(CatalogConf.sparkProperties(profile)).containsExactly(
        entry("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"),
        entry("spark.sql.catalog.prod", "org.apache.iceberg.spark.SparkCatalog"),
        entry("spark.sql.catalog.prod.type", "rest"),
        entry("spark.sql.catalog.prod.uri", "https://biglake.googleapis.com/iceberg/v1/restcatalog"),
        entry("spark.sql.catalog.prod.warehouse", "gs://my-lakehouse-bucket"),
        entry("spark.sql.catalog.prod.header.x-goog-user-project", "my-project"),
        entry("spark.sql.catalog.prod.rest.auth.type", "org.apache.iceberg.gcp.auth.GoogleAuthManager"),
        entry("spark.sql.catalog.prod.io-impl", "org.apache.iceberg.gcp.gcs.GCSFileIO"),
        entry("spark.sql.catalog.prod.metrics-reporter-impl", CommitDurations.class.getName()));
  }

  @Test
  void restCatalogAsksForVendedCredentialsAndPassesFurtherPropertiesAsTheyAre() throws Exception {
    TableProfile profile = profile("""
        load.iceberg.table = prod.raw.clicks
        catalog {
          type = rest
          uri = "https://biglake.googleapis.com/iceberg/v1/restcatalog"
          warehouse = "gs://my-lakehouse-bucket"
          vended-credentials = true
          properties { "rest-metrics-reporting-enabled" = "false" }
        }
        """);

    assertThat(CatalogConf.sparkProperties(profile))
        .containsEntry("spark.sql.catalog.prod.header.X-Iceberg-Access-Delegation", "vended-credentials")
        .containsEntry("spark.sql.catalog.prod.rest-metrics-reporting-enabled", "false")
        .doesNotContainKey("spark.sql.catalog.prod.header.x-goog-user-project");
  }

  @Test
  void sessionKeepsIcebergExtensionsWhenTheDeploymentAddsItsOwnAndPassesSparkPropertiesAsTheyAre() throws Exception {
    TableProfile profile = profile("""
        load.iceberg.table = local.demo.clicks
        """);
    JobSettings job = DeploymentLoader.parse("""
        job.spark-properties {
          "spark.sql.extensions" = "com.example.MyExtensions"
          "spark.executor.memory" = 4g
        }
        """, Path.of("deployment.conf"), new Home(Path.of("home"))).job();

    assertThat(CatalogConf.sessionProperties(profile, job))
        .containsEntry("spark.sql.extensions",
            "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions,com.example.MyExtensions")
        .containsEntry("spark.executor.memory", "4g")
        .containsEntry("spark.sql.catalog.local", "org.apache.iceberg.spark.SparkCatalog");
  }

  @Test
  void sessionAndWarmContextAreInUtcUnlessTheDeploymentSetsTheSessionTimeZone() throws Exception {
    TableProfile profile = profile("load.iceberg.table = local.demo.clicks");
    JobSettings defaults = DeploymentLoader.parse("", Path.of("deployment.conf"), new Home(Path.of("home"))).job();
    JobSettings paris = DeploymentLoader.parse("""
        job.spark-properties { "spark.sql.session.timeZone" = "Europe/Paris" }
        """, Path.of("deployment.conf"), new Home(Path.of("home"))).job();

    assertThat(CatalogConf.sessionProperties(profile, defaults)).containsEntry("spark.sql.session.timeZone", "UTC");
    assertThat(CatalogConf.contextProperties(defaults.sparkProperties()))
        .containsEntry("spark.sql.session.timeZone", "UTC");
    assertThat(CatalogConf.sessionProperties(profile, paris))
        .containsEntry("spark.sql.session.timeZone", "Europe/Paris");
    assertThat(CatalogConf.contextProperties(paris.sparkProperties()))
        .containsEntry("spark.sql.session.timeZone", "Europe/Paris");
  }
}
