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
 * The README's "Table profiles" section and {@link ProfileKeys} describe the same keys, and its
 * "Deployment file" section and {@link DeploymentKeys} do.
 */
class ReadmeDocumentsEveryKeyTest {

  private static final Path README = Path.of("../README.md");
  private static final String START = "<!-- profile-keys:start -->";
  private static final String END = "<!-- profile-keys:end -->";
  private static final String DEPLOYMENT_START = "<!-- deployment-keys:start -->";
  private static final String DEPLOYMENT_END = "<!-- deployment-keys:end -->";
  private static final Pattern KEY_ROW = Pattern.compile("^\\| `([^`]+)` \\|", Pattern.MULTILINE);
  private static final Pattern YAML_BLOCK = Pattern.compile("```yaml\\n(.*?)```", Pattern.DOTALL);

  private static String section;
  private static String deploymentSection;

  @TempDir Path dir;

  @BeforeAll
  static void readSection() throws IOException {
    String readme = Files.readString(README);
    assertThat(readme).contains(START, END);
    section = readme.substring(readme.indexOf(START), readme.indexOf(END));
    assertThat(readme).contains(DEPLOYMENT_START, DEPLOYMENT_END);
    deploymentSection = readme.substring(readme.indexOf(DEPLOYMENT_START), readme.indexOf(DEPLOYMENT_END));
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
    Matcher yaml = YAML_BLOCK.matcher(section);
    assertThat(yaml.find()).as("a ```yaml block in the section").isTrue();
    Home home = new Home(dir.resolve("home"));
    TableProfile hocon = ProfileLoader.load(Path.of("../examples/profiles/clickstream.conf"), home);

    TableProfile fromReadme =
        ProfileLoader.load(write(dir, "clickstream.yaml", yaml.group(1)), home);

    assertThat(withSource(fromReadme, hocon.source())).isEqualTo(hocon);
  }
}
