package io.files2iceberg.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.stream.Stream;

/**
 * terraform/modules/settings evaluated by terraform itself: the module has no provider, so
 * {@code init} and {@code apply} run offline. It is copied into a temporary folder first, so that
 * no state or lock file lands in the checkout.
 */
final class SettingsModule {

  private static final ObjectMapper JSON = new ObjectMapper();

  private SettingsModule() {}

  /** The module's outputs ({@code terraform output -json}) for these input variables. */
  static JsonNode evaluate(Map<String, Object> inputs, Path workDir) throws IOException {
    Path copy = Files.createDirectories(workDir.resolve("settings"));
    try (Stream<Path> files = Files.list(Repository.SETTINGS_MODULE)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".tf")).toList()) {
        Files.copy(file, copy.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    JSON.writeValue(copy.resolve("inputs.auto.tfvars.json").toFile(), inputs);
    Terraform.succeed(copy, "init", "-input=false", "-no-color");
    Terraform.succeed(copy, "apply", "-auto-approve", "-input=false", "-no-color");
    JsonNode outputs = JSON.readTree(Terraform.succeed(copy, "output", "-json", "-no-color"));
    return outputs;
  }

  /** An output's value. */
  static JsonNode value(JsonNode outputs, String name) {
    JsonNode output = outputs.path(name).path("value");
    if (output.isMissingNode()) {
      throw new AssertionError("terraform/modules/settings has no output " + name + ": " + outputs);
    }
    return output;
  }
}
