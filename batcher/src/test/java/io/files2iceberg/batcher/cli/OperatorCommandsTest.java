package io.files2iceberg.batcher.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code replay}, {@code backfill} and {@code reconcile} alike: bad input named with exit code 2,
 * and help on every command.
 */
class OperatorCommandsTest extends OperatorCommandsFixture {
  @Test
  void badInputIsRejectedNamingTheOptionWithExitCode2() throws Exception {
    assertThat(command("replay", "--table", "local.test.nope", "--partition", "20240101")).isEqualTo(2);
    assertThat(err.toString()).contains("--table local.test.nope: no profile in " + config
        + " loads it; tables there: " + TABLE);

    assertThat(command("replay", "--table", TABLE, "--from", "2024-13-01")).isEqualTo(2);
    assertThat(err.toString()).contains("--from 2024-13-01: not a date in the date-format \"yyyyMMdd\" of table "
        + TABLE + " (nor yyyy-MM-dd)");

    assertThat(command("replay", "--table", TABLE, "--partition", "20240101", "--to", "20240102")).isEqualTo(2);
    assertThat(err.toString()).contains("--partition: give it or --from/--to, not both");

    assertThat(command("replay", "--table", TABLE)).isEqualTo(2);
    assertThat(err.toString()).contains("--partition or --from/--to: required");

    assertThat(command("replay", "--table", TABLE, "--partition", "20240101", "--force", "--no-checkpoint"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--force: not with --no-checkpoint");

    assertThat(command("reconcile", "--from", "20240105", "--to", "20240101")).isEqualTo(2);
    assertThat(err.toString()).contains("--from 20240105 is after --to 20240101");

    assertThat(command("backfill", "--table", TABLE, "--limit", "-1")).isEqualTo(2);
    assertThat(err.toString()).contains("--limit: must be 0 (all) or more, got -1");

    assertThat(run("reconcile", "--home", home.toString())).isEqualTo(2);
    assertThat(err.toString()).contains("error: missing required option: '--config=FILE|DIR'");
  }

  @Test
  void everyCommandHasHelp() {
    for (String name : List.of("replay", "backfill", "reconcile")) {
      assertThat(run(name, "--help")).isZero();
      assertThat(out.toString()).startsWith("Usage: files2iceberg " + name).contains("--dry-run").contains("--json");
    }
  }
}
