package io.files2iceberg.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TerraformFormatTest {

  @Test
  void everyTerraformFileIsFormatted() {
    Terraform.Result result =
        Terraform.run(
            Repository.ROOT,
            "fmt", "-check", "-recursive", "-diff", "-no-color", Repository.TERRAFORM.toString());

    assertThat(result.exitCode())
        .as(
            "terraform fmt -check -recursive terraform/ found unformatted files; run `terraform fmt"
                + " -recursive terraform/`:\n%s",
            result.output())
        .isZero();
  }

  @Test
  void aMissingTerraformFailsSayingWhatToInstall(@TempDir Path empty) {
    assertThatThrownBy(() -> Terraform.binary(Map.of("PATH", empty.toString())))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("terraform is not installed")
        .hasMessageContaining("Install Terraform 1.5 or newer on PATH");
    assertThatThrownBy(() -> Terraform.binary(Map.of("TERRAFORM", empty.resolve("terraform").toString())))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("is not an executable file");
  }
}
