package io.files2iceberg.core.profile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every ```hocon block of docs/recipes.md is a whole profile that loads, the CSV recipe is the
 * example profile examples/csv/orders.conf, and the profiles of the README and docs/quality.md load: the recipes stay true
 * to the loader.
 */
class RecipesPageTest {

  private static final Path PAGE = Path.of("../docs/recipes.md");
  private static final Pattern HOCON_BLOCK =
      Pattern.compile("^( *)```hocon\\n(.*?)^\\1```$", Pattern.DOTALL | Pattern.MULTILINE);

  @TempDir Path dir;

  static List<String> blocks() throws IOException {
    return HOCON_BLOCK.matcher(Files.readString(PAGE)).results()
        .map(m -> m.group(2).replaceAll("(?m)^" + m.group(1), ""))
        .toList();
  }

  @Test
  void everyRecipeIsAProfileThatLoads() throws IOException {
    List<String> blocks = blocks();
    assertThat(blocks).as("```hocon blocks in %s", PAGE).hasSizeGreaterThanOrEqualTo(9);

    Home home = new Home(dir.resolve("home"));
    for (int i = 0; i < blocks.size(); i++) {
      Path profile = ProfileFixtures.write(dir, "recipe" + i + ".conf", blocks.get(i));
      String block = blocks.get(i);
      assertThatCode(() -> ProfileLoader.load(profile, home))
          .as("recipe block %d of %s:%n%s", i + 1, PAGE, block)
          .doesNotThrowAnyException();
    }
  }

  @Test
  void theReadmeProfileLoads() throws IOException {
    List<String> readme = HOCON_BLOCK.matcher(Files.readString(Path.of("../README.md"))).results()
        .map(m -> m.group(2)).toList();
    assertThat(readme).hasSize(1);

    Path profile = ProfileFixtures.write(dir, "orders.conf", readme.get(0));
    assertThatCode(() -> ProfileLoader.load(profile, new Home(dir.resolve("home")))).doesNotThrowAnyException();
  }

  @Test
  void theQualityPagesProfileLoadsWithEveryKindOfExpectation() throws Exception {
    List<String> blocks = HOCON_BLOCK.matcher(Files.readString(Path.of("../docs/quality.md"))).results()
        .map(m -> m.group(2)).toList();
    assertThat(blocks).hasSize(1);

    TableProfile profile = ProfileLoader.load(ProfileFixtures.write(dir, "orders.conf", blocks.get(0)),
        new Home(dir.resolve("home")));
    assertThat(profile.quality().expectations()).extracting(Expectation::kind).containsExactly(
        Expectation.Kind.CHECK, Expectation.Kind.CHECK, Expectation.Kind.MIN_ROWS, Expectation.Kind.MAX_NULL_FRACTION);
  }

  @Test
  void theCsvRecipeIsTheExampleProfile() throws IOException {
    assertThat(blocks().get(0)).isEqualTo(Files.readString(Path.of("../examples/csv/orders.conf")));
  }
}
