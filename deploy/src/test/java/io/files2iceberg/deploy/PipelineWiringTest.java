package io.files2iceberg.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The bucket notification, the subscription and the listener fit together: what GCS sends is
 * what the listener parses, Pub/Sub pushes where the listener listens, with a token for the
 * audience the listener checks, and messages that keep failing end in a dead-letter topic.
 */
class PipelineWiringTest {

  private final Hcl module = Hcl.parse(Repository.MODULE);

  @Test
  void theBucketHasOneNotificationOfFinalizedObjectsWithTheirJsonResource() {
    Map<String, Map<String, Object>> notifications = module.resources("google_storage_notification");
    assertThat(notifications).hasSize(1);
    Map<String, Object> notification = notifications.values().iterator().next();

    // One config per bucket, whatever the number of tables: no count or for_each over tables.
    assertThat(notification).doesNotContainKeys("count", "for_each");
    assertThat(Hcl.list(notification.get("event_types"))).containsExactly("OBJECT_FINALIZE");
    assertThat(notification.get("payload_format")).isEqualTo("JSON_API_V1");
    assertThat(notification.get("bucket")).isEqualTo("var.landing_bucket");
    assertThat(notification.get("object_name_prefix")).isEqualTo("var.notification_object_prefix");
    assertThat(notification.get("topic")).isEqualTo("google_pubsub_topic.notifications.id");
  }

  @Test
  void theGcsServiceAgentMayPublishToTheTopic() {
    Map<String, Object> grant =
        module.resource("google_pubsub_topic_iam_member", "gcs_publishes_notifications");

    assertThat(grant.get("topic")).isEqualTo("google_pubsub_topic.notifications.name");
    assertThat(grant.get("role")).isEqualTo("roles/pubsub.publisher");
    assertThat((String) grant.get("member"))
        .contains("data.google_storage_project_service_account.gcs.email_address");
  }

  @Test
  void aChangeEventsTopicIsCreatedOnlyWhenNamedAndOnlyTheBatcherPublishesToIt() {
    Map<String, Object> topic = module.resource("google_pubsub_topic", "change_events");
    Map<String, Object> grant = module.resource("google_pubsub_topic_iam_member", "batcher_publishes_change_events");

    // Counted by the variable (the parser reads the conditional as a number, not as text).
    assertThat(topic).containsKey("count");
    assertThat(Repository.read(Repository.MODULE.resolve("pubsub.tf")))
        .contains("count   = var.change_events_topic == \"\" ? 0 : 1");
    assertThat(topic.get("name")).isEqualTo("var.change_events_topic");
    assertThat(grant.get("count")).isEqualTo(topic.get("count"));
    assertThat((String) grant.get("topic")).startsWith("google_pubsub_topic.change_events.").endsWith(".name");
    assertThat(grant.get("role")).isEqualTo("roles/pubsub.publisher");
    assertThat((String) grant.get("member")).contains("google_service_account.batcher.email");
    assertThat(Hcl.at(module.variables(), "change_events_topic", "default")).isEqualTo("");
  }

  @Test
  void pubsubPushesToTheListenersPushPathWithATokenForTheAudienceTheListenerChecks() {
    Map<String, Object> push =
        Hcl.map(
            Hcl.map(
                module.resource("google_pubsub_subscription", "notifications"),
                "dynamic",
                "subscription notifications"),
            "push_config",
            "subscription notifications's dynamic blocks");
    Map<String, Object> settings = module.module("settings");

    assertThat((String) Hcl.at(push, "content", "push_endpoint"))
        .startsWith("google_cloud_run_v2_service.listener")
        .endsWith("var.push_path");
    // The profiles the listener reads get the same push path, audience and push account
    // (RenderedProfilesTest shows the listener's own parser reads them back).
    assertThat(settings.get("push_path")).isEqualTo("var.push_path");
    assertThat(Hcl.at(push, "content", "oidc_token", "audience"))
        .isEqualTo(settings.get("oidc_audience"))
        .isEqualTo("local.oidc_audience");
    assertThat(Hcl.at(push, "content", "oidc_token", "service_account_email"))
        .isEqualTo(settings.get("oidc_service_account"))
        .isEqualTo("google_service_account.push.email");
    // Cloud Run's own invoker check accepts the token for that audience.
    assertThat(
            Hcl.list(
                module.resource("google_cloud_run_v2_service", "listener").get("custom_audiences")))
        .containsExactly("local.oidc_audience");
  }

  @Test
  void onlyThePushAccountMayInvokeTheListener() {
    Map<String, Map<String, Object>> invokers =
        module.resources("google_cloud_run_v2_service_iam_member");

    assertThat(invokers).hasSize(1);
    Map<String, Object> invoker = invokers.values().iterator().next();
    assertThat(invoker.get("role")).isEqualTo("roles/run.invoker");
    assertThat((String) invoker.get("member")).contains("google_service_account.push.email");
    assertThat(module.resources("google_cloud_run_v2_service_iam_binding")).isEmpty();
    assertThat(module.resources("google_cloud_run_v2_service_iam_policy")).isEmpty();
  }

  @Test
  void messagesThatKeepFailingGoToADeadLetterTopicThatKeepsThem() {
    Map<String, Object> subscription =
        module.resource("google_pubsub_subscription", "notifications");

    assertThat(Hcl.at(subscription, "dead_letter_policy", "dead_letter_topic"))
        .isEqualTo("google_pubsub_topic.dead_letter.id");
    assertThat(Hcl.at(subscription, "dead_letter_policy", "max_delivery_attempts"))
        .isEqualTo("var.max_delivery_attempts");
    assertThat(Hcl.at(subscription, "retry_policy", "minimum_backoff"))
        .isEqualTo("var.retry_minimum_backoff");
    assertThat(Hcl.at(subscription, "retry_policy", "maximum_backoff"))
        .isEqualTo("var.retry_maximum_backoff");
    assertThat(subscription.get("ack_deadline_seconds")).isEqualTo("var.ack_deadline_seconds");
    assertThat(subscription.get("message_retention_duration"))
        .isEqualTo("var.message_retention_duration");
    // A topic alone drops what it receives: the dead letters need a subscription.
    assertThat(module.resource("google_pubsub_subscription", "dead_letter").get("topic"))
        .isEqualTo("google_pubsub_topic.dead_letter.id");
    // The Pub/Sub service agent forwards dead letters and mints the push tokens.
    assertThat(
            module.resource("google_pubsub_topic_iam_member", "pubsub_agent_dead_letters").get("role"))
        .isEqualTo("roles/pubsub.publisher");
    assertThat(
            module
                .resource("google_pubsub_subscription_iam_member", "pubsub_agent_acks_dead_letters")
                .get("role"))
        .isEqualTo("roles/pubsub.subscriber");
    assertThat(
            module
                .resource("google_service_account_iam_member", "pubsub_agent_mints_push_tokens")
                .get("role"))
        .isEqualTo("roles/iam.serviceAccountTokenCreator");
  }

  @Test
  void theContainersReadTheUploadedProfilesFromTheMountedConfigBucket() {
    Map<String, Object> listener = module.resource("google_cloud_run_v2_service", "listener");
    Map<String, Object> batcher = module.resource("google_cloud_run_v2_job", "batcher");

    assertThat(module.resource("google_storage_bucket_object", "profiles").get("for_each"))
        .isEqualTo("module.settings.profiles");
    // The deployment file goes into the same bucket, beside the profiles, where both look for it.
    Map<String, Object> deployment = module.resource("google_storage_bucket_object", "deployment");
    assertThat(deployment.get("bucket")).isEqualTo("google_storage_bucket.config.name");
    assertThat(deployment.get("name")).isEqualTo("deployment.conf");
    assertThat(deployment.get("content")).isEqualTo("module.settings.deployment_file");
    assertThat(Hcl.at(listener, "template", "volumes", "gcs", "bucket"))
        .isEqualTo("google_storage_bucket.config.name");
    assertThat(Hcl.at(listener, "template", "containers", "volume_mounts", "mount_path"))
        .isEqualTo("local.profiles_dir");
    assertThat(Hcl.at(batcher, "template", "template", "volumes", "gcs", "bucket"))
        .isEqualTo("google_storage_bucket.config.name");
    assertThat(Hcl.at(batcher, "template", "template", "containers", "volume_mounts", "mount_path"))
        .isEqualTo("local.profiles_dir");
    // ListenerApplication reads FILES2ICEBERG_CONFIG; the batcher takes --config.
    assertThat(Hcl.list(Hcl.at(listener, "template", "containers", "env")))
        .anySatisfy(
            env ->
                assertThat(env)
                    .isEqualTo(Map.of("name", "FILES2ICEBERG_CONFIG", "value", "local.profiles_dir")));
    assertThat(Hcl.list(jobArgs("batcher"))).containsSubsequence("batch", "run-once", "--wait", "--config", "local.profiles_dir");
    assertThat(Hcl.list(Hcl.at(module.blocks("locals"), "maintenance_base_args")))
        .containsSubsequence("maintain", "--config", "local.profiles_dir");
    assertThat(Hcl.at(batcher, "template", "template", "containers", "args")).isEqualTo("each.value.args");
  }

  @Test
  void cloudSchedulerStartsEachJobOfTheBatcherImageOnItsOwnSchedule() {
    Map<String, Object> scheduler = module.resource("google_cloud_scheduler_job", "batcher");
    Map<String, Object> job = module.resource("google_cloud_run_v2_job", "batcher");
    Map<String, Object> invoker =
        module.resource("google_cloud_run_v2_job_iam_member", "scheduler_runs_batcher");

    // One job, one schedule and one invoker grant per entry: batcher (unless batcher_serve), and
    // maintenance and reconcile when enabled.
    assertThat(job.get("for_each")).isEqualTo("local.batcher_jobs");
    assertThat(scheduler.get("for_each")).isEqualTo("local.batcher_jobs");
    assertThat(invoker.get("for_each")).isEqualTo("local.batcher_jobs");
    // hcl4j does not evaluate the conditional: check its source text.
    assertThat(Repository.read(Repository.MODULE.resolve("run.tf")))
        .contains(
            "image_jobs   = { for key, job in local.batcher_image_jobs : key => job if local.image_job_enabled[key] }")
        .contains("maintenance = var.maintenance_enabled")
        .contains("batcher_jobs = merge(local.image_jobs, local.listing_table_jobs, local.maintenance_table_jobs)");
    // The scheduler of an entry runs that entry's job, as the scheduler account, which may
    // invoke exactly those jobs.
    assertThat((String) Hcl.at(scheduler, "http_target", "uri"))
        .startsWith("https://run.googleapis.com/v2/projects/")
        .contains("/jobs/google_cloud_run_v2_job.batcher.each.key.name")
        .endsWith(":run");
    assertThat(invoker.get("name")).isEqualTo("google_cloud_run_v2_job.batcher.each.key.name");
    assertThat(invoker.get("member")).isEqualTo("serviceAccount:google_service_account.scheduler.email");
    assertThat(Hcl.at(scheduler, "http_target", "oauth_token", "service_account_email"))
        .isEqualTo("google_service_account.scheduler.email");
    assertThat(scheduler.get("schedule")).isEqualTo("each.value.schedule");
    assertThat(jobSetting("batcher", "schedule")).isEqualTo("var.batcher_schedule");
    assertThat(jobSetting("maintenance", "schedule")).isEqualTo("var.maintenance_schedule");
    assertThat(Hcl.at(module.variables(), "maintenance_enabled", "default")).isEqualTo(true);
  }

  @Test
  void aTableThatListsStorageRunsOnItsOwnScheduleNamedWithTable() {
    // batch run-once skips tables of ingestion-type = full and save-checkpoint = false: each
    // listed in listing_table_schedules gets a job of its own running batch run-once --table.
    String run = Repository.read(Repository.MODULE.resolve("run.tf"));
    assertThat(run)
        .contains("[for table in keys(var.listing_table_schedules) : \"table-${substr(sha1(table), 0, 10)}\"]")
        .containsPattern("\"batch\", \"run-once\", \"--wait\",\\s+\"--config\", local.profiles_dir,\\s+\"--table\", table,")
        .contains("schedule        = var.listing_table_schedules[table]");
    assertThat(Hcl.at(module.variables(), "listing_table_schedules", "default")).isEqualTo(Map.of());
  }

  @Test
  void aTableWithAMaintenanceScheduleOfItsOwnIsMaintainedByItsOwnJobAndSkippedByTheOther() {
    // Each entry of maintenance_table_schedules gets a job running maintain --table with the
    // same actions, on its cron; the maintenance job (maintenance_schedule, every other table)
    // passes --skip-table for each. hcl4j does not evaluate for expressions: check the source.
    String run = Repository.read(Repository.MODULE.resolve("run.tf"));
    assertThat(run)
        .contains("maintenance_table_jobs = var.maintenance_enabled ? zipmap(")
        .contains("[for table in keys(var.maintenance_table_schedules) : \"maintain-${substr(sha1(table), 0, 10)}\"]")
        .contains("args            = concat(local.maintenance_args, [\"--table\", table])")
        .contains("schedule        = var.maintenance_table_schedules[table]")
        .containsPattern("args = concat\\(local.maintenance_args, flatten\\(\\[\\s+for table in"
            + " keys\\(var.maintenance_table_schedules\\) : \\[\"--skip-table\", table\\]");
    assertThat(jobSetting("maintenance", "schedule")).isEqualTo("var.maintenance_schedule");
    assertThat(Hcl.at(module.variables(), "maintenance_table_schedules", "default")).isEqualTo(Map.of());
    assertThat(Hcl.at(module.variables(), "maintenance_schedule", "default")).isEqualTo("0 3 * * *");
  }

  @Test
  void eachMaintenanceActionIsTurnedOnByItsVariable() {
    String main = Repository.read(Repository.MODULE.resolve("run.tf"));
    assertThat(main)
        .contains("var.maintenance_sort ? [\"--sort\"] : []")
        .contains("var.maintenance_rewrite_position_deletes ? [\"--rewrite-position-deletes\"] : []")
        .contains("var.maintenance_rewrite_manifests ? [\"--rewrite-manifests\"] : []")
        .contains("var.maintenance_remove_orphan_files ? [\"--remove-orphan-files\", \"--orphan-older-than\","
            + " var.maintenance_orphan_older_than] : []")
        .contains("maintenance_args = concat(local.maintenance_base_args, local.maintenance_action_args)");
    assertThat(Hcl.at(module.variables(), "maintenance_sort", "default")).isEqualTo(false);
    assertThat(Hcl.at(module.variables(), "maintenance_rewrite_position_deletes", "default")).isEqualTo(true);
    assertThat(Hcl.at(module.variables(), "maintenance_rewrite_manifests", "default")).isEqualTo(true);
    assertThat(Hcl.at(module.variables(), "maintenance_remove_orphan_files", "default")).isEqualTo(true);
    assertThat(Hcl.at(module.variables(), "maintenance_orphan_older_than", "default")).isEqualTo("3d");
  }

  @Test
  void aFailedOrRefusedRunIsNotRetriedButWaitsForTheNextSchedule() {
    Map<String, Object> job = module.resource("google_cloud_run_v2_job", "batcher");

    assertThat(Hcl.at(job, "template", "template", "max_retries")).isEqualTo(0.0);
    assertThat(Hcl.at(job, "template", "template", "timeout")).isEqualTo("each.value.timeout_secondss");
    assertThat(jobSetting("batcher", "timeout_seconds")).isEqualTo("var.batcher_task_timeout_seconds");
    assertThat(jobSetting("maintenance", "timeout_seconds")).isEqualTo("var.maintenance_task_timeout_seconds");
  }

  @Test
  void anExistingDeploymentKeepsItsBatcherJobScheduleAndGrant() {
    String module = moduleText();

    for (String address :
        List.of(
            "google_cloud_run_v2_job.batcher",
            "google_cloud_scheduler_job.batcher",
            "google_cloud_run_v2_job_iam_member.scheduler_runs_batcher")) {
      assertThat(module)
          .as("a moved block from %s", address)
          .containsPattern(
              "moved \\{\\s*from = " + Pattern.quote(address) + "\\s+to\\s*= "
                  + Pattern.quote(address + "[\"batcher\"]") + "\\s*}");
    }
  }

  /** {@code local.batcher_image_jobs.<job>.<key>}, as hcl4j gives it. */
  private Object jobSetting(String job, String key) {
    Map<String, Object> jobs = Hcl.map(module.blocks("locals"), "batcher_image_jobs", "locals");
    return Hcl.map(jobs, job, "local.batcher_image_jobs").get(key);
  }

  private Object jobArgs(String job) {
    return jobSetting(job, "args");
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
