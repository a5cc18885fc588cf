locals {
  push                 = var.subscription_type == "push"
  dataproc_region      = coalesce(var.dataproc_region, var.region)
  oidc_audience        = coalesce(var.oidc_audience, "${var.project_id}/${var.name}-listener")
  catalog_warehouse    = coalesce(var.catalog_warehouse, "gs://${var.warehouse_bucket}")
  catalog_user_project = coalesce(var.catalog_user_project, var.project_id)
  jar_bucket           = regex("^gs://([^/]+)/", var.job_jar_uri)[0]
  # The batcher cancels a job it has waited for this long, before Cloud Run ends the task.
  batcher_job_timeout_seconds = sum([var.batcher_task_timeout_seconds, -300])
  # Likewise maintain cancels one table's maintenance before Cloud Run ends the task.
  maintenance_table_timeout_seconds = sum([var.maintenance_task_timeout_seconds, -300])
  # maintain's compaction switch (a negatable option: one of the two is always passed).
  maintenance_compaction = var.maintenance_compact ? "--compact" : "--no-compact"

  # Where the containers read the profiles: the config bucket, mounted read-only (Cloud Storage
  # volume). FILES2ICEBERG_CONFIG of the listener, --config of the batcher.
  profiles_dir = "/etc/files2iceberg/profiles"
  # The embedded home: nothing production needs lives there (ledger and manifests are remote).
  home_dir = "/tmp/files2iceberg"

  # Created by google_project_service_identity (identities.tf), so that the grants to it never
  # precede the agent itself on a new project.
  pubsub_service_agent = "serviceAccount:${google_project_service_identity.pubsub.email}"
}

module "settings" {
  source = "../settings"

  tables                   = var.tables
  project_id               = var.project_id
  firestore_database       = var.firestore_database
  collection_prefix        = var.collection_prefix
  firestore_indexes_file   = "${path.module}/../../firestore-indexes.json"
  metadata_bucket          = google_storage_bucket.metadata.name
  push_path                = var.push_path
  list_prefix_on_marker    = var.list_prefix_on_marker
  push                     = local.push
  oidc_audience            = local.oidc_audience
  oidc_service_account     = google_service_account.push.email
  dataproc_region          = local.dataproc_region
  dataproc_runtime_version = var.dataproc_runtime_version
  dataproc_subnetwork      = var.dataproc_subnetwork
  job_service_account      = google_service_account.job.email
  job_jar_uri              = var.job_jar_uri
  change_events_topic      = var.change_events_topic == "" ? "" : google_pubsub_topic.change_events[0].id
  catalog = {
    uri                = var.catalog_uri
    warehouse          = local.catalog_warehouse
    user_project       = local.catalog_user_project
    vended_credentials = var.catalog_vended_credentials
    properties         = var.catalog_properties
  }
}

# --- Buckets of the deployment: its profiles and deployment file, and the batch manifests (metadata.path)

resource "google_storage_bucket" "config" {
  project                     = var.project_id
  name                        = "${var.project_id}-${var.name}-config"
  location                    = var.region
  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"
  force_destroy               = true

  versioning {
    enabled = true
  }

  depends_on = [google_project_service.apis]
}

resource "google_storage_bucket_object" "profiles" {
  for_each = module.settings.profiles

  bucket       = google_storage_bucket.config.name
  name         = each.key
  content      = each.value
  content_type = "text/plain"
}

# Beside the profiles, where the listener and the batcher look for it.
resource "google_storage_bucket_object" "deployment" {
  bucket       = google_storage_bucket.config.name
  name         = "deployment.conf"
  content      = module.settings.deployment_file
  content_type = "text/plain"
}

resource "google_storage_bucket" "metadata" {
  project                     = var.project_id
  name                        = "${var.project_id}-${var.name}-metadata"
  location                    = var.region
  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"

  depends_on = [google_project_service.apis]
}
