package io.files2iceberg.batcher.engine.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.DeploymentLoader;
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

  /** A provider for deployments with a Dataproc region, standing in for the Dataproc module. */
  private static final class RegionProvider implements LauncherProvider {
    final AtomicInteger opened = new AtomicInteger();

    @Override
    public String name() {
      return "dataproc";
    }

    @Override
    public boolean handles(TableProfile profile, Deployment deployment) {
      return deployment.job().dataprocRegion().isPresent();
    }

    @Override
    public Launcher open(TableProfile profile, Deployment deployment) {
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
        """);
    return ProfileRegistry.load(dir, new Home(dir.resolve("home"))).profiles();
  }

  private Deployment local() {
    return DeploymentLoader.defaults(new Home(dir.resolve("home")));
  }

  private Deployment dataproc() throws Exception {
    return DeploymentLoader.parse("job { dataproc-region = europe-west1, jar-uri = \"gs://bucket/job.jar\" }",
        dir.resolve("deployment.conf"), new Home(dir.resolve("home")));
  }

  @Test
  void aProviderThatHandlesTheDeploymentOpensOneLauncherPerProfile() throws Exception {
    List<TableProfile> profiles = profiles();
    RegionProvider provider = new RegionProvider();
    AtomicInteger localCreated = new AtomicInteger();
    try (Launchers launchers = new Launchers(dataproc(), List.of(provider), () -> {
      localCreated.incrementAndGet();
      return (manifest, uri, attempt) -> null;
    })) {
      assertThat(launchers.check(profiles)).isEmpty();
      assertThat(launchers.apply(profiles.get(1))).isSameAs(launchers.apply(profiles.get(1)));
      assertThat(provider.opened).hasValue(2);
      assertThat(localCreated).hasValue(0);
    }
  }

  @Test
  void withoutADataprocRegionEveryProfileRunsOnTheOneLocalLauncher() throws Exception {
    List<TableProfile> profiles = profiles();
    Launcher local = (manifest, uri, attempt) -> {
      throw new LaunchException("local", false);
    };
    RegionProvider provider = new RegionProvider();
    AtomicInteger localCreated = new AtomicInteger();
    try (Launchers launchers = new Launchers(local(), List.of(provider), () -> {
      localCreated.incrementAndGet();
      return local;
    })) {
      assertThat(launchers.check(profiles)).isEmpty();
      assertThat(launchers.apply(profiles.get(0))).isSameAs(local);
      assertThat(launchers.apply(profiles.get(1))).isSameAs(local);
      assertThat(provider.opened).hasValue(0);
      assertThat(localCreated).hasValue(1);
    }
  }

  @Test
  void aDataprocRegionWithoutAProviderIsAProblemNamingEachProfile() throws Exception {
    List<TableProfile> profiles = profiles();
    try (Launchers launchers = new Launchers(dataproc(), List.of(), () -> (manifest, uri, attempt) -> null)) {
      assertThat(launchers.check(profiles)).containsExactly(
          dir.resolve("a.conf") + ": job.dataproc-region is set (europe-west1) but no Dataproc launcher is on the"
              + " classpath",
          dir.resolve("b.conf") + ": job.dataproc-region is set (europe-west1) but no Dataproc launcher is on the"
              + " classpath");
      assertThatThrownBy(() -> launchers.apply(profiles.get(1))).isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void aMissingLocalBuildIsAProblemOfEveryLocalProfile() throws Exception {
    List<TableProfile> profiles = profiles();
    try (Launchers launchers = new Launchers(local(), List.of(new RegionProvider()),
        () -> new LocalSparkLauncher(dir.resolve("nothing"), new Home(dir)))) {
      assertThat(launchers.check(profiles)).hasSize(2).allSatisfy(problem -> assertThat(problem)
          .contains(": The Spark job is not built"));
    }
  }
}
