package io.files2iceberg.batcher.cli;

/**
 * The reference pages generated from the command line, docs/reference/cli.md
 * ({@link CommandLineReference}) and docs/reference/exit-codes.md ({@link ExitCodesReference}):
 * where they are and how to regenerate them. ReferencePagesTest compares both with the committed files.
 */
final class ReferencePages {

  static final String CLI_PAGE = "docs/reference/cli.md";
  static final String EXIT_CODES_PAGE = "docs/reference/exit-codes.md";
  static final String REGENERATE =
      "mvn -o -B -pl batcher -am test -Dtest=ReferencePagesTest -Dsurefire.failIfNoSpecifiedTests=false"
          + " -Dfiles2iceberg.docs.regenerate=true";

  private ReferencePages() {}

  /** A page begun with its first lines: that it is generated and how to regenerate it, and its title. */
  static StringBuilder begin(String title) {
    return new StringBuilder("<!-- Generated from the code by ReferencePagesTest; do not edit. Regenerate with\n     ")
        .append(REGENERATE).append(" -->\n# ").append(title).append("\n\n");
  }
}
