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

/** The README's "Table profiles" section and {@link ProfileKeys} describe the same keys. */
class ReadmeDocumentsEveryKeyTest {

  private static final Path README = Path.of("../README.md");
  private static final String START = "<!-- profile-keys:start -->";
  private static final String END = "<!-- profile-keys:end -->";
  private static final Pattern KEY_ROW = Pattern.compile("^\\| `([^`]+)` \\|", Pattern.MULTILINE);
  private static final Pattern YAML_BLOCK = Pattern.compile("```yaml\\n(.*?)```", Pattern.DOTALL);

  private static String section;

  @TempDir Path dir;

  @BeforeAll
  static void readSection() throws IOException {
    String readme = Files.readString(README);
    assertThat(readme).contains(START, END);
    section = readme.substring(readme.indexOf(START), readme.indexOf(END));
  }

  @Test
  void keyTableListsExactlyTheKeysTheLoaderKnows() {
    List<String> documented = KEY_ROW.matcher(section).results().map(m -> m.group(1)).toList();

    assertThat(documented).doesNotHaveDuplicates();
    assertThat(documented).containsExactlyInAnyOrderElementsOf(ProfileKeys.all());
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
