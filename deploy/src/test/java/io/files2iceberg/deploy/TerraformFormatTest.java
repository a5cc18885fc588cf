package io.files2iceberg.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

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
}
