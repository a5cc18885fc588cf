package io.files2iceberg.batcher.engine.launch.dataproc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.DeploymentLoader;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.JobSettings;
import io.files2iceberg.core.profile.ProfileLoader;
import io.files2iceberg.core.profile.TableProfile;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataprocLauncherProviderTest {

  static final String BASE = """
      extract.path = "gs://lake-landing/clicks/dt=*/*.parquet"
      load.iceberg.table = "lake.web.clicks"
      """;

  @TempDir Path home;

  @Test
  void handlesExactlyTheProfilesWithADataprocRegion() throws Exception {
    DataprocLauncherProvider provider = new DataprocLauncherProvider(Map.of());

    assertThat(provider.name()).isEqualTo("dataproc");
    assertThat(provider.handles(profile(BASE), deployment("job.dataproc-region = europe-west1"))).isTrue();
    assertThat(provider.handles(profile(BASE), deployment(""))).isFalse();
  }

  @Test
  void theProjectIsGoogleCloudProjectElseTheFirestoreLedgersProject() throws Exception {
    Deployment firestore = deployment("ledger { type = firestore, firestore-project = lake-prod }");

    assertThat(new DataprocLauncherProvider(Map.of("GOOGLE_CLOUD_PROJECT", "lake-jobs")).projectOf(firestore))
        .isEqualTo("lake-jobs");
    assertThat(new DataprocLauncherProvider(Map.of()).projectOf(firestore)).isEqualTo("lake-prod");
  }

  @Test
  void aDeploymentWithoutAJarUriIsAConfigurationErrorNamingTheKey() throws Exception {
    TableProfile profile = profile(BASE);
    Deployment deployment = deployment("job.dataproc-region = europe-west1");
    DataprocLauncherProvider provider = new DataprocLauncherProvider(Map.of("GOOGLE_CLOUD_PROJECT", "lake-prod"));

    assertThatThrownBy(() -> provider.open(profile, deployment))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("job.jar-uri: required with job.dataproc-region: the gs:// URI of"
            + " files2iceberg-spark-job-<version>-all.jar");
  }

  @Test
  void aWarmDriverOnAClusterWithoutTheClusterIsAConfigurationErrorNamingTheKeyWhileUnsetMeansABatchPerBatch()
      throws Exception {
    TableProfile profile = profile(BASE);
    Deployment warm = deployment("job { dataproc-region = europe-west1, jar-uri = \"gs://b/job-all.jar\", mode = warm }");
    Deployment noCluster = new Deployment(warm.ledger(), warm.listener(),
        warm.job().withWarmDataproc(JobSettings.WarmPlace.CLUSTER, java.util.Optional.empty()), warm.storage());
    DataprocLauncherProvider provider = new DataprocLauncherProvider(Map.of("GOOGLE_CLOUD_PROJECT", "lake-prod"));

    assertThatThrownBy(() -> provider.open(profile, noCluster))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("job.dataproc-cluster: is required when job.warm.dataproc = cluster");
    assertThat(warm.job().modeOnDataproc()).isEqualTo(JobSettings.JobMode.WARM);
    assertThat(deployment("job.dataproc-region = europe-west1").job().modeOnDataproc())
        .isEqualTo(JobSettings.JobMode.PER_BATCH);
  }

  @Test
  void aDeploymentWithoutAProjectIsAConfigurationError() throws Exception {
    TableProfile profile = profile(BASE);
    Deployment deployment = deployment("job { dataproc-region = europe-west1, jar-uri = \"gs://b/job-all.jar\" }");

    assertThatThrownBy(() -> new DataprocLauncherProvider(Map.of()).open(profile, deployment))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("job.dataproc-region: the Dataproc launcher needs a Google Cloud"
            + " project: set GOOGLE_CLOUD_PROJECT or ledger.firestore-project");
  }

  private Deployment deployment(String hocon) throws Exception {
    return DeploymentLoader.parse(hocon, home.resolve("deployment.conf"), new Home(home));
  }

  private TableProfile profile(String hocon) throws Exception {
    return ProfileLoader.parse(hocon, home.resolve("clicks.conf"), new Home(home));
  }
}
