# Service accounts and every IAM binding of the deployment. Least privilege: project-level roles
# only where the resource has no IAM of its own (Firestore, Dataproc, BigLake); everything else is
# granted on the bucket, topic, subscription, service or job itself. No primitive role anywhere.

resource "google_service_account" "listener" {
  project      = var.project_id
  account_id   = "${var.name}-listener"
  display_name = "files2iceberg listener: records notifications in the ledger"

  depends_on = [google_project_service.apis]
}

resource "google_service_account" "batcher" {
  project      = var.project_id
  account_id   = "${var.name}-batcher"
  display_name = "files2iceberg batcher: claims partitions, submits Dataproc batches"

  depends_on = [google_project_service.apis]
}

resource "google_service_account" "job" {
  project      = var.project_id
  account_id   = "${var.name}-job"
  display_name = "files2iceberg Spark job: loads batches into Iceberg"

  depends_on = [google_project_service.apis]
}

resource "google_service_account" "push" {
  project      = var.project_id
  account_id   = "${var.name}-push"
  display_name = "files2iceberg push: identity of Pub/Sub's pushes to the listener"

  depends_on = [google_project_service.apis]
}

resource "google_service_account" "scheduler" {
  project      = var.project_id
  account_id   = "${var.name}-scheduler"
  display_name = "files2iceberg scheduler: starts the batcher and maintenance jobs"

  depends_on = [google_project_service.apis]
}

# --- The ledger (Firestore has no per-database IAM binding in the provider) -------------------

resource "google_project_iam_member" "ledger_users" {
  for_each = {
    listener = google_service_account.listener.email
    batcher  = google_service_account.batcher.email
    job      = google_service_account.job.email
  }

  project = var.project_id
  role    = "roles/datastore.user"
  member  = "serviceAccount:${each.value}"
}

# --- Buckets --------------------------------------------------------------------------------

resource "google_storage_bucket_iam_member" "landing_viewers" {
  for_each = {
    listener = google_service_account.listener.email # the marker listing
    batcher  = google_service_account.batcher.email  # full and backfill listings
    job      = google_service_account.job.email      # reads the batch's files
  }

  bucket = var.landing_bucket
  role   = "roles/storage.objectViewer"
  member = "serviceAccount:${each.value}"
}

# Landing cleanup (a profile's load.after-ingest.action = delete or move): the scheduled maintain
# deletes loaded objects from the landing bucket, each with its generation as precondition, and
# with move first copies them to the archive bucket, where a rollback's job reads them. Terraform
# cannot read the profiles: landing_cleanup must be true when some profile turns cleanup on.
resource "google_storage_bucket_iam_member" "batcher_landing_cleanup" {
  for_each = var.landing_cleanup ? toset(compact([var.landing_bucket, var.landing_archive_bucket])) : toset([])

  bucket = each.value
  role   = "roles/storage.objectUser"
  member = "serviceAccount:${google_service_account.batcher.email}"
}

resource "google_storage_bucket_iam_member" "job_archive_viewer" {
  count = var.landing_cleanup && var.landing_archive_bucket != null ? 1 : 0

  bucket = var.landing_archive_bucket
  role   = "roles/storage.objectViewer"
  member = "serviceAccount:${google_service_account.job.email}"
}

resource "google_storage_bucket_iam_member" "config_viewers" {
  for_each = {
    listener = google_service_account.listener.email
    batcher  = google_service_account.batcher.email
  }

  bucket = google_storage_bucket.config.name
  role   = "roles/storage.objectViewer"
  member = "serviceAccount:${each.value}"
}

resource "google_storage_bucket_iam_member" "metadata_users" {
  for_each = {
    batcher = google_service_account.batcher.email # writes manifests
    job     = google_service_account.job.email     # reads them, writes maintenance results
  }

  bucket = google_storage_bucket.metadata.name
  role   = "roles/storage.objectUser"
  member = "serviceAccount:${each.value}"
}

resource "google_storage_bucket_iam_member" "job_jar_reader" {
  bucket = local.jar_bucket
  role   = "roles/storage.objectViewer"
  member = "serviceAccount:${google_service_account.job.email}"
}

resource "google_storage_bucket_iam_member" "job_warehouse_admin" {
  bucket = var.warehouse_bucket
  role   = "roles/storage.objectAdmin"
  member = "serviceAccount:${google_service_account.job.email}"
}

# With vended credentials the catalog reads and writes the warehouse with its own service account
# (created with the catalog by gcloud, outside this module) and hands out tokens downscoped from it.
resource "google_storage_bucket_iam_member" "catalog_warehouse_user" {
  count = var.catalog_service_account == null ? 0 : 1

  bucket = var.warehouse_bucket
  role   = "roles/storage.objectUser"
  member = "serviceAccount:${var.catalog_service_account}"
}

# --- Dataproc Serverless ----------------------------------------------------------------------

# What the batcher's launcher calls, and nothing more of the predefined Dataproc editor role.
resource "google_project_iam_custom_role" "batch_submitter" {
  project     = var.project_id
  role_id     = "${replace(var.name, "-", "_")}_batch_submitter"
  title       = "files2iceberg Dataproc batch submitter"
  description = "Create, watch and cancel Dataproc Serverless batches."
  permissions = [
    "dataproc.batches.create",
    "dataproc.batches.get",
    "dataproc.batches.list",
    "dataproc.batches.cancel",
    "dataproc.operations.get",
    "dataproc.operations.cancel",
  ]

  depends_on = [google_project_service.apis]
}

resource "google_project_iam_member" "batcher_submits_batches" {
  project = var.project_id
  role    = google_project_iam_custom_role.batch_submitter.id
  member  = "serviceAccount:${google_service_account.batcher.email}"
}

# The batcher creates batches that run as the job's account: act-as on that account only.
resource "google_service_account_iam_member" "batcher_acts_as_job" {
  service_account_id = google_service_account.job.name
  role               = "roles/iam.serviceAccountUser"
  member             = "serviceAccount:${google_service_account.batcher.email}"
}

resource "google_project_iam_member" "job_dataproc_worker" {
  project = var.project_id
  role    = "roles/dataproc.worker"
  member  = "serviceAccount:${google_service_account.job.email}"
}

# --- The BigLake Iceberg REST catalog ---------------------------------------------------------

resource "google_project_iam_member" "job_catalog" {
  project = var.project_id
  role    = "roles/biglake.editor"
  member  = "serviceAccount:${google_service_account.job.email}"
}

# catalog.user-project is sent as x-goog-user-project: the caller must be allowed to bill it.
resource "google_project_iam_member" "job_catalog_billing" {
  project = local.catalog_user_project
  role    = "roles/serviceusage.serviceUsageConsumer"
  member  = "serviceAccount:${google_service_account.job.email}"
}

# --- Pub/Sub --------------------------------------------------------------------------------

# The Pub/Sub service agent (service-<number>@gcp-sa-pubsub.iam.gserviceaccount.com) is created
# lazily by Google, on the API's first use; on a new project the grants below would name an
# account that does not exist yet and fail. This creates it (services.identities.generate) before
# any grant refers to it. google-beta only: declared in versions.tf.
resource "google_project_service_identity" "pubsub" {
  provider = google-beta

  project = var.project_id
  service = "pubsub.googleapis.com"

  depends_on = [google_project_service.apis]
}

resource "google_pubsub_topic_iam_member" "gcs_publishes_notifications" {
  project = var.project_id
  topic   = google_pubsub_topic.notifications.name
  role    = "roles/pubsub.publisher"
  member  = "serviceAccount:${data.google_storage_project_service_account.gcs.email_address}"
}

# Dead-lettering: the Pub/Sub service agent publishes to the dead-letter topic and acks the
# message on the source subscription.
resource "google_pubsub_topic_iam_member" "pubsub_agent_dead_letters" {
  project = var.project_id
  topic   = google_pubsub_topic.dead_letter.name
  role    = "roles/pubsub.publisher"
  member  = local.pubsub_service_agent

  depends_on = [google_project_service_identity.pubsub]
}

resource "google_pubsub_subscription_iam_member" "pubsub_agent_acks_dead_letters" {
  project      = var.project_id
  subscription = google_pubsub_subscription.notifications.name
  role         = "roles/pubsub.subscriber"
  member       = local.pubsub_service_agent

  depends_on = [google_project_service_identity.pubsub]
}

# The push's OIDC token is minted by the Pub/Sub service agent for the push account.
resource "google_service_account_iam_member" "pubsub_agent_mints_push_tokens" {
  service_account_id = google_service_account.push.name
  role               = "roles/iam.serviceAccountTokenCreator"
  member             = local.pubsub_service_agent

  depends_on = [google_project_service_identity.pubsub]
}

resource "google_pubsub_subscription_iam_member" "listener_pulls" {
  count = local.push ? 0 : 1

  project      = var.project_id
  subscription = google_pubsub_subscription.notifications.name
  role         = "roles/pubsub.subscriber"
  member       = "serviceAccount:${google_service_account.listener.email}"
}

# --- Cloud Run ------------------------------------------------------------------------------

# Only the push account may call the listener.
resource "google_cloud_run_v2_service_iam_member" "push_invokes_listener" {
  count = local.push ? 1 : 0

  project  = var.project_id
  location = var.region
  name     = google_cloud_run_v2_service.listener[0].name
  role     = "roles/run.invoker"
  member   = "serviceAccount:${google_service_account.push.email}"
}

# The scheduler account may start the batcher's jobs (run-once, maintenance) and nothing else.
resource "google_cloud_run_v2_job_iam_member" "scheduler_runs_batcher" {
  for_each = local.batcher_jobs

  project  = var.project_id
  location = var.region
  name     = google_cloud_run_v2_job.batcher[each.key].name
  role     = "roles/run.invoker"
  member   = "serviceAccount:${google_service_account.scheduler.email}"
}

moved {
  from = google_cloud_run_v2_job_iam_member.scheduler_runs_batcher
  to   = google_cloud_run_v2_job_iam_member.scheduler_runs_batcher["batcher"]
}
