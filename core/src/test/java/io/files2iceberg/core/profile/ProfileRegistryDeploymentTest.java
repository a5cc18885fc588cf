package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ProfileFixtures.registryErrors;
import static io.files2iceberg.core.profile.ProfileFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The deployment file beside the profiles (or named apart), and profiles of old that carry its sections. */
class ProfileRegistryDeploymentTest {

  private static final String CLICKS =
      "extract.path = \"gs://bucket/raw/clicks/*.parquet\"\nload.iceberg.table = \"p.raw.clicks\"\n";
  private static final String VIEWS =
      "extract.path = \"gs://bucket/raw/views/*.parquet\"\nload.iceberg.table = \"p.raw.views\"\n";
  private static final String DEPLOYMENT =
      """
      ledger { type = test-sqlite, properties.file = "/data/test.db" }
      listener.port = 9090
      job { lease-timeout = 5m, max-attempts = 7 }
      """;

  @TempDir Path dir;

  private Home home() {
    return new Home(dir.resolve("home"));
  }

  @Test
  void aFolderWithADeploymentFileAndTableOnlyProfilesLoadsBoth() throws Exception {
    write(dir, "clicks.conf", CLICKS);
    write(dir, "views.yaml", VIEWS.replace(" = ", ": "));
    Path file = write(dir, "deployment.conf", DEPLOYMENT);

    ProfileRegistry registry = ProfileRegistry.load(dir, home());

    assertThat(registry.profiles()).extracting(TableProfile::name).containsExactly("clicks", "views");
    assertThat(registry.deployment()).isEqualTo(DeploymentLoader.load(file, home()));
    assertThat(registry.deployment().ledger().type()).isEqualTo("test-sqlite");
    assertThat(registry.deployment().listener().port()).isEqualTo(9090);
    assertThat(registry.deployment().job().leaseTimeout()).isEqualTo(Duration.ofMinutes(5));
    assertThat(registry.deploymentFile()).contains(file.toAbsolutePath().normalize());
    assertThat(registry.deploymentHint()).isEmpty();
  }

  @Test
  void aSingleProfileFileFindsTheYamlDeploymentFileInItsFolder() throws Exception {
    Path clicks = write(dir, "clicks.conf", CLICKS);
    write(dir, "deployment.yml", "listener:\n  port: 9191\n");

    assertThat(ProfileRegistry.load(clicks, home()).deployment().listener().port()).isEqualTo(9191);
  }

  @Test
  void theDeploymentOptionNamesAFileElsewhere() throws Exception {
    write(dir.resolve("profiles"), "clicks.conf", CLICKS);
    write(dir.resolve("profiles"), "deployment.conf", "listener.port = 7070\n");
    Path elsewhere = write(dir.resolve("ops"), "prod.conf", DEPLOYMENT);

    ProfileRegistry registry = ProfileRegistry.load(dir.resolve("profiles"), Optional.of(elsewhere), home());

    assertThat(registry.deployment().listener().port()).isEqualTo(9090);
    assertThat(registry.deploymentFile()).contains(elsewhere.toAbsolutePath().normalize());
  }

  @Test
  void withoutADeploymentFileTheDeploymentIsTheEmbeddedOne() throws Exception {
    write(dir, "clicks.conf", CLICKS);

    ProfileRegistry registry = ProfileRegistry.load(dir, home());

    assertThat(registry.deployment()).isEqualTo(DeploymentLoader.defaults(home()));
    assertThat(registry.deploymentFile()).isEmpty();
  }

  @Test
  void aMissingDeploymentFileOrTwoBesideTheProfilesAreRejected() {
    write(dir, "clicks.conf", CLICKS);
    Path missing = dir.resolve("nope.conf");
    ProfileException named = catchThrowableOfType(
        ProfileException.class, () -> ProfileRegistry.load(dir, Optional.of(missing), home()));
    assertThat(named.errors()).extracting(ProfileError::toString)
        .containsExactly(missing + ": no such deployment file");

    write(dir, "deployment.conf", "");
    Path second = write(dir, "deployment.yaml", "");
    assertThat(registryErrors(dir, home()))
        .containsExactly(second + ": is a second deployment file beside deployment.conf; a deployment has one");
  }

  @Test
  void profilesOfOldGiveTheDeploymentWithOneWarningNamingTheFilesAndTheFileToWrite() throws Exception {
    write(dir, "clicks.conf", CLICKS + DEPLOYMENT);
    write(dir, "views.conf", VIEWS + DEPLOYMENT);
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    PrintStream err = System.err;
    ProfileRegistry registry;
    System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
    try {
      registry = ProfileRegistry.load(dir, home());
    } finally {
      System.setErr(err);
    }

    Deployment expected = DeploymentLoader.parse(DEPLOYMENT, dir.resolve("deployment.conf"), home());
    assertThat(registry.deployment()).isEqualTo(expected);
    assertThat(registry.profiles()).extracting(TableProfile::name).containsExactly("clicks", "views");
    String warnings = log.toString(StandardCharsets.UTF_8);
    assertThat(warnings.lines().filter(line -> line.contains("carry deployment settings"))).singleElement()
        .asString()
        .contains("clicks.conf, views.conf", dir.resolve("deployment.conf").toString(), "validate");
    ProfileRegistry.DeploymentHint hint = registry.deploymentHint().orElseThrow();
    assertThat(hint.file()).isEqualTo(dir.resolve("deployment.conf"));
    assertThat(hint.profiles()).extracting(p -> p.getFileName().toString()).containsExactly("clicks.conf", "views.conf");
    // The file to write holds the same settings as the sections it replaces.
    assertThat(DeploymentLoader.parse(hint.text(), hint.file(), home())).isEqualTo(expected);
    Path written = write(dir.resolve("migrated"), "deployment.conf", hint.text());
    write(dir.resolve("migrated"), "clicks.conf", CLICKS);
    write(dir.resolve("migrated"), "views.conf", VIEWS);
    ProfileRegistry migrated = ProfileRegistry.load(dir.resolve("migrated"), home());
    assertThat(migrated.deployment()).isEqualTo(expected);
    assertThat(migrated.deploymentFile()).contains(written.toAbsolutePath().normalize());
    assertThat(migrated.deploymentHint()).isEmpty();
  }

  @Test
  void aProfileSectionThatDisagreesWithTheDeploymentFileIsRejectedNamingBothFilesAndTheKey() {
    Path file = write(dir, "deployment.conf", DEPLOYMENT);
    Path clicks = write(dir, "clicks.conf", CLICKS + "listener.port = 8081\njob.max-attempts = 7\n");

    assertThat(registryErrors(dir, home()))
        .containsExactly(
            clicks.toAbsolutePath()
                + ": listener.port: is 8081 here but 9090 in the deployment file " + file
                + "; the deployment file decides: remove the listener section from this profile");
  }

  @Test
  void aProfileSectionThatAgreesWithTheDeploymentFileLoadsWithTheHint() throws Exception {
    write(dir, "deployment.conf", DEPLOYMENT);
    write(dir, "clicks.conf", CLICKS + "listener.port = 9090\n");

    ProfileRegistry registry = ProfileRegistry.load(dir, home());

    assertThat(registry.deployment().listener().port()).isEqualTo(9090);
    assertThat(registry.deploymentHint()).hasValueSatisfying(hint ->
        assertThat(hint.file()).isEqualTo(dir.resolve("deployment.conf")));
  }

  @Test
  void problemsOfAProfileSectionOfOldAreReportedWithTheirKey() {
    Path clicks = write(dir, "clicks.conf", CLICKS + "ledger.type = cassandra\nlistener.port = 0\n");

    assertThat(registryErrors(dir, home()))
        .contains(
            clicks.toAbsolutePath() + ": listener.port: must be at least 1, got 0")
        .anySatisfy(error -> assertThat(error).startsWith(clicks.toAbsolutePath()
            + ": ledger.type: no ledger provider of type \"cassandra\" on the classpath; found: sqlite, test-sqlite"));
  }
}
