output "listener_url" {
  description = "URL of the Cloud Run listener (null in pull mode)."
  value       = local.push ? google_cloud_run_v2_service.listener[0].uri : null
}

output "push_endpoint" {
  description = "Where Pub/Sub pushes: the listener URL plus listener.push-path (null in pull mode)."
  value       = local.push ? "${google_cloud_run_v2_service.listener[0].uri}${var.push_path}" : null
}

output "oidc_audience" {
  description = "Audience of the push tokens (listener.oidc-audience)."
  value       = local.push ? local.oidc_audience : null
}

output "topic" {
  description = "The Pub/Sub topic of the landing bucket's notifications."
  value       = google_pubsub_topic.notifications.id
}

output "subscription" {
  description = "The subscription the listener receives from (push or pull)."
  value       = google_pubsub_subscription.notifications.id
}

output "dead_letter_subscription" {
  description = "Where messages land after max_delivery_attempts."
  value       = google_pubsub_subscription.dead_letter.id
}

output "config_bucket" {
  description = "Bucket holding the rendered table profiles, mounted by the listener and the batcher."
  value       = google_storage_bucket.config.name
}

output "metadata_bucket" {
  description = "Bucket of the batch manifests (metadata.path)."
  value       = google_storage_bucket.metadata.name
}

output "batcher_job" {
  description = "The Cloud Run job running batch run-once (null with batcher_serve, which runs the service instead)."
  value       = var.batcher_serve ? null : google_cloud_run_v2_job.batcher["batcher"].name
}

output "batcher_service" {
  description = "The Cloud Run service running batch serve (null without batcher_serve)."
  value       = var.batcher_serve ? google_cloud_run_v2_service.batcher[0].name : null
}

output "maintenance_job" {
  description = "The Cloud Run job running maintain (null when maintenance_enabled is false)."
  value       = var.maintenance_enabled ? google_cloud_run_v2_job.batcher["maintenance"].name : null
}

output "service_accounts" {
  description = "Emails of the deployment's service accounts."
  value = {
    listener  = google_service_account.listener.email
    batcher   = google_service_account.batcher.email
    job       = google_service_account.job.email
    push      = google_service_account.push.email
    scheduler = google_service_account.scheduler.email
  }
}

output "profiles" {
  description = "The rendered table profiles, by file name."
  value       = module.settings.profiles
}

output "deployment_file" {
  description = "The rendered deployment file (deployment.conf beside the profiles): ledger, listener and job."
  value       = module.settings.deployment_file
}
