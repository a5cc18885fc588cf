package io.files2iceberg.batcher.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.profile.TableProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LaunchersTest {
  @TempDir Path dir;

  /** A provider for profiles with a Dataproc region, standing in for the Dataproc module. */
  private static final class RegionProvider implements LauncherProvider {
    final AtomicInteger opened = new AtomicInteger();

    @Override
    public String name() {
      return "dataproc";
    }

    @Override
    public boolean handles(TableProfile profile) {
      return profile.job().dataprocRegion().isPresent();
    }

    @Override
    public Launcher open(TableProfile profile) {
      opened.incrementAndGet();
      return (manifest, uri, attempt) -> {
        throw new LaunchException("not in this test", false);
      };
    }
  }

  private List<TableProfile> profiles() throws Exception {
    Files.writeString(dir.resolve("a.conf"), """
        extract { path = "file:///data/a/*/*.csv", format = csv }
        load.iceberg.table = "local.test.a"
        """);
    Files.writeString(dir.resolve("b.conf"), """
        extract { path = "file:///data/b/*/*.csv", format = csv }
        load.iceberg.table = "local.test.b"
        job { dataproc-region = europe-west1, jar-uri = "gs://bucket/job.jar" }
        """);
    return ProfileRegistry.load(dir, new Home(dir.resolve("home"))).profiles();
  }

  @Test
  void aProviderThatHandlesTheProfileWinsElseTheLocalLauncherRuns() throws Exception {
    List<TableProfile> profiles = profiles();
    Launcher local = (manifest, uri, attempt) -> {
      throw new LaunchException("local", false);
    };
    RegionProvider provider = new RegionProvider();
    AtomicInteger localCreated = new AtomicInteger();
    try (Launchers launchers = new Launchers(List.of(provider), () -> {
      localCreated.incrementAndGet();
      return local;
    })) {
      assertThat(launchers.check(profiles)).isEmpty();
      assertThat(launchers.apply(profiles.get(0))).isSameAs(local);
      assertThat(launchers.apply(profiles.get(1))).isNotSameAs(local);
      assertThat(launchers.apply(profiles.get(1))).isSameAs(launchers.apply(profiles.get(1)));
      assertThat(provider.opened).hasValue(1);
      assertThat(localCreated).hasValue(1);
    }
  }

  @Test
  void aDataprocRegionWithoutAProviderIsAProblemNamingTheProfile() throws Exception {
    List<TableProfile> profiles = profiles();
    try (Launchers launchers = new Launchers(List.of(), () -> (manifest, uri, attempt) -> null)) {
      assertThat(launchers.check(profiles)).containsExactly(dir.resolve("b.conf")
          + ": job.dataproc-region is set (europe-west1) but no Dataproc launcher is on the classpath");
      assertThatThrownBy(() -> launchers.apply(profiles.get(1))).isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void aMissingLocalBuildIsAProblemOfEveryLocalProfile() throws Exception {
    List<TableProfile> profiles = profiles();
    try (Launchers launchers = new Launchers(List.of(new RegionProvider()),
        () -> new LocalSparkLauncher(dir.resolve("nothing"), new Home(dir)))) {
      assertThat(launchers.check(profiles)).singleElement().asString()
          .startsWith(dir.resolve("a.conf") + ": The Spark job is not built");
    }
  }
}
