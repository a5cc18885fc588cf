package io.files2iceberg.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.profile.TableProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the deployment writes, evaluated by terraform itself (terraform/modules/settings has no
 * provider): the profiles the containers read, loaded back with the pipeline's own profile
 * parser, and the Firestore indexes, compared with the ledger's declared index file.
 */
class SettingsModuleTest {

  private static final String PREFIX = "prod_";
  private static final String AUDIENCE = "https://clicks-listener.example.com/push";
  private static final String PUSH_ACCOUNT = "clicks-push@lake-prod.iam.gserviceaccount.com";
  private static final String PUSH_PATH = "/pubsub/files2iceberg";

  @TempDir static Path work;

  private static JsonNode outputs;
  private static ProfileRegistry profiles;

  @BeforeAll
  static void evaluate() throws Exception {
    outputs = SettingsModule.evaluate(inputs(true, PUSH_PATH), work.resolve("push"));
    profiles = writeAndLoad(outputs, work.resolve("profiles"));
  }

  /** The example's profile with every setting the module passes on, none at its usual value. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> inputs(boolean push, String pushPath) {
    Map<String, Object> inputs = SettingsModule.exampleInputs();
    inputs.put("firestore_database", "ledger-db");
    inputs.put("collection_prefix", PREFIX);
    inputs.put("push_path", pushPath);
    inputs.put("list_prefix_on_marker", false);
    inputs.put("push", push);
    inputs.put("oidc_audience", AUDIENCE);
    inputs.put("oidc_service_account", PUSH_ACCOUNT);
    inputs.put("dataproc_runtime_version", "2.2");
    inputs.put("dataproc_subnetwork", "projects/lake-prod/regions/europe-west1/subnetworks/dataproc");
    Map<String, Object> catalog = (Map<String, Object>) inputs.get("catalog");
    catalog.put("vended_credentials", true);
    catalog.put("properties", Map.of("rest.sigv4-enabled", "false"));
    return inputs;
  }

  private static ProfileRegistry writeAndLoad(JsonNode outputs, Path dir) throws Exception {
    Path profiles = SettingsModule.writeProfiles(outputs, dir);
    return ProfileRegistry.load(profiles, new Home(profiles.resolve("home")));
  }

  @Test
  void eachTableBecomesOneProfileFileNamedAfterIt() {
    assertThat(SettingsModule.value(outputs, "profiles").fieldNames())
        .toIterable()
        .containsExactly("clicks.conf");
    assertThat(profiles.profiles()).extracting(TableProfile::name).containsExactly("clicks");
    assertThat(profiles.byName("clicks").orElseThrow().load().table()).hasToString("lake.raw.clicks");
  }

  @Test
  void theListenerChecksTheAudienceAndAccountThePushSubscriptionUsesOnItsPushPath() {
    var listener = profiles.deployment().listener();

    assertThat(listener.pushPath()).isEqualTo(PUSH_PATH);
    assertThat(listener.oidcAudience()).contains(AUDIENCE);
    assertThat(listener.oidcServiceAccount()).contains(PUSH_ACCOUNT);
    assertThat(listener.listPrefixOnMarker()).isFalse();
  }

  @Test
  void aPullingListenerChecksNoToken() throws Exception {
    JsonNode pull = SettingsModule.evaluate(inputs(false, PUSH_PATH), work.resolve("pull"));
    var listener =
        writeAndLoad(pull, work.resolve("pull-profiles")).deployment().listener();

    assertThat(listener.oidcAudience()).isEmpty();
    assertThat(listener.oidcServiceAccount()).isEmpty();
  }

  @Test
  void theModulesDefaultPushPathIsTheListenersDefault() throws Exception {
    Path dir = Files.createDirectories(work.resolve("defaults"));
    Files.writeString(
        dir.resolve("t.conf"),
        Repository.read(Repository.EXAMPLE.resolve("profiles/clicks.conf")));
    String listenerDefault =
        ProfileRegistry.load(dir, new Home(dir.resolve("home"))).deployment().listener().pushPath();

    assertThat(Hcl.parse(Repository.MODULE).variables())
        .extracting(variables -> Hcl.at(variables, "push_path", "default"))
        .isEqualTo(listenerDefault);
  }

  @Test
  void theLedgerAndJobSettingsReachTheOneDeploymentFileBesideTheProfiles() {
    var deployment = profiles.deployment();

    assertThat(profiles.deploymentFile()).contains(work.resolve("profiles/deployment.conf").toAbsolutePath());
    assertThat(profiles.deploymentHint()).as("no profile carries deployment settings").isEmpty();
    assertThat(deployment.ledger().type()).isEqualTo("firestore");
    assertThat(deployment.ledger().firestoreProject()).contains("lake-prod");
    assertThat(deployment.ledger().firestoreDatabase()).isEqualTo("ledger-db");
    assertThat(deployment.ledger().collectionPrefix()).isEqualTo(PREFIX);
    assertThat(deployment.job().dataprocRegion()).contains("europe-west1");
    assertThat(deployment.job().runtimeVersion()).isEqualTo("2.2");
    assertThat(deployment.job().subnetwork())
        .contains("projects/lake-prod/regions/europe-west1/subnetworks/dataproc");
    assertThat(deployment.job().serviceAccount())
        .contains("files2iceberg-job@lake-prod.iam.gserviceaccount.com");
    assertThat(deployment.job().jarUri())
        .contains("gs://lake-prod-artifacts/jars/files2iceberg-spark-job-0.1.0-all.jar");
  }

  @Test
  void aChangeEventsTopicReachesTheDeploymentFileAndWithoutOneEventsStayInTheHome() throws Exception {
    Map<String, Object> inputs = inputs(true, PUSH_PATH);
    inputs.put("change_events_topic", "projects/lake-prod/topics/lake-changes");
    JsonNode withTopic = SettingsModule.evaluate(inputs, work.resolve("events"));

    assertThat(writeAndLoad(withTopic, work.resolve("events-profiles")).deployment().events().pubsubTopic())
        .contains("projects/lake-prod/topics/lake-changes");
    assertThat(profiles.deployment().events().pubsubTopic()).isEmpty();
  }

  @Test
  void theCatalogAndMetadataSettingsReachTheProfile() {
    TableProfile profile = profiles.byName("clicks").orElseThrow();

    assertThat(profile.catalog().type().code()).isEqualTo("rest");
    assertThat(profile.catalog().uri()).isEqualTo("https://biglake.googleapis.com/iceberg/v1/restcatalog");
    assertThat(profile.catalog().warehouse()).isEqualTo("gs://lake-prod-warehouse");
    assertThat(profile.catalog().userProject()).contains("lake-prod");
    assertThat(profile.catalog().vendedCredentials()).isTrue();
    assertThat(profile.catalog().properties()).containsEntry("rest.sigv4-enabled", "false");
    assertThat(profile.metadata().path()).isEqualTo("gs://lake-prod-files2iceberg-metadata/metadata/clicks/");
    // The table's own keys are kept.
    assertThat(profile.load().primaryKey()).containsExactly("click_id");
  }

  @Test
  void everyDeclaredIndexIsCreatedOnTheCollectionTheLedgerUses() throws Exception {
    JsonNode declared = new ObjectMapper().readTree(Repository.INDEX_FILE.toFile());
    List<Map<String, Object>> expected = new ArrayList<>();
    for (JsonNode index : declared.path("indexes")) {
      List<List<String>> fields = new ArrayList<>();
      for (JsonNode field : index.path("fields")) {
        fields.add(
            List.of(
                field.path("fieldPath").asText(),
                field.has("order") ? field.path("order").asText() : field.path("arrayConfig").asText()));
      }
      expected.add(
          Map.of(
              "collection", PREFIX + index.path("collectionGroup").asText(),
              "query_scope", index.path("queryScope").asText(),
              "fields", fields));
    }
    List<Map<String, Object>> created = new ArrayList<>();
    for (JsonNode index : SettingsModule.value(outputs, "firestore_indexes")) {
      List<List<String>> fields = new ArrayList<>();
      for (JsonNode field : index.path("fields")) {
        fields.add(
            List.of(
                field.path("field_path").asText(),
                field.path("order").isNull()
                    ? field.path("array_config").asText()
                    : field.path("order").asText()));
      }
      created.add(
          Map.of(
              "collection", index.path("collection").asText(),
              "query_scope", index.path("query_scope").asText(),
              "fields", fields));
    }

    assertThat(expected).isNotEmpty();
    assertThat(created).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(created).allSatisfy(index -> assertThat((String) index.get("collection")).startsWith(PREFIX));
  }

  @Test
  void everyDeclaredFieldOverrideIsAppliedOnThePrefixedCollection() throws Exception {
    JsonNode declared = new ObjectMapper().readTree(Repository.INDEX_FILE.toFile());
    List<String> expected = new ArrayList<>();
    for (JsonNode override : declared.path("fieldOverrides")) {
      expected.add(
          PREFIX + override.path("collectionGroup").asText() + "." + override.path("fieldPath").asText()
              + " " + override.path("indexes"));
    }
    List<String> created = new ArrayList<>();
    for (JsonNode override : SettingsModule.value(outputs, "firestore_field_overrides")) {
      created.add(
          override.path("collection").asText() + "." + override.path("field").asText() + " "
              + override.path("indexes"));
    }

    assertThat(created).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void theFirestoreResourcesAreMadeFromTheSettingsModulesExpansionOfTheIndexFile() {
    Hcl module = Hcl.parse(Repository.MODULE);
    Map<String, Object> index = module.resource("google_firestore_index", "ledger");
    Map<String, Object> field = module.resource("google_firestore_field", "ledger");

    assertThat(module.module("settings").get("firestore_indexes_file"))
        .isEqualTo("path.module/../../firestore-indexes.json");
    assertThat(Repository.MODULE.resolve("../../firestore-indexes.json").normalize())
        .isEqualTo(Repository.INDEX_FILE);
    assertThat(index.get("for_each")).isEqualTo("module.settings.firestore_indexes");
    assertThat(index.get("collection")).isEqualTo("each.value.collection");
    assertThat(index.get("database")).isEqualTo("var.firestore_database");
    assertThat(Hcl.at(index, "dynamic", "fields", "for_each")).isEqualTo("each.value.fields");
    assertThat(Hcl.at(index, "dynamic", "fields", "content", "field_path"))
        .isEqualTo("fields.value.field_path");
    assertThat(Hcl.at(index, "dynamic", "fields", "content", "order")).isEqualTo("fields.value.order");
    assertThat(field.get("for_each")).isEqualTo("module.settings.firestore_field_overrides");
    assertThat(field.get("collection")).isEqualTo("each.value.collection");
    assertThat(Optional.ofNullable(module.resource("google_firestore_database", "ledger").get("type")))
        .contains("FIRESTORE_NATIVE");
  }
}
