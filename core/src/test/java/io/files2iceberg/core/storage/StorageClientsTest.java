package io.files2iceberg.core.storage;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.NoCredentials;
import com.google.cloud.storage.StorageOptions;
import io.files2iceberg.core.profile.StorageSettings;
import io.files2iceberg.core.profile.StorageSettings.Credentials;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StorageClientsTest {

  @Test
  void theDeploymentsEndpointWinsOverTheEmulatorVariable() {
    StorageOptions options = StorageClients.options(
        new StorageSettings(Optional.of("http://127.0.0.1:9023"), Credentials.NONE),
        Map.of(StorageClients.EMULATOR_HOST, "localhost:4443"));

    assertThat(options.getHost()).isEqualTo("http://127.0.0.1:9023");
    assertThat(options.getCredentials()).isSameAs(NoCredentials.getInstance());
  }

  @Test
  void theEmulatorVariableAloneMeansThatHostWithoutCredentials() {
    StorageOptions options = StorageClients.options(StorageSettings.GOOGLE,
        Map.of(StorageClients.EMULATOR_HOST, "localhost:4443", "GOOGLE_CLOUD_PROJECT", "lake-dev"));

    assertThat(options.getHost()).isEqualTo("http://localhost:4443");
    assertThat(options.getCredentials()).isSameAs(NoCredentials.getInstance());
    assertThat(options.getProjectId()).isEqualTo("lake-dev");
  }

  @Test
  void anEndpointWithApplicationDefaultCredentialsKeepsThem() {
    StorageOptions options = StorageClients.options(
        new StorageSettings(Optional.of("https://storage-lake.p.googleapis.com"), Credentials.APPLICATION_DEFAULT),
        Map.of());

    assertThat(options.getHost()).isEqualTo("https://storage-lake.p.googleapis.com");
    assertThat(options.getCredentials()).isNotSameAs(NoCredentials.getInstance());
  }

  @Test
  void withNothingSetTheClientIsGooglesDefault() {
    assertThat(StorageClients.options(StorageSettings.GOOGLE, Map.of()).getHost())
        .isEqualTo("https://storage.googleapis.com/");
  }

  @Test
  void oneClientPerSettingsInAProcess() {
    StorageSettings local = new StorageSettings(Optional.of("http://127.0.0.1:9"), Credentials.NONE);

    assertThat(StorageClients.shared(local)).isSameAs(StorageClients.shared(
        new StorageSettings(Optional.of("http://127.0.0.1:9"), Credentials.NONE)));
    assertThat(StorageClients.shared(local)).isNotSameAs(StorageClients.shared(
        new StorageSettings(Optional.of("http://127.0.0.1:10"), Credentials.NONE)));
  }

  @Test
  void theJobsJavaClientFollowsItsConnectorsSettings() {
    StorageSettings settings = new StorageSettings(Optional.of("http://127.0.0.1:9023"), Credentials.NONE);
    Map<String, String> spark = settings.connectorSparkProperties();

    assertThat(spark).containsExactly(
        Map.entry("spark.hadoop.fs.gs.storage.root.url", "http://127.0.0.1:9023/"),
        Map.entry("spark.hadoop.fs.gs.auth.type", "UNAUTHENTICATED"));
    assertThat(StorageSettings.ofConnector(key -> spark.get("spark.hadoop." + key))).isEqualTo(settings);
    assertThat(StorageSettings.ofConnector(key -> null)).isEqualTo(StorageSettings.GOOGLE);
    assertThat(settings.fileIoProperties())
        .containsExactly(Map.entry("gcs.service.host", "http://127.0.0.1:9023"), Map.entry("gcs.no-auth", "true"));
  }
}
