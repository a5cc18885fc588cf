package io.files2iceberg.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link between README.md, BENCHMARKS.md and the pages of docs/ leads somewhere: the
 * file exists, and a {@code #anchor} is the slug of a heading of the page it names, as GitHub makes
 * it. The site's navigation (mkdocs.yml) names only pages that exist.
 */
class DocumentationLinksTest {

  private static final Pattern FENCE = Pattern.compile("(?ms)^\\s*```.*?^\\s*```\\s*$");
  // Possessive: a page with a long '[' never closed is scanned without backtracking (the plain
  // alternation recursed once per character, and overflowed the stack on a few thousand).
  private static final Pattern LINK =
      Pattern.compile("!?\\[((?:[^\\[\\]]++|\\[[^\\]]*+\\])*+)\\]\\(([^)\\s]+)\\)");
  private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6} +(.+?) *#*$");
  private static final Pattern NAV_PAGE = Pattern.compile("(?m)^\\s*-\\s*(?:[^:\\n]+:\\s*)?([\\w./-]+\\.md)\\s*$");

  @Test
  void aLinkIsFoundBesideABracketNeverClosed() {
    String page = "[x](a.md#b) and [[n]](d.md), then [" + "y".repeat(100_000);

    Matcher link = LINK.matcher(page);
    List<String> targets = new ArrayList<>();
    while (link.find()) {
      targets.add(link.group(2));
    }

    assertThat(targets).containsExactly("a.md#b", "d.md");
  }

  @Test
  void everyRelativeLinkAndAnchorResolves() {
    List<Path> pages = pages();
    assertThat(pages).hasSizeGreaterThan(10);
    List<String> broken = new ArrayList<>();
    Map<Path, Set<String>> anchors = new HashMap<>();
    int checked = 0;
    for (Path page : pages) {
      Matcher link = LINK.matcher(withoutCode(Repository.read(page)));
      while (link.find()) {
        String target = link.group(2);
        if (target.matches("^[a-z][a-z0-9+.-]*:.*")) {
          continue; // https:, mailto:: not ours to check
        }
        checked++;
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
        String where = Repository.ROOT.relativize(page) + ": (" + target + ")";
        if (!Files.exists(resolved)) {
          broken.add(where + " names a file that does not exist");
        } else if (hash >= 0) {
          String anchor = target.substring(hash + 1);
          Set<String> slugs = anchors.computeIfAbsent(resolved, DocumentationLinksTest::slugs);
          if (!slugs.contains(anchor)) {
            broken.add(where + " names no heading of " + Repository.ROOT.relativize(resolved));
          }
        }
      }
    }
    assertThat(checked).isGreaterThan(100);
    assertThat(broken).as("broken links").isEmpty();
  }

  @Test
  void slugsAreGitHubs() {
    assertThat(slug("`bin/files2iceberg validate`")).isEqualTo("binfiles2iceberg-validate");
    assertThat(slug("Dataproc, warm")).isEqualTo("dataproc-warm");
    assertThat(slug("Transactions and the 500-write limit")).isEqualTo("transactions-and-the-500-write-limit");
    assertThat(slug("Authentication (OIDC)")).isEqualTo("authentication-oidc");
  }

  @Test
  void theSiteNavigationNamesPagesThatExist() {
    List<String> nav = navPages();

    assertThat(nav).contains("index.md", "getting-started.md", "recipes.md", "operate.md", "limitations.md",
        "reference/profile-keys.md", "reference/cli.md", "reference/exit-codes.md");
    assertThat(nav).contains("repo/README.md", "repo/BENCHMARKS.md");
    for (String page : nav) {
      // repo/ is what .ci/mkdocs_hooks.py publishes from the repository's root.
      Path file = page.startsWith("repo/") ? Repository.ROOT.resolve(page.substring("repo/".length()))
          : Repository.DOCS.resolve(page);
      assertThat(file).as("mkdocs.yml nav: %s", page).isRegularFile();
    }
  }

  /** The pages of mkdocs.yml's nav, in order, relative to docs/. */
  static List<String> navPages() {
    String config = Repository.read(Repository.ROOT.resolve("mkdocs.yml"));
    int nav = config.indexOf("\nnav:");
    assertThat(nav).as("mkdocs.yml has a nav").isNotNegative();
    return NAV_PAGE.matcher(config.substring(nav)).results().map(m -> m.group(1)).toList();
  }

  private static List<Path> pages() {
    List<Path> pages = new ArrayList<>(List.of(Repository.README, Repository.ROOT.resolve("BENCHMARKS.md")));
    try (Stream<Path> docs = Files.walk(Repository.DOCS)) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return pages;
  }

  private static String withoutCode(String markdown) {
    return FENCE.matcher(markdown).replaceAll("");
  }

  /** Every heading's anchor; a repeated heading gets -1, -2, ... as on GitHub. */
  private static Set<String> slugs(Path page) {
    Set<String> slugs = new LinkedHashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    Matcher heading = HEADING.matcher(withoutCode(Repository.read(page)));
    while (heading.find()) {
      String slug = slug(heading.group(1));
      int n = seen.merge(slug, 1, Integer::sum) - 1;
      slugs.add(n == 0 ? slug : slug + "-" + n);
    }
    return slugs;
  }

  /** GitHub's anchor of a heading: lower case, punctuation dropped, each space a hyphen. */
  static String slug(String heading) {
    String text = LINK.matcher(heading).replaceAll("$1");
    return text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
  }
}
