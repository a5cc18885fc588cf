package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.JobFixture.Landed;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The same job on a Hadoop catalog: tables are folders of the warehouse. */
class HadoopCatalogTest {
  @TempDir static Path home;
  static JobFixture fixture;

  static final String CATALOG = """
      catalog.type = hadoop
      """;

  @BeforeAll
  static void startSession() {
    fixture = new JobFixture(home, """
        extract.path = "file:///landing/probe/*.parquet"
        load.iceberg.table = "lake.probe.probe"
        """ + CATALOG);
  }

  @Test
  void batchIsMergedIntoATableOfTheHadoopCatalogOnce() {
    StructType users = new StructType().add("user_id", DataTypes.LongType).add("name", DataTypes.StringType);
    TableProfile profile = fixture.profile("users", """
        extract.path = "file://%s/*/*.parquet"
        load {
          iceberg.table = "lake.crm.users"
          primary-key = [user_id]
        }
        """.formatted(fixture.landing("users")) + CATALOG);
    fixture.load(fixture.claimBatch(profile, Landed.of(fixture.writeFile("parquet", "users/p1/part-0.parquet", users,
        List.of(RowFactory.create(1L, "ada"), RowFactory.create(2L, "bob"))), "p1")));
    BatchManifest second = fixture.claimBatch(profile, Landed.of(fixture.writeFile("parquet", "users/p2/part-0.parquet",
        users, List.of(RowFactory.create(2L, "bobby"))), "p2"));
    fixture.load(second);

    BatchLoadReport again = fixture.load(second);

    assertThat(again.alreadyCommitted()).isTrue();
    assertThat(fixture.rows("SELECT user_id, name FROM lake.crm.users ORDER BY user_id")).containsExactly("[1,ada]", "[2,bobby]");
    assertThat(Files.isDirectory(fixture.home.warehouse().resolve("crm").resolve("users").resolve("metadata"))).isTrue();
  }
}
