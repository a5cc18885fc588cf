package io.files2iceberg.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The README's "Deploy on GCP" section names every variable a user can set, so it cannot drift. */
class ReadmeDeploySectionTest {

  static String deploySection() {
    String readme = Repository.read(Repository.README);
    int start = readme.indexOf("\n## Deploy on GCP\n");
    assertThat(start).as("README.md has a \"## Deploy on GCP\" section").isNotNegative();
    int end = readme.indexOf("\n## ", start + 1);
    return end < 0 ? readme.substring(start) : readme.substring(start, end);
  }

  @Test
  void everyVariableOfTheModuleAndTheExampleIsNamedInTheDeploySection() {
    String section = deploySection();
    for (Path folder : new Path[] {Repository.MODULE, Repository.EXAMPLE}) {
      for (String name : Hcl.parse(folder).variables().keySet()) {
        assertThat(section).as("README Deploy on GCP names %s of %s", name, folder).contains("`" + name + "`");
      }
    }
  }

  @Test
  void theDeploySectionComesRightBeforeOperating() {
    String readme = Repository.read(Repository.README);

    assertThat(readme.indexOf("\n## ", readme.indexOf("\n## Deploy on GCP\n") + 1))
        .isEqualTo(readme.indexOf("\n## Operating\n"));
  }
}
