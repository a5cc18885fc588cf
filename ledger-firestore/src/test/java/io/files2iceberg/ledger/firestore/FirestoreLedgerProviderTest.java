package io.files2iceberg.ledger.firestore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.files2iceberg.core.ledger.Ledgers;
import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.DeploymentLoader;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.LedgerSettings;
import io.files2iceberg.core.profile.ProfileError;
import io.files2iceberg.core.profile.ProfileException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ledger.type = firestore} in a deployment file: found by its name, its keys checked by its provider. */
class FirestoreLedgerProviderTest {

  @TempDir Path dir;

  @Test
  void aFirestoreDeploymentFileLoadsWithItsProviderOnTheClasspath() throws Exception {
    Path file = Files.writeString(dir.resolve("deployment.conf"), """
        ledger { type = firestore, firestore-project = lake-prod, firestore-database = ledger-db,
                 collection-prefix = "prod_", deadline = 3s }
        """);

    Deployment deployment = DeploymentLoader.load(file, new Home(dir.resolve("home")));

    assertThat(deployment.ledger()).isEqualTo(new LedgerSettings("firestore",
        dir.resolve("home").toAbsolutePath().resolve("ledger.db").toString(), Optional.of("lake-prod"), "ledger-db",
        "prod_", Duration.ofSeconds(3), Map.of()));
    assertThat(Ledgers.types()).contains("firestore", "sqlite");
  }

  @Test
  void theShippedExampleDeploymentFileLoads() throws Exception {
    Deployment example =
        DeploymentLoader.load(Path.of("../examples/profiles/deployment.conf"), new Home(dir.resolve("home")));

    assertThat(example.ledger().type()).isEqualTo("firestore");
    assertThat(example.ledger().firestoreProject()).contains("my-project");
    assertThat(example.job().dataprocRegion()).contains("europe-west1");
  }

  @Test
  void firestoreWithoutAProjectIsRejectedByItsProviderNamingTheKey() throws Exception {
    Path file = Files.writeString(dir.resolve("deployment.conf"), "ledger.type = FireStore\n");

    ProfileException failure = catchThrowableOfType(
        ProfileException.class, () -> DeploymentLoader.load(file, new Home(dir.resolve("home"))));

    assertThat(failure.errors()).extracting(ProfileError::toString)
        .containsExactly(file + ": ledger.firestore-project: is required when ledger.type = firestore");
  }
}
