package io.files2iceberg.core.match;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

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
    Glob glob = Glob.parse("gs://landing/raw/a+b(1)[x]$^|\\.d.csv");

    assertThat(glob.matches("raw/a+b(1)[x]$^|\\.d.csv")).isTrue();
    assertThat(glob.matches("raw/aab(1)[x]$^|\\.d.csv")).isFalse();
    assertThat(glob.matches("raw/a+b(1)[x]$^|\\.dXcsv")).isFalse();
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
}
