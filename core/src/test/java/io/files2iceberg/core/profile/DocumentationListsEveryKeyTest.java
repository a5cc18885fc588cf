package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ProfileFixtures.withSource;
import static io.files2iceberg.core.profile.ProfileFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documentation's key tables and {@link ProfileKeys} describe the same keys (the generated
 * docs/reference/profile-keys.md), and docs/deployment-file.md and {@link DeploymentKeys} do; the
 * YAML example of docs/profiles.md is the example profile.
 */
class DocumentationListsEveryKeyTest {

  private static final Path PROFILE_KEYS = Path.of("../docs/reference/profile-keys.md");
  private static final Path PROFILES = Path.of("../docs/profiles.md");
  private static final Path DEPLOYMENT_FILE = Path.of("../docs/deployment-file.md");
  private static final String START = "<!-- profile-keys:start -->";
  private static final String END = "<!-- profile-keys:end -->";
  private static final String DEPLOYMENT_START = "<!-- deployment-keys:start -->";
  private static final String DEPLOYMENT_END = "<!-- deployment-keys:end -->";
  private static final Pattern KEY_ROW = Pattern.compile("^\\| `([^`]+)` \\|", Pattern.MULTILINE);
  private static final Pattern YAML_BLOCK = Pattern.compile("```yaml\\n(.*?)```", Pattern.DOTALL);

  private static String section;
  private static String deploymentSection;
  private static String profilesPage;

  @TempDir Path dir;

  @BeforeAll
  static void readSection() throws IOException {
    String keys = Files.readString(PROFILE_KEYS);
    assertThat(keys).contains(START, END);
    section = keys.substring(keys.indexOf(START), keys.indexOf(END));
    String deployment = Files.readString(DEPLOYMENT_FILE);
    assertThat(deployment).contains(DEPLOYMENT_START, DEPLOYMENT_END);
    deploymentSection = deployment.substring(deployment.indexOf(DEPLOYMENT_START), deployment.indexOf(DEPLOYMENT_END));
    profilesPage = Files.readString(PROFILES);
  }

  @Test
  void keyTableListsExactlyTheKeysTheLoaderKnows() {
    List<String> documented = KEY_ROW.matcher(section).results().map(m -> m.group(1)).toList();

    assertThat(documented).doesNotHaveDuplicates();
    assertThat(documented).containsExactlyInAnyOrderElementsOf(ProfileKeys.all());
  }

  @Test
  void deploymentKeyTableListsExactlyTheKeysTheDeploymentLoaderKnows() {
    List<String> documented = KEY_ROW.matcher(deploymentSection).results().map(m -> m.group(1)).toList();

    assertThat(documented).doesNotHaveDuplicates();
    assertThat(documented).containsExactlyInAnyOrderElementsOf(DeploymentKeys.all());
  }

  @Test
  void deploymentExampleLoads() throws Exception {
    Matcher example = Pattern.compile("```\\n# deployment.conf\\n(.*?)```", Pattern.DOTALL).matcher(deploymentSection);
    assertThat(example.find()).as("a # deployment.conf block in the section").isTrue();

    // Its ledger is Firestore, whose provider core has not: the file is read as a tree of known keys.
    Problems problems = new Problems(dir.resolve("deployment.conf"));
    ProfileValues values = ProfileTree.read(write(dir, "deployment.conf", example.group(1)), problems)
        .map(tree -> new ProfileValues(tree, problems, DeploymentKeys.paths()))
        .orElseThrow();
    values.rejectUnknownKeys();
    assertThat(problems.errors()).isEmpty();
  }

  @Test
  void yamlExampleIsTheHoconExample() throws Exception {
    Matcher yaml = YAML_BLOCK.matcher(profilesPage);
    assertThat(yaml.find()).as("a ```yaml block in %s", PROFILES).isTrue();
    Home home = new Home(dir.resolve("home"));
    TableProfile hocon = ProfileLoader.load(Path.of("../examples/profiles/clickstream.conf"), home);

    TableProfile fromDocs =
        ProfileLoader.load(write(dir, "clickstream.yaml", yaml.group(1)), home);

    assertThat(withSource(fromDocs, hocon.source())).isEqualTo(hocon);
  }
}
