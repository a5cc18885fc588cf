# The Google APIs the deployment calls, enabled by Terraform rather than by hand. Never disabled on
# destroy: other workloads of the project may use them. The resources that call an API depend on
# these, so that a fresh project applies in one go.
locals {
  apis = toset([
    "cloudresourcemanager.googleapis.com", # project IAM, the custom role
    "iam.googleapis.com",                  # service accounts, the batch submitter role
    "storage.googleapis.com",              # buckets, the notification config
    "pubsub.googleapis.com",               # topics, subscriptions
    "firestore.googleapis.com",            # the ledger
    "run.googleapis.com",                  # the listener, the batcher's jobs
    "cloudscheduler.googleapis.com",       # the batcher's schedules
    "dataproc.googleapis.com",             # the Spark job's batches
    "monitoring.googleapis.com",           # the sidecar's metrics, alert policies
    "logging.googleapis.com",              # the containers' JSON logs
    "secretmanager.googleapis.com",        # the sidecar's RunMonitoring config
    "biglake.googleapis.com",              # the job's Iceberg REST catalog (no resource names it)
    "compute.googleapis.com",              # the Dataproc batches' network and subnetwork (likewise)
  ])
}

resource "google_project_service" "apis" {
  for_each = var.enable_apis ? local.apis : toset([])

  project            = var.project_id
  service            = each.value
  disable_on_destroy = false
}
