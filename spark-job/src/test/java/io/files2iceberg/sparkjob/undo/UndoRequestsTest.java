package io.files2iceberg.sparkjob.undo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileJson;
import io.files2iceberg.core.profile.ProfileLoader;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command lines of {@link RollbackMain} and {@link DropPartitionMain}, parsed once; errors name the option. */
class UndoRequestsTest {
  @TempDir static Path root;
  static String profile;

  @BeforeAll
  static void profile() throws Exception {
    profile = ProfileJson.toJson(ProfileLoader.parse("extract.path = \"file:///landing/u/*.json\"\n"
        + "extract.format = json\nload.iceberg.table = \"local.u.t\"\n", Path.of("u.conf"), new Home(root)));
  }

  @Test
  void aRollbackNamesItsTargetOnce() {
    RollbackRequest request = RollbackRequest.parse(new String[] {"--profile", profile, "--table", "local.u.t",
        "--to-snapshot", "-42", "--expect-current", "7", "--dry-run", "--result", "file:///tmp/r.json"});

    assertThat(request.toSnapshot()).contains(-42L);
    assertThat(request.expectCurrent()).contains(7L);
    assertThat(request.dryRun()).isTrue();
    assertThat(request.resultUri()).contains("file:///tmp/r.json");
    assertThatThrownBy(() -> RollbackRequest.parse(new String[] {"--profile", profile, "--table", "local.u.t",
        "--to-snapshot", "1", "--to-tag", "files2iceberg-before-b1"}))
        .hasMessage("exactly one of --to-snapshot and --to-tag is required");
    assertThatThrownBy(() -> RollbackRequest.parse(new String[] {"--profile", profile, "--table", "local.u.t"}))
        .hasMessage("exactly one of --to-snapshot and --to-tag is required");
    assertThatThrownBy(() -> RollbackRequest.parse(new String[] {"--profile", profile, "--table", "local.u.t",
        "--to-snapshot", "latest"}))
        .hasMessage("--to-snapshot \"latest\" is not a snapshot id (a whole number)");
  }

  @Test
  void theTableMustBeTheProfiles() {
    assertThatThrownBy(() -> DropPartitionRequest.parse(new String[] {"--profile", profile, "--table", "local.u.other",
        "--partition", "eu", "--change-id", "c1"}))
        .hasMessage("--table local.u.other is not the table of --profile, local.u.t");
    assertThatThrownBy(() -> DropPartitionRequest.parse(new String[] {"--profile", profile, "--partition", "eu",
        "--change-id", "c1"}))
        .hasMessage("--table is required");
    assertThatThrownBy(() -> DropPartitionRequest.parse(new String[] {"--profile", profile, "--table", "local.u.t",
        "--partition", "eu"}))
        .hasMessage("--change-id is required");
    assertThatThrownBy(() -> DropPartitionRequest.parse(new String[] {"--profile", profile, "--table", "local.u.t",
        "--partition", "eu", "--change-id", "c1", "--protect", "b1=x"}))
        .hasMessage("unknown option --protect");
  }
}
