package io.files2iceberg.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Iterator;
import java.util.LinkedHashMap;
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
    return JSON.readTree(Terraform.succeed(copy, "output", "-json", "-no-color"));
  }

  /**
   * Inputs as the main module passes them for the example's profile, on project {@code
   * lake-prod}; a test changes the entries it is about.
   */
  static Map<String, Object> exampleInputs() {
    Map<String, Object> inputs = new LinkedHashMap<>();
    inputs.put(
        "tables",
        Map.of("clicks", Repository.read(Repository.EXAMPLE.resolve("profiles/clicks.conf"))));
    inputs.put("project_id", "lake-prod");
    inputs.put("firestore_database", "(default)");
    inputs.put("collection_prefix", "");
    inputs.put("firestore_indexes_file", Repository.INDEX_FILE.toString());
    inputs.put("metadata_bucket", "lake-prod-files2iceberg-metadata");
    inputs.put("push_path", "/pubsub/push");
    inputs.put("list_prefix_on_marker", true);
    inputs.put("push", true);
    inputs.put("oidc_audience", "lake-prod/files2iceberg-listener");
    inputs.put("oidc_service_account", "files2iceberg-push@lake-prod.iam.gserviceaccount.com");
    inputs.put("dataproc_region", "europe-west1");
    inputs.put("dataproc_runtime_version", "2.3");
    inputs.put("dataproc_subnetwork", null);
    inputs.put("job_service_account", "files2iceberg-job@lake-prod.iam.gserviceaccount.com");
    inputs.put("job_jar_uri", "gs://lake-prod-artifacts/jars/files2iceberg-spark-job-0.1.0-all.jar");
    Map<String, Object> catalog = new LinkedHashMap<>();
    catalog.put("uri", "https://biglake.googleapis.com/iceberg/v1/restcatalog");
    catalog.put("warehouse", "gs://lake-prod-warehouse");
    catalog.put("user_project", "lake-prod");
    catalog.put("vended_credentials", false);
    catalog.put("properties", Map.of());
    inputs.put("catalog", catalog);
    return inputs;
  }

  /**
   * Writes the {@code profiles} output's files and the {@code deployment_file} output (as {@code
   * deployment.conf}) into {@code dir}, as the config bucket holds them.
   */
  static Path writeProfiles(JsonNode outputs, Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("deployment.conf"), value(outputs, "deployment_file").asText());
    for (Iterator<Map.Entry<String, JsonNode>> it = value(outputs, "profiles").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> file = it.next();
      Files.writeString(dir.resolve(file.getKey()), file.getValue().asText());
    }
    return dir;
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
