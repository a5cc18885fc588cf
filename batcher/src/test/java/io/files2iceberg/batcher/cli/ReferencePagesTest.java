package io.files2iceberg.batcher.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.docs.GeneratedFile;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/reference/cli.md and docs/reference/exit-codes.md are what {@link CommandLineReference} and {@link ExitCodesReference} generate
 * from the command line; {@code -Dfiles2iceberg.docs.regenerate=true} rewrites them.
 */
class ReferencePagesTest {

  private static final Path ROOT = Path.of("..");

  @Test
  void commandLinePageIsEveryCommandsUsageHelp() throws IOException {
    String page = assertGenerated(ReferencePages.CLI_PAGE, CommandLineReference.page());

    assertThat(page).contains("## `files2iceberg batch run-once`", "## `files2iceberg quarantine release`",
        "## `files2iceberg reconcile`", "--stuck-after");
  }

  @Test
  void exitCodesPageListsTheCommandsAndTheJobsCodes() throws IOException {
    String page = assertGenerated(ReferencePages.EXIT_CODES_PAGE, ExitCodesReference.page());

    assertThat(page).contains("| `2` | invalid configuration or usage", "| `4` | `REJECTED` | no |");
  }

  private static String assertGenerated(String file, String generated) throws IOException {
    return GeneratedFile.assertCommitted(ROOT.resolve(file), generated, "the command line", ReferencePages.REGENERATE);
  }
}
