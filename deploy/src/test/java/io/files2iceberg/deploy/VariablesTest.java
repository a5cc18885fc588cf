package io.files2iceberg.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every input of the module, the settings module and the example says what it is and its type. */
class VariablesTest {

  static final List<Path> FOLDERS =
      List.of(Repository.MODULE, Repository.SETTINGS_MODULE, Repository.EXAMPLE);

  @Test
  void everyVariableHasADescriptionAndAType() {
    for (Path folder : FOLDERS) {
      Map<String, Object> variables = Hcl.parse(folder).variables();
      assertThat(variables).as(folder.toString()).isNotEmpty();
      variables.forEach(
          (name, body) -> {
            Map<String, Object> block = Hcl.map(variables, name, folder.toString());
            assertThat((String) block.get("description"))
                .as("%s: variable \"%s\" description", folder, name)
                .isNotBlank();
            assertThat(block.get("type")).as("%s: variable \"%s\" type", folder, name).isNotNull();
          });
    }
  }

  @Test
  void theExamplePassesOnlyVariablesTheModuleDeclares() {
    Map<String, Object> module = Hcl.parse(Repository.MODULE).variables();
    Map<String, Object> call = Hcl.parse(Repository.EXAMPLE).module("files2iceberg");

    assertThat(call.keySet()).contains("project_id", "region", "landing_bucket", "tables");
    call.keySet().stream()
        .filter(argument -> !argument.equals("source"))
        .forEach(argument -> assertThat(module).as("module variable %s", argument).containsKey(argument));
    // Every required module variable (no default) is passed.
    module.forEach(
        (name, body) -> {
          @SuppressWarnings("unchecked")
          Map<String, Object> block = (Map<String, Object>) body;
          if (!block.containsKey("default")) {
            assertThat(call).as("the example passes required variable %s", name).containsKey(name);
          }
        });
  }
}
