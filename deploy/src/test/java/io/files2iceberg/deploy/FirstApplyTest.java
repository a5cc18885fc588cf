package io.files2iceberg.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What a first {@code terraform apply} on a new project needs from the module: nothing created
 * before what it depends on, outputs that plan in both batcher modes, and every API the stack
 * calls at run time enabled. hcl4j drops conditionals ({@code a ? b : c} parses as {@code null})
 * and instance keys ({@code x[0]} as {@code x.value}), so those assertions read the source text.
 */
class FirstApplyTest {

  /**
   * The APIs the deployment calls at run time, by whom: written out here, not read from the
   * module, so that a removed or forgotten API fails. biglake and compute are named by no
   * resource: the job calls the catalog, Dataproc attaches the batches to a network.
   */
  static final List<String> RUN_TIME_APIS =
      List.of(
          "cloudresourcemanager.googleapis.com", // project IAM, the custom role
          "iam.googleapis.com", // service accounts
          "storage.googleapis.com", // buckets, notifications, every read and write of files
          "pubsub.googleapis.com", // notifications, dead letters
          "firestore.googleapis.com", // the ledger
          "run.googleapis.com", // the listener, the batcher
          "cloudscheduler.googleapis.com", // the batcher's schedules
          "dataproc.googleapis.com", // the Spark job's batches
          "monitoring.googleapis.com", // the sidecar's metrics, alerts
          "logging.googleapis.com", // the containers' logs
          "secretmanager.googleapis.com", // the sidecar's RunMonitoring config
          "biglake.googleapis.com", // the job's Iceberg REST catalog
          "compute.googleapis.com"); // the Dataproc batches' subnetwork

  private final Hcl module = Hcl.parse(Repository.MODULE);

  /** The {@code "...googleapis.com"} strings of services.tf's {@code apis} list (a toset() call). */
  static List<String> moduleApis() {
    String services = Repository.read(Repository.MODULE.resolve("services.tf"));
    Matcher list = Pattern.compile("(?s)apis = toset\\(\\[(.*?)]\\)").matcher(services);
    assertThat(list.find()).as("services.tf: locals { apis = toset([...]) }").isTrue();
    return Pattern.compile("\"([a-z0-9.-]+\\.googleapis\\.com)\"")
        .matcher(list.group(1))
        .results()
        .map(m -> m.group(1))
        .toList();
  }

  @Test
  void theListenerIsCreatedAfterTheLedgerDatabaseAndItsAccountsGrant() {
    Map<String, Object> listener = module.resource("google_cloud_run_v2_service", "listener");

    assertThat(Hcl.list(listener.get("depends_on")))
        .contains("google_firestore_database.ledger", "google_project_iam_member.ledger_users");
  }

  @Test
  void theListenerStartsOnItsPortAndChecksTheLedgerOnlyForLiveness() {
    // depends_on does not wait out IAM propagation: a startup probe on /health (DOWN until
    // Firestore accepts a write) could fail the first revision. The port starts it; the ledger
    // check restarts an instance only after minutes of DOWN.
    Map<String, Object> container =
        Hcl.map(
            Hcl.map(module.resource("google_cloud_run_v2_service", "listener"), "template", "listener"),
            "containers",
            "listener template");

    Map<String, Object> startup = Hcl.map(container, "startup_probe", "listener container");
    assertThat(startup).containsKey("tcp_socket").doesNotContainKey("http_get");
    assertThat(Hcl.at(startup, "tcp_socket", "port")).isEqualTo(Hcl.at(container, "ports", "container_port"));

    Map<String, Object> liveness = Hcl.map(container, "liveness_probe", "listener container");
    assertThat(Hcl.at(liveness, "http_get", "path")).isEqualTo("/health");
    double patience =
        ((Number) liveness.get("period_seconds")).doubleValue()
            * ((Number) liveness.get("failure_threshold")).doubleValue();
    assertThat(patience).as("seconds of DOWN before a restart (IAM propagation)").isGreaterThanOrEqualTo(420);
  }

  @Test
  void theBatcherServiceIsCreatedAfterTheLedgerDatabaseAndItsAccountsGrant() {
    assertThat(Hcl.list(module.resource("google_cloud_run_v2_service", "batcher").get("depends_on")))
        .contains("google_firestore_database.ledger", "google_project_iam_member.ledger_users");
  }

  @Test
  void thePubsubServiceAgentIsCreatedWithGoogleBetaBeforeAnyGrantToIt() {
    Map<String, Object> identity = module.resource("google_project_service_identity", "pubsub");
    assertThat(identity.get("provider")).isEqualTo("google-beta");
    assertThat(identity.get("service")).isEqualTo("pubsub.googleapis.com");
    assertThat(Hcl.list(identity.get("depends_on"))).contains("google_project_service.apis");

    for (Hcl folder : List.of(module, Hcl.parse(Repository.EXAMPLE))) {
      assertThat(Hcl.at(folder.blocks("terraform"), "required_providers", "google-beta", "source"))
          .as("%s declares google-beta", folder.folder())
          .isEqualTo("hashicorp/google-beta");
    }
    assertThat(Hcl.parse(Repository.EXAMPLE).blocks("provider")).containsKey("google-beta");

    // hcl4j drops the ${} of the interpolation: the local reads the created agent's email.
    assertThat(Hcl.at(module.blocks("locals"), "pubsub_service_agent"))
        .isEqualTo("serviceAccount:google_project_service_identity.pubsub.email");
    Map<String, String> grantsToTheAgent = new LinkedHashMap<>();
    module
        .allResources()
        .forEach(
            (type, byName) ->
                byName.forEach(
                    (name, body) -> {
                      if ("local.pubsub_service_agent".equals(body.get("member"))) {
                        grantsToTheAgent.put(type + "." + name, String.valueOf(body.get("depends_on")));
                        assertThat(Hcl.list(body.get("depends_on")))
                            .as("%s.%s depends on the agent", type, name)
                            .contains("google_project_service_identity.pubsub");
                      }
                    }));
    assertThat(grantsToTheAgent)
        .containsKeys(
            "google_pubsub_topic_iam_member.pubsub_agent_dead_letters",
            "google_pubsub_subscription_iam_member.pubsub_agent_acks_dead_letters",
            "google_service_account_iam_member.pubsub_agent_mints_push_tokens");
  }

  @Test
  void everyOutputPlansWithAndWithoutBatcherServe() {
    // Which batcher resources exist in each mode (source text: hcl4j drops the conditionals).
    String run = Repository.read(Repository.MODULE.resolve("run.tf"));
    assertThat(run).contains("batcher     = !var.batcher_serve"); // the run-once job
    assertThat(run).contains("count = var.batcher_serve ? 1 : 0"); // the batch serve service

    Map<String, String> outputs = outputValues();
    assertThat(outputs).containsKeys("batcher_job", "batcher_service", "maintenance_job");
    for (boolean serve : new boolean[] {true, false}) {
      for (Map.Entry<String, String> output : outputs.entrySet()) {
        String value = inMode(output.getValue(), serve);
        if (serve) {
          assertThat(value)
              .as("output %s with batcher_serve = true", output.getKey())
              .doesNotContain("google_cloud_run_v2_job.batcher[\"batcher\"]");
        } else {
          assertThat(value)
              .as("output %s with batcher_serve = false", output.getKey())
              .doesNotContain("google_cloud_run_v2_service.batcher[");
        }
      }
    }
    assertThat(inMode(outputs.get("batcher_job"), false)).contains("google_cloud_run_v2_job.batcher[\"batcher\"]");
    assertThat(inMode(outputs.get("batcher_service"), true)).contains("google_cloud_run_v2_service.batcher[0]");
  }

  /** Each output's value expression as written (one line each in outputs.tf). */
  private static Map<String, String> outputValues() {
    String source = Repository.read(Repository.MODULE.resolve("outputs.tf"));
    Map<String, String> values = new LinkedHashMap<>();
    Matcher output = Pattern.compile("(?m)^output \"(\\w+)\" \\{\\n(?s:(.*?))\\n}").matcher(source);
    while (output.find()) {
      Matcher value = Pattern.compile("(?m)^  value\\s*=\\s*(.*)$").matcher(output.group(2));
      assertThat(value.find()).as("output %s has a value", output.group(1)).isTrue();
      values.put(output.group(1), value.group(1).trim());
    }
    assertThat(values).as("outputs.tf").isNotEmpty();
    return values;
  }

  /** The branch of a top-level {@code var.batcher_serve ? a : b} taken in that mode. */
  private static String inMode(String expression, boolean serve) {
    Matcher conditional = Pattern.compile("^(!?)var\\.batcher_serve \\? (.+?) : (.+)$").matcher(expression);
    if (!conditional.matches()) {
      return expression;
    }
    boolean condition = conditional.group(1).isEmpty() == serve;
    return condition ? conditional.group(2) : conditional.group(3);
  }

  @Test
  void theModuleEnablesExactlyTheApisTheStackCallsAtRunTime() {
    assertThat(moduleApis()).containsExactlyInAnyOrderElementsOf(RUN_TIME_APIS);
    Map<String, Object> apis = module.resource("google_project_service", "apis");
    assertThat(apis.get("disable_on_destroy")).isEqualTo(false);
  }

  @Test
  void theCatalogsOwnAccountMayReadAndWriteTheWarehouseWhenItIsNamed() {
    Map<String, Object> grant =
        module.resource("google_storage_bucket_iam_member", "catalog_warehouse_user");

    assertThat(grant.get("bucket")).isEqualTo("var.warehouse_bucket");
    assertThat(grant.get("role")).isEqualTo("roles/storage.objectUser");
    assertThat(grant.get("member")).isEqualTo("serviceAccount:var.catalog_service_account");
    // count = var.catalog_service_account == null ? 0 : 1 (a conditional: source text).
    assertThat(Repository.read(Repository.MODULE.resolve("identities.tf")))
        .contains("count = var.catalog_service_account == null ? 0 : 1");
    assertThat(module.variables()).containsKey("catalog_service_account");
    assertThat(Hcl.parse(Repository.EXAMPLE).module("files2iceberg").get("catalog_service_account"))
        .isEqualTo("var.catalog_service_account");
  }

  @Test
  void theDefaultsWorkUnderCommonOrganisationPolicies() {
    Map<String, Object> variables = module.variables();
    // constraints/run.allowedIngress = internal: Pub/Sub push of the same project is internal.
    assertThat(Hcl.at(variables, "listener_ingress", "default")).isEqualTo("INGRESS_TRAFFIC_INTERNAL_ONLY");
    // constraints/gcp.resourceLocations: the secret's replicas where the variable says.
    assertThat(Hcl.at(variables, "secret_replication_locations", "default")).isEqualTo(List.of());
    Map<String, Object> replication =
        Hcl.map(
            module.resource("google_secret_manager_secret", "run_monitoring"),
            "replication",
            "secret run_monitoring");
    assertThat(Hcl.at(replication, "dynamic", "user_managed", "content", "dynamic", "replicas", "for_each"))
        .isEqualTo("var.secret_replication_locations");
    assertThat(Hcl.at(replication, "dynamic", "auto")).as("auto replication when no location is given").isNotNull();
    // No default network: a documented precondition on the variable.
    assertThat((String) Hcl.at(variables, "dataproc_subnetwork", "description"))
        .contains("firewall rule", "skipDefaultNetworkCreation");
  }

  @Test
  void thePushAckDeadlineIsGooglesAdviceForCloudRunAndTheListenersRequestTimeout() {
    // A marker's listing of a large folder can outlast 60 s: Pub/Sub would redeliver a message
    // still being handled.
    assertThat(Hcl.at(module.variables(), "ack_deadline_seconds", "default")).isEqualTo(600.0);
    assertThat(Repository.read(Repository.MODULE.resolve("run.tf")))
        .contains("timeout = \"${var.ack_deadline_seconds}s\"");
  }
}
