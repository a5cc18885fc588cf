package io.files2iceberg.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Least privilege: every grant is one of a short list of narrow roles; no primitive role. */
class IamTest {

  /** Every role the deployment may grant, and why. */
  private static final Set<String> ALLOWED_ROLES =
      Set.of(
          "roles/datastore.user", // the ledger (listener, batcher, job)
          "roles/storage.objectViewer", // landing files, profiles, the job jar
          "roles/storage.objectUser", // batch manifests
          "roles/storage.objectAdmin", // the Iceberg warehouse (job)
          "roles/dataproc.worker", // the Dataproc batch's own account
          "roles/iam.serviceAccountUser", // batcher acts as the job's account
          "roles/iam.serviceAccountTokenCreator", // Pub/Sub mints the push token
          "roles/pubsub.publisher", // GCS notifications, dead letters
          "roles/pubsub.subscriber", // dead-letter acks, a pulling listener
          "roles/run.invoker", // push -> listener, scheduler -> batcher job
          "roles/biglake.editor", // the Iceberg REST catalog
          "roles/serviceusage.serviceUsageConsumer", // the catalog's x-goog-user-project
          "roles/monitoring.metricWriter", // the Prometheus sidecar writes the metrics it scrapes
          "roles/secretmanager.secretAccessor", // the sidecar reads its RunMonitoring config
          "google_project_iam_custom_role.batch_submitter.id"); // Dataproc batch submit

  /** Roles that may be granted on the whole project: the ones whose resources have no IAM. */
  private static final Set<String> PROJECT_ROLES =
      Set.of(
          "roles/datastore.user",
          "roles/dataproc.worker",
          "roles/biglake.editor",
          "roles/serviceusage.serviceUsageConsumer",
          "roles/monitoring.metricWriter",
          "google_project_iam_custom_role.batch_submitter.id");

  private final Hcl module = Hcl.parse(Repository.MODULE);

  @Test
  void everyGrantIsAnAllowedRole() {
    List<String> grants = new ArrayList<>();
    module
        .allResources()
        .forEach(
            (type, byName) -> {
              if (type.matches(".*_iam_(member|binding|policy)$")) {
                byName.forEach(
                    (name, grant) -> {
                      assertThat(type)
                          .as("%s.%s: only additive _iam_member grants", type, name)
                          .endsWith("_iam_member");
                      String role = String.valueOf(grant.get("role"));
                      assertThat(role).as("%s.%s", type, name).isIn(ALLOWED_ROLES);
                      if (type.equals("google_project_iam_member")) {
                        assertThat(role).as("project-wide grant %s.%s", type, name).isIn(PROJECT_ROLES);
                      }
                      grants.add(type + "." + name + " " + role);
                    });
              }
            });

    // The grants the issue asks for are there: not an empty list that passes by default.
    assertThat(grants)
        .contains(
            "google_project_iam_member.ledger_users roles/datastore.user",
            "google_storage_bucket_iam_member.landing_viewers roles/storage.objectViewer",
            "google_project_iam_member.batcher_submits_batches"
                + " google_project_iam_custom_role.batch_submitter.id",
            "google_service_account_iam_member.batcher_acts_as_job roles/iam.serviceAccountUser",
            "google_project_iam_member.job_dataproc_worker roles/dataproc.worker",
            "google_storage_bucket_iam_member.job_warehouse_admin roles/storage.objectAdmin",
            "google_project_iam_member.job_catalog roles/biglake.editor");
  }

  @Test
  void landingCleanupGrantsTheBatcherObjectUserOnTheLandingAndArchiveBucketsOnlyWhenTurnedOn() {
    Map<String, Object> cleanup = module.resource("google_storage_bucket_iam_member", "batcher_landing_cleanup");
    assertThat(cleanup.get("role")).isEqualTo("roles/storage.objectUser");
    assertThat(cleanup.get("member")).isEqualTo("serviceAccount:google_service_account.batcher.email");
    Map<String, Object> archive = module.resource("google_storage_bucket_iam_member", "job_archive_viewer");
    assertThat(archive.get("role")).isEqualTo("roles/storage.objectViewer");
    assertThat(archive.get("member")).isEqualTo("serviceAccount:google_service_account.job.email");
    // Conditionals are source text to the parser: each grant exists only with landing_cleanup = true.
    assertThat(Repository.read(Repository.MODULE.resolve("identities.tf")))
        .contains("for_each = var.landing_cleanup ? toset(compact([var.landing_bucket, var.landing_archive_bucket]))"
            + " : toset([])")
        .contains("count = var.landing_cleanup && var.landing_archive_bucket != null ? 1 : 0");
    assertThat(Hcl.map(module.variables(), "landing_cleanup", "variables").get("default")).isEqualTo(false);
  }

  @Test
  void theBatchSubmitterRoleHoldsOnlyDataprocBatchPermissions() {
    Map<String, Object> role =
        module.resource("google_project_iam_custom_role", "batch_submitter");

    assertThat(Hcl.list(role.get("permissions")))
        .isNotEmpty()
        .allSatisfy(
            permission ->
                assertThat((String) permission).matches("dataproc\\.(batches|operations)\\.[a-z]+"));
  }

  @Test
  void noPrimitiveRoleAppearsInAnyTerraformFile() throws IOException {
    try (Stream<Path> files = Files.walk(Repository.TERRAFORM)) {
      List<Path> terraform = files.filter(f -> f.toString().endsWith(".tf")).toList();
      assertThat(terraform).isNotEmpty();
      for (Path file : terraform) {
        assertThat(Repository.read(file))
            .as(file.toString())
            .doesNotContain("roles/owner")
            .doesNotContain("roles/editor")
            .doesNotContain("roles/viewer")
            .doesNotContain("roles/dataproc.editor")
            .doesNotContain("roles/dataproc.admin")
            .doesNotContain("roles/storage.admin")
            .doesNotContain("roles/iam.serviceAccountAdmin");
      }
    }
  }
}
