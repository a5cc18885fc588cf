package io.files2iceberg.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** docs/deploy.md ("Deploy on GCP") names every variable a user can set, so it cannot drift. */
class DeployPageTest {

  static String deploySection() {
    String page = Repository.read(Repository.DOCS.resolve("deploy.md"));
    assertThat(page).as("docs/deploy.md starts with \"# Deploy on GCP\"").startsWith("# Deploy on GCP\n");
    return page;
  }

  @Test
  void everyVariableOfTheModuleAndTheExampleIsNamedInTheDeployPage() {
    String section = deploySection();
    for (Path folder : new Path[] {Repository.MODULE, Repository.EXAMPLE}) {
      for (String name : Hcl.parse(folder).variables().keySet()) {
        assertThat(section).as("docs/deploy.md names %s of %s", name, folder).contains("`" + name + "`");
      }
    }
  }

  @Test
  void theDeployPageComesRightBeforeOperateInTheSite() {
    List<String> nav = DocumentationLinksTest.navPages();

    assertThat(nav).contains("deploy.md", "operate.md");
    assertThat(nav.indexOf("operate.md")).isEqualTo(nav.indexOf("deploy.md") + 1);
  }
}
