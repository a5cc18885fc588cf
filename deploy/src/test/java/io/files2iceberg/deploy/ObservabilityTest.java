package io.files2iceberg.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What the deployment watches: the sidecar that scrapes /prometheus into Cloud Monitoring, the
 * alert policies with their thresholds wired to variables, reconcile on a schedule, and the APIs
 * enabled by Terraform.
 */
class ObservabilityTest {
  private static final String SIDECAR =
      "us-docker.pkg.dev/cloud-ops-agents-artifacts/cloud-run-gmp-sidecar/cloud-run-gmp-sidecar";

  private final Hcl module = Hcl.parse(Repository.MODULE);

  @Test
  void theListenerRunsThePrometheusSidecarReadingARunMonitoringConfigThatScrapesPrometheus() {
    Map<String, Object> template = Hcl.map(module.resource("google_cloud_run_v2_service", "listener"), "template",
        "listener");
    Map<String, Object> listener = Hcl.map(template, "containers", "listener template");
    Map<String, Object> collector = content(template, "containers");

    assertThat(listener.get("name")).isEqualTo("listener");
    assertThat(Hcl.at(listener, "ports", "container_port")).isEqualTo(8080.0);
    assertThat(collector.get("image")).isEqualTo("var.prometheus_sidecar_image");
    assertThat(Hcl.list(collector.get("depends_on"))).containsExactly("listener");
    assertThat(Hcl.at(collector, "volume_mounts", "mount_path")).isEqualTo("local.run_monitoring_dir");
    assertThat(Hcl.at(content(template, "volumes"), "secret", "items", "path")).isEqualTo("config.yaml");
    // hcl4j reads neither indexes nor conditionals as written: those are checked on the source.
    assertThat(Repository.read(Repository.MODULE.resolve("run.tf")))
        .contains("secret = google_secret_manager_secret.run_monitoring[0].secret_id")
        .contains("for_each = local.sidecar ? [1] : []");
    assertThat(String.valueOf(Hcl.at(module.variables(), "prometheus_sidecar_image", "default"))).startsWith(SIDECAR + ":");

    // The RunMonitoring config: /prometheus on the port the containers listen on, at the interval
    // the variable says; the sidecar reads it from /etc/rungmp/config.yaml.
    String monitoring = Repository.read(Repository.MODULE.resolve("monitoring.tf"));
    assertThat(monitoring)
        .contains("kind       = \"RunMonitoring\"")
        .contains("endpoints = [{ port = \"8080\", path = \"/prometheus\", interval = var.prometheus_scrape_interval }]")
        .contains("run_monitoring_dir = \"/etc/rungmp\"");
    assertThat(module.resource("google_secret_manager_secret_version", "run_monitoring").get("secret_data"))
        .isEqualTo("local.run_monitoring");
    // Its services' accounts may read the config and write metrics, nothing more.
    // (hcl4j resolves local.sidecar_accounts into the map it holds)
    Map<String, String> accounts = Map.of("listener", "google_service_account.listener.email",
        "batcher", "google_service_account.batcher.email");
    assertThat(module.resource("google_secret_manager_secret_iam_member", "sidecar_reads_config"))
        .containsEntry("for_each", accounts)
        .containsEntry("role", "roles/secretmanager.secretAccessor");
    assertThat(module.resource("google_project_iam_member", "sidecar_writes_metrics"))
        .containsEntry("for_each", accounts)
        .containsEntry("role", "roles/monitoring.metricWriter");
    assertThat(Repository.read(Repository.MODULE.resolve("monitoring.tf")))
        .contains("sidecar_accounts = local.sidecar ? {");
  }

  @Test
  void withBatcherServeTheBatcherIsAServiceRunningServeWithItsMetricsOnThePortTheSidecarScrapes() {
    Map<String, Object> service = module.resource("google_cloud_run_v2_service", "batcher");
    Map<String, Object> template = Hcl.map(service, "template", "batcher service");
    Map<String, Object> batcher = Hcl.map(template, "containers", "batcher template");

    assertThat(countOf("run.tf", "google_cloud_run_v2_service", "batcher")).isEqualTo("var.batcher_serve ? 1 : 0");
    assertThat(Hcl.list(batcher.get("args"))).containsSubsequence("batch", "serve", "--config", "local.profiles_dir")
        .containsSubsequence("--interval", "var.batcher_serve_interval", "--metrics-port", "8080");
    assertThat(Hcl.at(batcher, "ports", "container_port")).isEqualTo(8080.0);
    assertThat(Hcl.at(batcher, "resources", "cpu_idle")).isEqualTo(false);
    assertThat(Hcl.at(template, "scaling", "max_instance_count")).isEqualTo(1.0);
    assertThat(content(template, "containers").get("image")).isEqualTo("var.prometheus_sidecar_image");
    // The service replaces the scheduled run-once job.
    assertThat(Repository.read(Repository.MODULE.resolve("run.tf")))
        .contains("batcher     = !var.batcher_serve")
        .contains("image_jobs   = { for key, job in local.batcher_image_jobs : key => job if local.image_job_enabled[key] }");
    assertThat(Hcl.at(module.variables(), "batcher_serve", "default")).isEqualTo(false);
  }

  @Test
  void reconcileRunsOnItsOwnScheduleAsAJobOfTheBatcherImage() {
    Map<String, Object> jobs = Hcl.map(module.blocks("locals"), "batcher_image_jobs", "locals");
    Map<String, Object> reconcile = Hcl.map(jobs, "reconcile", "local.batcher_image_jobs");

    assertThat(reconcile.get("schedule")).isEqualTo("var.reconcile_schedule");
    assertThat(reconcile.get("timeout_seconds")).isEqualTo("var.reconcile_task_timeout_seconds");
    assertThat(Repository.read(Repository.MODULE.resolve("run.tf")))
        .containsPattern("\"reconcile\",\\s+\"--config\", local.profiles_dir,\\s+\"--stuck-after\","
            + " var.reconcile_stuck_after,\\s+], var.reconcile_fix \\? \\[\"--fix\"] : \\[]\\)")
        .contains("reconcile   = var.reconcile_enabled");
    assertThat(Hcl.at(module.variables(), "reconcile_enabled", "default")).isEqualTo(true);
    assertThat(Hcl.at(module.variables(), "reconcile_fix", "default")).isEqualTo(false);
  }

  @Test
  void listener5xxRatioAlertComparesTheListenersFiveHundredsWithAllItsRequests() {
    Map<String, Object> policy = module.resource("google_monitoring_alert_policy", "listener_5xx");
    Map<String, Object> threshold = condition(policy, "condition_threshold");

    assertThat(countOf("monitoring.tf", "google_monitoring_alert_policy", "listener_5xx")).isEqualTo("local.push ? 1 : 0");
    assertThat(policy.get("notification_channels")).isEqualTo("var.alert_notification_channels");
    assertThat((String) threshold.get("filter"))
        .contains("metric.type = \"run.googleapis.com/request_count\"")
        // (hcl4j reads the [0] index as .value)
        .contains("resource.label.service_name = \"google_cloud_run_v2_service.listener.value.name\"")
        .contains("metric.label.response_code_class = \"5xx\"");
    assertThat((String) threshold.get("denominator_filter"))
        .contains("metric.type = \"run.googleapis.com/request_count\"")
        .doesNotContain("response_code_class");
    assertThat(threshold.get("threshold_value")).isEqualTo("var.alert_listener_5xx_ratio");
    assertThat(threshold.get("comparison")).isEqualTo("COMPARISON_GT");
    assertThat(threshold.get("duration")).isEqualTo("var.alert_window");
  }

  @Test
  void deadLetterAlertWatchesTheDeadLetterSubscriptionForAnyMessage() {
    Map<String, Object> policy = module.resource("google_monitoring_alert_policy", "dead_letters");
    Map<String, Object> threshold = condition(policy, "condition_threshold");

    assertThat((String) threshold.get("filter"))
        .contains("metric.type = \"pubsub.googleapis.com/subscription/num_undelivered_messages\"")
        .contains("resource.label.subscription_id = \"google_pubsub_subscription.dead_letter.name\"");
    assertThat(threshold.get("threshold_value")).isEqualTo(0.0);
    assertThat(threshold.get("comparison")).isEqualTo("COMPARISON_GT");
    // The subscription the alert watches is the one the notifications dead-letter into.
    assertThat(module.resource("google_pubsub_subscription", "dead_letter").get("topic"))
        .isEqualTo("google_pubsub_topic.dead_letter.id");
    assertThat(policy.get("notification_channels")).isEqualTo("var.alert_notification_channels");
  }

  @Test
  void batcherMetricAlertsReadTheOldestReadyAgeAndTheFailedBatchCounterWithTheirThresholds() {
    Map<String, Object> oldest = module.resource("google_monitoring_alert_policy", "oldest_ready_partition");
    Map<String, Object> failed = module.resource("google_monitoring_alert_policy", "batches_failed");

    assertThat(countOf("monitoring.tf", "google_monitoring_alert_policy", "oldest_ready_partition"))
        .isEqualTo("var.batcher_serve && local.sidecar ? 1 : 0");
    assertThat(countOf("monitoring.tf", "google_monitoring_alert_policy", "batches_failed"))
        .isEqualTo("var.batcher_serve && local.sidecar ? 1 : 0");
    // hcl4j drops the ${} of an interpolation: the variable stays as its reference.
    assertThat((String) condition(oldest, "condition_prometheus_query_language").get("query"))
        .isEqualTo("max by (table) (files2iceberg_batcher_oldest_ready_partition_age_seconds) >"
            + " var.alert_oldest_ready_seconds");
    assertThat((String) condition(failed, "condition_prometheus_query_language").get("query"))
        .isEqualTo("sum by (table) (increase(files2iceberg_batcher_batches_total{outcome=\"failed\"}"
            + "[var.alert_window])) > 0");
    assertThat(Hcl.at(module.variables(), "alert_oldest_ready_seconds", "default")).isEqualTo(3600.0);
    assertThat(oldest.get("notification_channels")).isEqualTo("var.alert_notification_channels");
    assertThat(failed.get("notification_channels")).isEqualTo("var.alert_notification_channels");
  }

  @Test
  void aFailedExecutionOfAnyJobOfTheBatcherImageAlerts() {
    Map<String, Object> policy = module.resource("google_monitoring_alert_policy", "job_failed");
    Map<String, Object> threshold = condition(policy, "condition_threshold");

    assertThat((String) threshold.get("filter"))
        .contains("metric.type = \"run.googleapis.com/job/completed_execution_count\"")
        .contains("resource.label.job_name = starts_with(\"var.name-\")")
        .contains("metric.label.result = \"failed\"");
    assertThat(threshold.get("threshold_value")).isEqualTo(0.0);
    assertThat(policy.get("notification_channels")).isEqualTo("var.alert_notification_channels");
  }

  @Test
  void everyApiTheStackCallsIsEnabledAndNeverDisabledOnDestroy() {
    Map<String, Object> apis = module.resource("google_project_service", "apis");
    String services = Repository.read(Repository.MODULE.resolve("services.tf"));

    assertThat(apis.get("disable_on_destroy")).isEqualTo(false);
    assertThat(services).contains("for_each = var.enable_apis ? local.apis : toset([])");
    for (String api : List.of("storage", "pubsub", "firestore", "run", "dataproc", "cloudscheduler", "monitoring",
        "logging", "iam", "secretmanager", "cloudresourcemanager")) {
      assertThat(services).contains("\"" + api + ".googleapis.com\"");
    }
    // Every resource type whose API is enabled there waits for it.
    String text = moduleText();
    for (String type : List.of("google_pubsub_topic", "google_storage_bucket", "google_firestore_database",
        "google_service_account", "google_cloud_run_v2_service", "google_cloud_run_v2_job",
        "google_cloud_scheduler_job", "google_monitoring_alert_policy", "google_secret_manager_secret")) {
      module.resources(type).forEach((name, resource) -> assertThat(Hcl.list(resource.get("depends_on")))
          .as("%s.%s depends on the APIs", type, name)
          .contains("google_project_service.apis"));
    }
    assertThat(text).contains("disable_on_destroy = false");
  }

  /** The {@code count} expression of a resource, as written in {@code file}. */
  private static String countOf(String file, String type, String name) {
    String text = Repository.read(Repository.MODULE.resolve(file));
    java.util.regex.Matcher count = java.util.regex.Pattern.compile("resource \"" + type + "\" \"" + name
        + "\" \\{\\s+count = ([^\n]+)\n").matcher(text);
    assertThat(count.find()).as("%s.%s has a count in %s", type, name, file).isTrue();
    return count.group(1).strip();
  }

  /** The content of the one {@code dynamic "<kind>"} block of {@code block}. */
  private static Map<String, Object> content(Map<String, Object> block, String kind) {
    return Hcl.map(Hcl.map(Hcl.map(block, "dynamic", "dynamic blocks"), kind, "dynamic \"" + kind + "\""), "content",
        "dynamic \"" + kind + "\"");
  }

  private static Map<String, Object> condition(Map<String, Object> policy, String kind) {
    return Hcl.map(Hcl.map(policy, "conditions", "alert policy"), kind, "conditions");
  }

  private static String moduleText() {
    try (Stream<Path> files = Files.list(Repository.MODULE)) {
      return files.filter(f -> f.toString().endsWith(".tf")).sorted().map(Repository::read)
          .collect(Collectors.joining("\n"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
