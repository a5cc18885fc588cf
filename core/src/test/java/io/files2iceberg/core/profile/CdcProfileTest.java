package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ProfileFixtures.loadErrors;
import static io.files2iceberg.core.profile.ProfileFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.profile.Load.Cdc;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code load.cdc}: which incoming rows delete their key, validated with the rest of the load section. */
class CdcProfileTest {
  /** A keyed incremental table with an op column: the keys {@link ProfileFixtures#EVERY_KEY_HOCON} cannot hold. */
  static final String OP_COLUMN = """
      extract.path = "gs://bucket/raw/orders/*.parquet"
      load {
        iceberg.table = "prod.raw.orders"
        primary-key = [order_id]
        iceberg.precombine-field = updated_at
        cdc { op-column = change_type, delete-values = [D, X] }
      }
      """;

  static final String DELETE_FLAG = """
      extract.path = "gs://bucket/raw/orders/*.parquet"
      load {
        iceberg.table = "prod.raw.orders"
        primary-key = [order_id]
        cdc.delete-flag = is_deleted
      }
      """;

  @TempDir Path dir;

  private Home home() {
    return new Home(dir.resolve("home"));
  }

  private TableProfile load(String hocon) throws ProfileException {
    return ProfileLoader.load(write(dir, "orders.conf", hocon), home());
  }

  private List<String> errors(String hocon) {
    return loadErrors(write(dir, "orders.conf", hocon), home());
  }

  @Test
  void opColumnAndItsDeleteValuesParse() throws Exception {
    assertThat(load(OP_COLUMN).load().cdc()).contains(Cdc.opColumn("change_type", List.of("D", "X")));
  }

  @Test
  void opColumnWithoutDeleteValuesDeletesOnD() throws Exception {
    String profile = OP_COLUMN.replace("cdc { op-column = change_type, delete-values = [D, X] }", "cdc.op-column = op");

    assertThat(load(profile).load().cdc()).contains(Cdc.opColumn("op", List.of("D")));
  }

  @Test
  void deleteFlagParses() throws Exception {
    assertThat(load(DELETE_FLAG).load().cdc()).contains(Cdc.deleteFlag("is_deleted"));
  }

  @Test
  void withoutCdcNoRowIsADelete() throws Exception {
    assertThat(load(OP_COLUMN.replace("cdc { op-column = change_type, delete-values = [D, X] }", "")).load().cdc())
        .isEqualTo(Optional.empty());
  }

  @Test
  void theTwoFixturesSetEveryCdcKey() {
    String both = OP_COLUMN + DELETE_FLAG;
    assertThat(ProfileKeys.all().stream().filter(k -> k.startsWith("load.cdc.")))
        .containsExactlyInAnyOrder("load.cdc.op-column", "load.cdc.delete-values", "load.cdc.delete-flag")
        .allSatisfy(key -> assertThat(both).contains(key.substring(key.lastIndexOf('.') + 1)));
  }

  @Test
  void opColumnAndDeleteFlagTogetherAreRefused() {
    Path file = dir.resolve("orders.conf");
    assertThat(errors(OP_COLUMN.replace("delete-values = [D, X]", "delete-values = [D], delete-flag = is_deleted")))
        .containsExactly(file + ": load.cdc.delete-flag: cannot go with load.cdc.op-column: a delete is marked either"
            + " by an op column and its delete values or by a boolean delete flag");
  }

  @Test
  void emptyDeleteValuesAreRefused() {
    assertThat(errors(OP_COLUMN.replace("[D, X]", "[]"))).singleElement().asString()
        .contains("load.cdc.delete-values: must not be empty");
  }

  @Test
  void deleteValuesWithoutAnOpColumnAreRefused() {
    assertThat(errors(DELETE_FLAG.replace("cdc.delete-flag = is_deleted", "cdc.delete-values = [D]")))
        .singleElement().asString()
        .contains("load.cdc.delete-values: requires load.cdc.op-column");
  }

  @Test
  void cdcWithoutAPrimaryKeyIsRefusedNamingTheKey() {
    assertThat(errors(DELETE_FLAG.replace("primary-key = [order_id]", "primary-key = []")))
        .singleElement().asString()
        .contains("load.cdc.delete-flag: requires a non-empty load.primary-key");
  }

  @Test
  void cdcWithATableReplacingIngestionTypeIsRefused() {
    assertThat(errors(OP_COLUMN + "extract.batch-file.ingestion-type = full\n")).singleElement().asString()
        .contains("load.cdc.op-column: requires extract.batch-file.ingestion-type = incremental");
  }

  @Test
  void anOpColumnThatIsAKeyColumnIsRefused() {
    assertThat(errors(OP_COLUMN.replace("op-column = change_type", "op-column = order_id")))
        .singleElement().asString()
        .contains("load.cdc.op-column: column \"order_id\" is in load.primary-key");
  }
}
