package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ProfileFixtures.loadErrors;
import static io.files2iceberg.core.profile.ProfileFixtures.registryErrors;
import static io.files2iceberg.core.profile.ProfileFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.profile.Load.AfterIngest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code load.after-ingest}: landing cleanup, keep by default; a move names a folder of the
 * landing's scheme that no profile watches; a delete keeps objects more than 7 days; and no
 * cleanup for a table whose loads read old files again.
 */
class AfterIngestProfileTest {
  static final String TABLE = """
      extract.path = "gs://bucket/raw/orders/*/*.parquet"
      load.iceberg.table = "prod.raw.orders"
      """;

  @TempDir Path dir;

  private TableProfile load(String hocon) throws ProfileException {
    return ProfileLoader.load(write(dir, "orders.conf", hocon), home());
  }

  private Home home() {
    return new Home(dir.resolve("home"));
  }

  private java.util.List<String> errors(String hocon) {
    return loadErrors(write(dir, "orders.conf", hocon), home());
  }

  @Test
  void unsetEveryLandedObjectIsKept() throws ProfileException {
    assertThat(load(TABLE).load().afterIngest()).isEqualTo(AfterIngest.KEEP);
    assertThat(AfterIngest.KEEP.retention()).isEqualTo(Duration.ofDays(30));
  }

  @Test
  void moveNamesItsFolderAndRetentionIsADuration() throws ProfileException {
    AfterIngest move = load(TABLE + """
        load.after-ingest { action = move, move-to = "gs://archive/landing", retention = 2d }
        """).load().afterIngest();

    assertThat(move).isEqualTo(new AfterIngest(AfterIngest.Action.MOVE, Optional.of("gs://archive/landing/"),
        Duration.ofDays(2)));
    AfterIngest delete = load(TABLE + "load.after-ingest.action = delete\n").load().afterIngest();
    assertThat(delete).isEqualTo(new AfterIngest(AfterIngest.Action.DELETE, Optional.empty(), Duration.ofDays(30)));
  }

  @Test
  void theSettingSurvivesTheRenderingTheJobReads() throws ProfileException {
    TableProfile profile = load(TABLE + """
        load.after-ingest { action = move, move-to = "gs://archive/landing/", retention = 12h }
        """);
    TableProfile rendered = ProfileLoader.parse(ProfileJson.toJson(profile), profile.source(), home());
    assertThat(rendered.load().afterIngest()).isEqualTo(profile.load().afterIngest());
  }

  @Test
  void moveWithoutAFolderAndAFolderWithoutMoveAreRefusedNamingTheKey() {
    assertThat(errors(TABLE + "load.after-ingest.action = move\n")).singleElement().asString()
        .contains("load.after-ingest.move-to: is required with load.after-ingest.action = move");
    assertThat(errors(TABLE + "load.after-ingest { action = delete, move-to = \"gs://archive/x/\" }\n"))
        .singleElement().asString()
        .contains("load.after-ingest.move-to: applies only to load.after-ingest.action = move, which is delete here");
  }

  @Test
  void aFolderOfAnotherSchemeThanTheLandingIsRefused() {
    assertThat(errors(TABLE + "load.after-ingest { action = move, move-to = \"file:///tmp/archive/\" }\n"))
        .singleElement().asString()
        .contains("load.after-ingest.move-to: \"file:///tmp/archive/\" is a local folder but extract.path")
        .contains("move-to has the landing's scheme");
    assertThat(errors(TABLE + "load.after-ingest { action = move, move-to = \"s3://archive/\" }\n"))
        .singleElement().asString().contains("expected a gs://bucket/prefix/ or file:///folder/ URI");
  }

  @Test
  void deleteKeepsObjectsMoreThanSevenDays() throws ProfileException {
    assertThat(errors(TABLE + "load.after-ingest { action = delete, retention = 7d }\n")).singleElement().asString()
        .contains("load.after-ingest.retention: must be more than 7d with load.after-ingest.action = delete, got"
            + " 7d");
    assertThat(load(TABLE + "load.after-ingest { action = delete, retention = 8d }\n").load().afterIngest()
        .retention()).isEqualTo(Duration.ofDays(8));
    assertThat(load(TABLE + "load.after-ingest { action = move, move-to = \"gs://a/b/\", retention = 1h }\n")
        .load().afterIngest().retention()).isEqualTo(Duration.ofHours(1));
  }

  @Test
  void cleanupIsRefusedForLoadsThatReadOldFilesAgain() {
    assertThat(errors(TABLE + """
        load.save-mode = Overwrite
        load.partition-by = [dt]
        extract.batch-file.partition-column = dt
        load.after-ingest.action = delete
        """)).singleElement().asString()
        .contains("load.after-ingest.action: delete cannot go with load.save-mode = Overwrite");
    assertThat(errors(TABLE + """
        extract.batch-file.ingestion-type = full
        load.after-ingest { action = move, move-to = "gs://archive/x/" }
        """)).anySatisfy(e -> assertThat(e)
        .contains("load.after-ingest.action: move cannot go with extract.batch-file.ingestion-type = full"));
    assertThat(errors(TABLE + """
        extract.batch-file.ingestion-type = last
        load.after-ingest.action = delete
        """)).anySatisfy(e -> assertThat(e)
        .contains("load.after-ingest.action: delete cannot go with extract.batch-file.ingestion-type = last"));
  }

  @Test
  void aFolderThatAProfileOfTheDeploymentWatchesIsRefused() {
    Path profiles = dir.resolve("profiles");
    write(profiles, "orders.conf", TABLE + """
        load.after-ingest { action = move, move-to = "gs://bucket/raw/clicks/archive/" }
        """);
    write(profiles, "clicks.conf", """
        extract.path = "gs://bucket/raw/clicks/**/*.csv"
        load.iceberg.table = "prod.raw.clicks"
        """);
    assertThat(registryErrors(profiles, home())).singleElement().asString()
        .contains("load.after-ingest.move-to: \"gs://bucket/raw/clicks/archive/\" is under \"gs://bucket/raw/clicks/\","
            + " which extract.path \"gs://bucket/raw/clicks/**/*.csv\" of clicks.conf watches");
  }

  @Test
  void aFolderBesideTheWatchedOnesIsAccepted() throws ProfileException {
    Path profiles = dir.resolve("profiles");
    write(profiles, "orders.conf", TABLE + """
        load.after-ingest { action = move, move-to = "gs://bucket/archive/" }
        """);
    assertThat(ProfileRegistry.load(profiles, home()).profiles()).hasSize(1);
    write(profiles, "orders.conf", TABLE + """
        load.after-ingest { action = move, move-to = "gs://bucket/raw/orders/archive/" }
        """);
    assertThat(registryErrors(profiles, home())).singleElement().asString().contains("is under");
  }
}
