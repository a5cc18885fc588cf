package io.files2iceberg.core.match;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.FileSystems;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class GlobTest {

  @Test
  void starMatchesWithinOneFolderOnly() {
    Glob glob = Glob.parse("gs://landing/raw/clicks/*.csv");

    assertThat(glob.matches("raw/clicks/a.csv")).isTrue();
    assertThat(glob.matches("raw/clicks/.csv")).isTrue();
    assertThat(glob.matches("raw/clicks/eu/a.csv")).isFalse();
    assertThat(glob.matches("raw/clicks/a.csv.gz")).isFalse();
  }

  @Test
  void questionMarkMatchesOneCharacterButNotASlash() {
    Glob glob = Glob.parse("gs://landing/raw/part-?.csv");

    assertThat(glob.matches("raw/part-1.csv")).isTrue();
    assertThat(glob.matches("raw/part-12.csv")).isFalse();
    assertThat(glob.matches("raw/part-.csv")).isFalse();
    assertThat(glob.matches("raw/part-/.csv")).isFalse();
  }

  @Test
  void bracesMatchOneOfTheirAlternatives() {
    Glob glob = Glob.parse("gs://landing/raw/{clicks,views}/a.csv");

    assertThat(glob.matches("raw/clicks/a.csv")).isTrue();
    assertThat(glob.matches("raw/views/a.csv")).isTrue();
    assertThat(glob.matches("raw/orders/a.csv")).isFalse();
    assertThat(glob.matches("raw/{clicks,views}/a.csv")).isFalse();
  }

  @Test
  void braceAlternativesMayHoldWildcards() {
    Glob glob = Glob.parse("gs://landing/raw/{part-*.parquet,extra-?.csv}");

    assertThat(glob.matches("raw/part-0001.parquet")).isTrue();
    assertThat(glob.matches("raw/extra-1.csv")).isTrue();
    assertThat(glob.matches("raw/extra-12.csv")).isFalse();
    assertThat(glob.matches("raw/part-x/y.parquet")).isFalse();
  }

  @Test
  void emptyBraceAlternativeMatchesNothingThere() {
    Glob glob = Glob.parse("gs://landing/raw/a{,.gz}");

    assertThat(glob.matches("raw/a")).isTrue();
    assertThat(glob.matches("raw/a.gz")).isTrue();
    assertThat(glob.matches("raw/a.zip")).isFalse();
  }

  @Test
  void nestedBracesAreRejectedWithTheGlobInTheMessage() {
    assertThatThrownBy(() -> Glob.parse("gs://landing/raw/{a,{b,c}}/x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "glob \"gs://landing/raw/{a,{b,c}}/x\": nested braces are not supported"
                + " (at \"{b,c}}/x\")");
  }

  @Test
  void unclosedBraceIsRejected() {
    assertThatThrownBy(() -> Glob.parse("gs://landing/raw/{a,b/x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("glob \"gs://landing/raw/{a,b/x\": unclosed '{' at \"{a,b/x\"");
  }

  @Test
  void doubleStarCrossesFolders() {
    Glob glob = Glob.parse("gs://landing/raw/**/x.parquet");

    assertThat(glob.matches("raw/a/x.parquet")).isTrue();
    assertThat(glob.matches("raw/a/b/c/x.parquet")).isTrue();
    assertThat(glob.matches("other/a/x.parquet")).isFalse();
  }

  @Test
  void doubleStarSlashAlsoMatchesZeroFolders() {
    Glob glob = Glob.parse("gs://landing/raw/**/x.parquet");

    assertThat(glob.matches("raw/x.parquet")).isTrue();
    assertThat(glob.matches("rawx.parquet")).isFalse();
  }

  @Test
  void leadingDoubleStarSlashMatchesAtTheRootToo() {
    Glob glob = Glob.parse("gs://landing/**/x.parquet");

    assertThat(glob.matches("x.parquet")).isTrue();
    assertThat(glob.matches("a/b/x.parquet")).isTrue();
    assertThat(glob.matches("a/bx.parquet")).isFalse();
  }

  @Test
  void doubleStarInsideASegmentNeedsNoSlash() {
    Glob glob = Glob.parse("gs://landing/raw/**.parquet");

    assertThat(glob.matches("raw/a.parquet")).isTrue();
    assertThat(glob.matches("raw/a/b.parquet")).isTrue();
    assertThat(glob.matches("raw/a.csv")).isFalse();
  }

  @Test
  void doubleStarAfterTextInASegmentDoesNotMatchZeroFolders() {
    Glob glob = Glob.parse("gs://landing/raw/a**/x");

    assertThat(glob.matches("raw/ab/c/x")).isTrue();
    assertThat(glob.matches("raw/a/x")).isTrue();
    assertThat(glob.matches("raw/ax")).isFalse();
  }

  @Test
  void dotsAndRegexMetacharactersAreLiteral() {
    // '[' and '\\' have meanings of their own now: escaped, they are literal as before.
    Glob glob = Glob.parse("gs://landing/raw/a+b(1)\\[x]$^|\\\\.d.csv");

    assertThat(glob.matches("raw/a+b(1)[x]$^|\\.d.csv")).isTrue();
    assertThat(glob.matches("raw/aab(1)[x]$^|\\.d.csv")).isFalse();
    assertThat(glob.matches("raw/a+b(1)[x]$^|\\.dXcsv")).isFalse();
    assertThat(glob.matches("raw/a+b(1)x$^|\\.d.csv")).isFalse();
  }

  @Test
  void characterClassMatchesOneCharacterOfItsMembersAndRanges() {
    Glob glob = Glob.parse("gs://landing/raw/part-[1-2x].csv");

    assertThat(glob.matches("raw/part-1.csv")).isTrue();
    assertThat(glob.matches("raw/part-2.csv")).isTrue();
    assertThat(glob.matches("raw/part-x.csv")).isTrue();
    assertThat(glob.matches("raw/part-3.csv")).isFalse();
    assertThat(glob.matches("raw/part-[1-2x].csv")).isFalse();
    assertThat(glob.matches("raw/part-12.csv")).isFalse();
  }

  @Test
  void negatedClassMatchesOneCharacterOutsideItButNeverASlash() {
    Glob glob = Glob.parse("gs://landing/raw/a[!0-9]b");

    assertThat(glob.matches("raw/axb")).isTrue();
    assertThat(glob.matches("raw/a-b")).isTrue();
    assertThat(glob.matches("raw/a1b")).isFalse();
    assertThat(glob.matches("raw/a/b")).isFalse();
    assertThat(glob.matches("raw/ab")).isFalse();
  }

  @Test
  void classMembersMayBeEscapedAndADashFirstOrLastIsLiteral() {
    Glob glob = Glob.parse("gs://landing/[\\]\\-!]x[-a][b-].csv");

    assertThat(glob.matches("]x-b.csv")).isTrue();
    assertThat(glob.matches("-xa-.csv")).isTrue();
    assertThat(glob.matches("!x-b.csv")).isTrue();
    assertThat(glob.matches("\\x-b.csv")).isFalse();
    assertThat(glob.matches("]xcb.csv")).isFalse();
  }

  @Test
  void backslashMakesTheNextCharacterLiteral() {
    Glob glob = Glob.parse("gs://landing/raw/\\[1\\]-\\*-\\?-\\{a,b\\}-\\\\.csv");

    assertThat(glob.matches("raw/[1]-*-?-{a,b}-\\.csv")).isTrue();
    assertThat(glob.matches("raw/1-x-y-a-\\.csv")).isFalse();
    assertThat(glob.fixedPrefix()).isEqualTo("raw/[1]-*-?-{a,b}-\\.csv");
  }

  @Test
  void escapedCommaAndBraceInsideBracesAreLiteral() {
    Glob glob = Glob.parse("gs://landing/raw/{a\\,b,c\\}}.csv");

    assertThat(glob.matches("raw/a,b.csv")).isTrue();
    assertThat(glob.matches("raw/c}.csv")).isTrue();
    assertThat(glob.matches("raw/a.csv")).isFalse();
    assertThat(glob.matches("raw/b.csv")).isFalse();
  }

  @Test
  void bracesMayHoldClasses() {
    Glob glob = Glob.parse("gs://landing/raw/{part-[0-9].csv,extra-[!0-9,].json}");

    assertThat(glob.matches("raw/part-7.csv")).isTrue();
    assertThat(glob.matches("raw/extra-x.json")).isTrue();
    assertThat(glob.matches("raw/extra-,.json")).isFalse();
    assertThat(glob.matches("raw/part-x.csv")).isFalse();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {
      "gs://landing/raw/part-[1-2.csv|unclosed '[' at \"[1-2.csv\"; write \\[ for a literal '['",
      "gs://landing/raw/part-[!.csv|unclosed '[' at \"[!.csv\"",
      "gs://landing/raw/[]x.csv|the class \"[]\" is empty",
      "gs://landing/raw/[!]x.csv|the class \"[!]\" is empty",
      "gs://landing/raw/[z-a].csv|the range 'z-a' in \"[z-a\" is reversed",
      "gs://landing/raw[/]x.csv|the class at \"[/]x.csv\" names '/', which a class never matches",
      "gs://landing/raw[!.-0]x.csv|names '/'",
      "gs://landing/raw/x.csv\\|a trailing '\\' escapes nothing",
      "gs://landing/raw/{a,b.csv|unclosed '{' at \"{a,b.csv\"",
      "gs://landing/raw-[1-2]/{a,[b}.csv|unclosed '[' at \"[b}.csv\"",
      "gs://land[a]ing/raw/x.csv|the bucket \"land[a]ing\" must not contain wildcards"})
  void patternsTheMatcherCannotHonourAreRefusedNotTakenLiterally(String globAndMessage) {
    String glob = globAndMessage.substring(0, globAndMessage.indexOf('|'));
    String message = globAndMessage.substring(globAndMessage.indexOf('|') + 1);

    assertThatThrownBy(() -> Glob.parse(glob))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("glob \"" + glob + "\": ")
        .hasMessageContaining(message);
  }

  /**
   * Globs and names on which this matcher and the JDK's {@code glob:} matcher must agree: every
   * rule but {@code **}{@code /} matching zero folders, which only this one has, and {@code \\}
   * inside a class, which escapes a member here and is a member there.
   */
  @ParameterizedTest(name = "{0} ~ {1}")
  @CsvSource(delimiter = ' ', value = {
      "*.csv a.csv", "*.csv .csv", "*.csv a/b.csv", "*.csv a.csv.gz",
      "raw/*/x.csv raw/a/x.csv", "raw/*/x.csv raw/a/b/x.csv", "raw/*/x.csv raw/x.csv",
      "part-?.csv part-1.csv", "part-?.csv part-12.csv", "part-?.csv part-.csv",
      "raw/**.parquet raw/a/b/c.parquet", "raw/**.parquet raw/c.parquet", "raw/** raw/a/b",
      "part-[1-2].csv part-1.csv", "part-[1-2].csv part-2.csv", "part-[1-2].csv part-3.csv",
      "part-[1-2].csv part-[1-2].csv", "part-[12x].csv part-x.csv", "part-[12x].csv part-12.csv",
      "part-[!1-2].csv part-3.csv", "part-[!1-2].csv part-1.csv", "part-[!1-2].csv part-ab.csv",
      "a[!x]b a/b", "a?b a/b", "a*b a/b", "a[-x]b a-b", "a[x-]b a-b", "a[-x]b axb", "a[x-]b ayb",
      "dt=[0-9][0-9][0-9][0-9]-*/*.csv dt=2024-01/a.csv", "dt=[0-9][0-9][0-9][0-9]-*/*.csv dt=20x4-01/a.csv",
      "{a,b}.csv a.csv", "{a,b}.csv b.csv", "{a,b}.csv c.csv", "{a,b}.csv {a,b}.csv",
      "a{,.gz} a", "a{,.gz} a.gz", "{part-[0-9],x*}.csv part-7.csv", "{part-[0-9],x*}.csv xyz.csv",
      "{part-[0-9],x*}.csv part-x.csv", "raw/{clicks/*.csv,views/*.json} raw/views/a.json",
      "raw/{clicks/*.csv,views/*.json} raw/views/a.csv",
      "\\[x] [x]", "\\[x] x", "a\\*b a*b", "a\\*b axb", "a\\?b a?b", "a\\?b axb", "\\{a,b\\} {a,b}",
      "\\{a,b\\} a", "a\\\\b a\\b", "{a\\,b,c}.csv a,b.csv", "{a\\,b,c}.csv b.csv",
      "a+b(1)$^|.d.csv a+b(1)$^|.d.csv", "a+b(1)$^|.d.csv aab(1)$^|xd.csv",
      "a,b}.csv a,b}.csv", "x]y.csv x]y.csv", "[a-c][!a-c]*.txt bz.txt", "[a-c][!a-c]*.txt bb.txt",
      "**/x.parquet a/b/x.parquet", "**/x.parquet a/bx.parquet"})
  void agreesWithTheJdkGlobMatcherWhereTheirRulesAgree(String glob, String name) {
    boolean jdk = FileSystems.getDefault().getPathMatcher("glob:" + glob).matches(Path.of(name));

    assertThat(Glob.parse("gs://landing/" + glob).matches(name)).isEqualTo(jdk);
  }

  @Test
  void fixedPrefixStopsAtAClassAndResolvesEscapes() {
    assertThat(Glob.parse("gs://landing/raw/part-[1-2].csv").fixedPrefix()).isEqualTo("raw/part-");
    assertThat(Glob.parse("gs://landing/raw/a\\[1]/x-[0-9].csv").fixedPrefix()).isEqualTo("raw/a[1]/x-");
    assertThat(Glob.parse("gs://landing/[ab]/x.csv").fixedPrefix()).isEmpty();
  }

  @Test
  void matchesFolderFollowsClassesAndEscapes() {
    Glob glob = Glob.parse("gs://landing/raw/dt=[0-9][0-9]/\\[v1]/*.csv");

    assertThat(glob.matchesFolder("raw/dt=01/[v1]")).isTrue();
    assertThat(glob.matchesFolder("raw/dt=0x/[v1]")).isFalse();
    assertThat(glob.matchesFolder("raw/dt=01/v")).isFalse();
    assertThat(glob.matchesFolder("raw/dt=01")).isFalse();
  }

  @Test
  void matchesFolderFollowsBraceAlternativesThatHoldClasses() {
    Glob glob = Glob.parse("gs://landing/raw/{[ab]/*.csv,c[!x]/**/*.json}");

    assertThat(glob.matchesFolder("raw/a")).isTrue();
    assertThat(glob.matchesFolder("raw/c/")).isFalse();
    assertThat(glob.matchesFolder("raw/cy")).isTrue();
    assertThat(glob.matchesFolder("raw/cy/z/w")).isTrue();
    assertThat(glob.matchesFolder("raw/cx")).isFalse();
    assertThat(glob.matchesFolder("raw/c")).isFalse();
  }

  @Test
  void overlapsAndSharedFoldersSeeThroughClasses() {
    assertThat(Glob.parse("gs://b/raw/part-[1-2].csv").overlaps(Glob.parse("gs://b/raw/part-1.csv"))).isTrue();
    assertThat(Glob.parse("gs://b/raw/part-[!1-2].csv").overlaps(Glob.parse("gs://b/raw/part-?.csv"))).isTrue();
    assertThat(Glob.parse("gs://b/raw/part-[1-2].csv").overlaps(Glob.parse("gs://b/raw/part-3.csv"))).isFalse();
    assertThat(Glob.parse("gs://b/raw/[ab]/*.csv").sharesFolders(Glob.parse("gs://b/raw/a/*.json"))).isTrue();
  }

  @Test
  void canMatchBelowTellsWhetherSomeNameUnderAPrefixCanMatch() {
    Glob glob = Glob.parse("file:///data/landing/clicks/dt=*/*.csv");

    assertThat(glob.canMatchBelow("data/landing/")).isTrue();
    assertThat(glob.canMatchBelow("data/")).isTrue();
    assertThat(glob.canMatchBelow("data/landing/clicks/dt=1/")).isTrue();
    assertThat(glob.canMatchBelow("data/other/")).isFalse();
    assertThat(glob.canMatchBelow("data/landing/views/")).isFalse();
    assertThat(Glob.parse("file:///data/*/x.csv").canMatchBelow("data/landing/")).isTrue();
    assertThat(Glob.parse("file:///**/x.csv").canMatchBelow("data/landing/")).isTrue();
    assertThat(Glob.parse("file:///data/[!l]*/x.csv").canMatchBelow("data/landing/")).isFalse();
  }

  @Test
  void changedMeaningsNameABracketAndABackslashThatWereLiteralBefore() {
    assertThat(Glob.parse("gs://landing/raw/part-[1-2].csv").changedMeanings())
        .containsExactly("\"[1-2]\" is now a character class (one character of those listed), no longer"
            + " the literal text; write \\[1-2] for a literal '['");
    assertThat(Glob.parse("gs://landing/raw/a\\[1].csv").changedMeanings())
        .containsExactly("'\\' now escapes the character after it, no longer a literal backslash;"
            + " write \\\\ for one");
    assertThat(Glob.parse("gs://landing/raw/{a,b}/*.csv").changedMeanings()).isEmpty();
  }

  @Test
  void closingBraceAndCommaOutsideBracesAreLiteral() {
    Glob glob = Glob.parse("gs://landing/raw/a,b}.csv");

    assertThat(glob.matches("raw/a,b}.csv")).isTrue();
    assertThat(glob.matches("raw/a.csv")).isFalse();
  }

  @Test
  void fixedPrefixIsTheLiteralTextBeforeTheFirstWildcard() {
    assertThat(Glob.parse("gs://landing/raw/clicks/dt=*/*.parquet").fixedPrefix())
        .isEqualTo("raw/clicks/dt=");
    assertThat(Glob.parse("gs://landing/raw/{a,b}/x").fixedPrefix()).isEqualTo("raw/");
    assertThat(Glob.parse("gs://landing/raw/?.csv").fixedPrefix()).isEqualTo("raw/");
    assertThat(Glob.parse("gs://landing/raw/x.csv").fixedPrefix()).isEqualTo("raw/x.csv");
    assertThat(Glob.parse("gs://landing/**/x.csv").fixedPrefix()).isEmpty();
  }

  @Test
  void matchesFolderAcceptsTheFoldersOfMatchingObjects() {
    Glob glob = Glob.parse("gs://landing/raw/clicks/dt=*/*.parquet");

    assertThat(glob.matchesFolder("raw/clicks/dt=2024-01-01")).isTrue();
    assertThat(glob.matchesFolder("raw/clicks/dt=2024-01-01/")).isTrue();
    assertThat(glob.matchesFolder("raw/clicks")).isFalse();
    assertThat(glob.matchesFolder("raw/clicks/region=eu")).isFalse();
    assertThat(glob.matchesFolder("raw/clicks/dt=2024-01-01/hour=01")).isFalse();
    assertThat(glob.matches("raw/clicks/dt=2024-01-01/_SUCCESS")).isFalse();
  }

  @Test
  void matchesFolderOfAGlobWithoutSlashIsTheRoot() {
    Glob glob = Glob.parse("gs://landing/*.csv");

    assertThat(glob.matchesFolder("")).isTrue();
    assertThat(glob.matchesFolder("raw")).isFalse();
  }

  @Test
  void matchesFolderFollowsBraceAlternativesThatHoldSlashes() {
    Glob glob = Glob.parse("gs://landing/raw/{clicks/*.csv,views/dt=*/*.json}");

    assertThat(glob.matchesFolder("raw/clicks")).isTrue();
    assertThat(glob.matchesFolder("raw/views/dt=1")).isTrue();
    assertThat(glob.matchesFolder("raw/views")).isFalse();
    assertThat(glob.matchesFolder("raw/clicks/dt=1")).isFalse();
  }

  @Test
  void matchesFolderWithDoubleStarFolderAcceptsZeroAndMoreFolders() {
    Glob glob = Glob.parse("gs://landing/raw/**/*.parquet");

    assertThat(glob.matchesFolder("raw")).isTrue();
    assertThat(glob.matchesFolder("raw/a")).isTrue();
    assertThat(glob.matchesFolder("raw/a/b")).isTrue();
    assertThat(glob.matchesFolder("other")).isFalse();
    assertThat(glob.matchesFolder("")).isFalse();
  }

  @Test
  void matchesFolderWithDoubleStarInTheLastSegmentAcceptsEveryFolderBelow() {
    Glob glob = Glob.parse("gs://landing/raw/clicks/**");

    assertThat(glob.matchesFolder("raw/clicks")).isTrue();
    assertThat(glob.matchesFolder("raw/clicks/dt=1")).isTrue();
    assertThat(glob.matchesFolder("raw/clicks/dt=1/hour=2")).isTrue();
    assertThat(glob.matchesFolder("raw")).isFalse();
    assertThat(glob.matchesFolder("raw/views")).isFalse();
  }

  @Test
  void matchesFolderWithDoubleStarAfterTextKeepsTheTextBeforeIt() {
    Glob glob = Glob.parse("gs://landing/raw/part-**.csv");

    assertThat(glob.matchesFolder("raw")).isTrue();
    assertThat(glob.matchesFolder("raw/part-1")).isTrue();
    assertThat(glob.matches("raw/part-1/x.csv")).isTrue();
    assertThat(glob.matchesFolder("raw/other")).isFalse();
  }

  @Test
  void objectsMatchOnlyInTheGlobsBucket() {
    Glob glob = Glob.parse("gs://landing/raw/*.csv");

    assertThat(glob.matches(ObjectLocation.gs("landing", "raw/a.csv"))).isTrue();
    assertThat(glob.matches(ObjectLocation.gs("other", "raw/a.csv"))).isFalse();
    assertThat(glob.matches(ObjectLocation.parse("file:///raw/a.csv"))).isFalse();
  }

  @Test
  void fileGlobHasNoBucketAndMatchesTheAbsolutePath() {
    Glob glob = Glob.parse("file:///data/landing/clicks/*/*.parquet");

    assertThat(glob.scheme()).isEqualTo("file");
    assertThat(glob.bucket()).isEmpty();
    assertThat(glob.nameGlob()).isEqualTo("data/landing/clicks/*/*.parquet");
    assertThat(glob.fixedPrefix()).isEqualTo("data/landing/clicks/");
    assertThat(glob.matches(ObjectLocation.parse("file:///data/landing/clicks/dt=1/a.parquet")))
        .isTrue();
    assertThat(glob.matches(ObjectLocation.gs("data", "landing/clicks/dt=1/a.parquet"))).isFalse();
  }

  @Test
  void wildcardInTheBucketIsRejected() {
    assertThatThrownBy(() -> Glob.parse("gs://landing-*/raw/*.csv"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "glob \"gs://landing-*/raw/*.csv\": the bucket \"landing-*\" must not contain"
                + " wildcards");
  }

  @Test
  void pathWithoutSupportedSchemeIsRejected() {
    assertThatThrownBy(() -> Glob.parse("s3://landing/raw/*.csv"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "glob \"s3://landing/raw/*.csv\": \"s3://landing/raw/*.csv\" is not a gs:// or"
                + " file:// URI");
  }

  @Test
  void toStringIsThePathAsWritten() {
    assertThat(Glob.parse("gs://landing/raw/*.csv")).hasToString("gs://landing/raw/*.csv");
  }

  @Test
  void escapedTextMatchesExactlyItselfWithinAGlob() {
    String folder = "data/my [1] {a,b} *?\\x";
    Glob glob = Glob.parse("file:///" + Glob.escape(folder) + "/dt=*/*.csv");

    assertThat(glob.matches(folder + "/dt=1/a.csv")).isTrue();
    assertThat(glob.matches("data/my 1 a *?\\x/dt=1/a.csv")).isFalse();
    assertThat(glob.fixedPrefix()).isEqualTo(folder + "/dt=");
    assertThat(glob.changedMeanings()).hasSize(1);
  }
}
