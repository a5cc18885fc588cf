package io.files2iceberg.batcher.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.batcher.local.LandingScope;
import io.files2iceberg.core.match.ObjectLocation;
import io.files2iceberg.core.match.ObjectMatch;
import io.files2iceberg.core.match.ObjectMatcher;
import io.files2iceberg.core.profile.BatchFile;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.profile.TableProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo's folders and its profile, as the example profile with the home's landing folder. */
class DemoLandingTest {
  @TempDir Path root;

  @Test
  void profileIsTheLocalExampleReadingTheHomesLandingFolderBesideTheEmbeddedDeploymentFile() throws Exception {
    Home home = new Home(root.resolve("my home"));
    DemoLanding demo = new DemoLanding(home);
    demo.writeProfile();

    ProfileRegistry registry = ProfileRegistry.load(demo.profiles(), home);

    TableProfile profile = registry.profiles().get(0);
    assertThat(profile.name()).isEqualTo("clicks");
    assertThat(profile.table()).isEqualTo("local.demo.clicks");
    assertThat(profile.isEmbeddedCatalog()).isTrue();
    assertThat(profile.extract().path())
        .isEqualTo("file://" + home.root().resolve("demo/landing") + "/clicks/dt=*/*.parquet");
    assertThat(profile.extract().batchFile().partitionType()).isEqualTo(BatchFile.PartitionType.DATE);
    assertThat(profile.extract().batchFile().partitionColumn()).isEqualTo("dt");
    assertThat(profile.extract().maxBatchSize()).isEqualTo(3);
    assertThat(profile.transform().filter()).containsExactly("click_id IS NOT NULL", "user_id != ''");
    assertThat(profile.transform().castColumns()).containsEntry("user_id", "BIGINT");
    assertThat(profile.load().primaryKey()).containsExactly("click_id");
    assertThat(profile.load().precombineField()).contains("click_time");
    // The job's settings are the deployment's, in the deployment file the demo writes beside the profile.
    assertThat(registry.deploymentFile()).contains(demo.profiles().resolve("deployment.conf").toAbsolutePath());
    assertThat(registry.deploymentHint()).isEmpty();
    assertThat(registry.deployment().job().leaseTimeout()).isEqualTo(Duration.ofMinutes(1));
    assertThat(registry.deployment().job().sparkProperties()).containsEntry("spark.ui.enabled", "false");
    assertThat(registry.deployment().ledger().sqlitePath()).isEqualTo(home.ledgerDb().toString());
  }

  @Test
  void aHomeWhoseNameHoldsGlobCharactersIsAFolderNotAPattern() throws Exception {
    Home home = new Home(root.resolve("run[1] {a,b}"));
    DemoLanding demo = new DemoLanding(home);
    demo.writeProfile();

    TableProfile profile = ProfileRegistry.load(demo.profiles(), home).profiles().get(0);

    Path file = demo.landing().resolve("clicks/dt=2026-01-01/part-0.parquet");
    assertThat(new ObjectMatcher(List.of(profile)).match(ObjectLocation.file(file), 1, 10))
        .isInstanceOf(ObjectMatch.DataFile.class);
    assertThat(LandingScope.unreachable(List.of(profile), demo.landing())).isEmpty();
  }

  @Test
  void profileIsRewrittenOnlyWhenItDiffers() throws Exception {
    DemoLanding demo = new DemoLanding(new Home(root));
    Path file = demo.writeProfile();
    Files.setLastModifiedTime(file, FileTime.from(Instant.parse("2026-01-01T00:00:00Z")));

    demo.writeProfile();
    assertThat(Files.getLastModifiedTime(file).toInstant()).isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));

    Files.writeString(file, "# edited");
    demo.writeProfile();
    assertThat(Files.readString(file)).contains("local.demo.clicks");
  }

  @Test
  void isWrittenOnceTheLastDaysMarkerExists() throws Exception {
    DemoLanding demo = new DemoLanding(new Home(root));
    assertThat(demo.isWritten()).isFalse();

    Path marker = demo.landing().resolve("clicks/dt=2026-11-29/_SUCCESS");
    Files.createDirectories(marker.getParent());
    Files.createFile(marker);

    assertThat(demo.isWritten()).isTrue();
    assertThat(demo.writerArguments()).containsExactly("--landing", demo.landing().toString(), "--late",
        demo.late().toString(), "--days", "3");
  }

  @Test
  void lateFileLandsOnceWithANewModificationTime() throws Exception {
    DemoLanding demo = new DemoLanding(new Home(root));
    Path held = demo.late().resolve("clicks/dt=2026-11-27/part-3.parquet");
    Files.createDirectories(held.getParent());
    Files.writeString(held, "parquet bytes");
    Files.setLastModifiedTime(held, FileTime.from(Instant.parse("2026-01-01T00:00:00Z")));
    Clock clock = Clock.fixed(Instant.parse("2026-11-30T12:00:00Z"), ZoneOffset.UTC);

    Path landed = demo.landLateFile(clock).orElseThrow();

    assertThat(landed).isEqualTo(demo.landing().resolve("clicks/dt=2026-11-27/part-3.parquet"));
    assertThat(Files.readString(landed)).isEqualTo("parquet bytes");
    assertThat(Files.getLastModifiedTime(landed).toInstant()).isEqualTo(Instant.parse("2026-11-30T11:59:58Z"));
    assertThat(held).doesNotExist();
    try (var left = Files.list(landed.getParent())) {
      assertThat(left.map(p -> p.getFileName().toString()).toList()).isEqualTo(List.of("part-3.parquet"));
    }
    assertThat(demo.landLateFile(clock)).isEmpty();
  }
}
