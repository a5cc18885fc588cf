package io.files2iceberg.batcher.engine.launch.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.batcher.engine.launch.Launcher;
import io.files2iceberg.batcher.engine.launch.Launchers;
import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.DeploymentLoader;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileLoader;
import io.files2iceberg.core.profile.TableProfile;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which deployments run on Kubernetes, through the providers registered on the classpath. */
class KubernetesLauncherProviderTest {

  static final String KUBERNETES =
      "job.kubernetes { namespace = lake, image = \"spark-job:1\", service-account = files2iceberg-job }\n";

  @TempDir Path home;
  TableProfile profile;

  @BeforeEach
  void profile() throws Exception {
    profile = ProfileLoader.parse("""
        extract.path = "gs://lake-landing/clicks/dt=*/*.parquet"
        load.iceberg.table = "lake.web.clicks"
        """, home.resolve("clicks.conf"), new Home(home));
  }

  private Deployment deployment(String hocon) throws Exception {
    return DeploymentLoader.parse(hocon, home.resolve("deployment.conf"), new Home(home));
  }

  private static Launchers discover(Deployment deployment) {
    return Launchers.discover(deployment, () -> {
      throw new AssertionError("the local launcher is not used with a provider that handles the deployment");
    });
  }

  @Test
  void aKubernetesNamespacePicksTheKubernetesProviderOnTheClasspathOnceForEveryProfile() throws Exception {
    TableProfile other = ProfileLoader.parse("""
        extract.path = "gs://lake-landing/orders/dt=*/*.parquet"
        load.iceberg.table = "lake.web.orders"
        """, home.resolve("orders.conf"), new Home(home));
    try (Launchers launchers = discover(deployment(KUBERNETES))) {
      Launcher launcher = launchers.apply(profile);

      assertThat(launcher).isInstanceOf(KubernetesLauncher.class)
          .hasToString("Kubernetes launcher in namespace lake");
      assertThat(launchers.apply(other)).as("one client for the deployment").isSameAs(launcher);
    }
  }

  @Test
  void theProviderHandlesOnlyDeploymentsWithANamespace() throws Exception {
    KubernetesLauncherProvider provider = new KubernetesLauncherProvider();

    assertThat(provider.name()).isEqualTo("kubernetes");
    assertThat(provider.handles(profile, deployment(KUBERNETES))).isTrue();
    assertThat(provider.handles(profile, DeploymentLoader.defaults(new Home(home)))).isFalse();
    assertThat(provider.handles(profile, deployment(
        "job { dataproc-region = europe-west1, jar-uri = \"gs://bucket/job.jar\" }"))).isFalse();
  }

  @Test
  void kubernetesAndDataprocBothSetIsAConfigurationErrorNamingBothKeys() throws Exception {
    Deployment both = deployment(KUBERNETES
        + "job { dataproc-region = europe-west1, jar-uri = \"gs://bucket/job.jar\" }\n");

    try (Launchers launchers = discover(both)) {
      assertThat(launchers.check(List.of(profile))).containsExactly(profile.source() + ": job.kubernetes.namespace and"
          + " job.dataproc-region are both set: the jobs run either on Kubernetes or on Dataproc; remove one of them");
    }
  }

  @Test
  void aDriverSizeSparkCannotReadIsAConfigurationErrorNamingTheKey() throws Exception {
    Deployment bad = deployment(KUBERNETES + "job.spark-properties { \"spark.driver.cores\" = \"lots\" }\n");

    try (Launchers launchers = discover(bad)) {
      assertThat(launchers.check(List.of(profile))).containsExactly(profile.source()
          + ": job.spark-properties.spark.driver.cores: not a whole number of cores: \"lots\"");
    }
  }
}
