package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ProfileFixtures.loadErrors;
import static io.files2iceberg.core.profile.ProfileFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code load.undo-tag-retention}: how long the tag before a risky batch is kept, 30 days unless
 * set, {@code 0} for no tag; it survives the rendering the job receives.
 */
class UndoTagRetentionProfileTest {
  static final String TABLE = """
      extract.path = "gs://bucket/raw/orders/*/*.parquet"
      load.iceberg.table = "prod.raw.orders"
      """;

  @TempDir Path dir;

  private TableProfile load(String hocon) throws ProfileException {
    return ProfileLoader.load(write(dir, "orders.conf", hocon), new Home(dir.resolve("home")));
  }

  @Test
  void unsetRetentionKeepsTagsThirtyDays() throws ProfileException {
    assertThat(load(TABLE).load().undoTagRetention()).isEqualTo(Duration.ofDays(30));
  }

  @Test
  void retentionIsADurationAndZeroTurnsTagsOff() throws ProfileException {
    assertThat(load(TABLE + "load.undo-tag-retention = 7d\n").load().undoTagRetention()).isEqualTo(Duration.ofDays(7));
    assertThat(load(TABLE + "load.undo-tag-retention = 0\n").load().undoTagRetention()).isZero();
    assertThat(load(TABLE + "load.undo-tag-retention = \"0\"\n").load().undoTagRetention()).isZero();
  }

  @Test
  void zeroRetentionSurvivesTheRenderingTheJobReads() throws ProfileException {
    TableProfile profile = load(TABLE + "load.undo-tag-retention = 0\n");
    TableProfile rendered = ProfileLoader.parse(ProfileJson.toJson(profile), profile.source(),
        new Home(dir.resolve("home")));
    assertThat(rendered.load().undoTagRetention()).isZero();
  }

  @Test
  void retentionWithoutAUnitIsRefusedNamingTheKey() {
    Path file = write(dir, "orders.conf", TABLE + "load.undo-tag-retention = 30\n");
    assertThat(loadErrors(file, new Home(dir.resolve("home"))))
        .containsExactly(file + ": load.undo-tag-retention: expected a duration with a unit, such as 30m, 1h or"
            + " 90s, or 0, got 30");
  }
}
