# The whole pipeline in one apply: copy this folder, put one profile per table into profiles/,
# fill terraform.tfvars (see terraform.tfvars.example) and run terraform init && terraform apply.

terraform {
  required_version = ">= 1.5"

  required_providers {
    google = {
      source  = "hashicorp/google"
      version = ">= 6.0, < 8.0"
    }
    google-beta = {
      source  = "hashicorp/google-beta"
      version = ">= 6.0, < 8.0"
    }
  }
}

provider "google" {
  project = var.project_id
  region  = var.region
}

# The module creates the Pub/Sub service agent with google-beta (google_project_service_identity).
provider "google-beta" {
  project = var.project_id
  region  = var.region
}

locals {
  profiles_dir = format("%s/%s", path.module, var.profiles_dir)
}

module "files2iceberg" {
  source = "../../modules/files2iceberg"

  project_id                 = var.project_id
  region                     = var.region
  name                       = var.name
  landing_bucket             = var.landing_bucket
  notification_object_prefix = var.notification_object_prefix
  warehouse_bucket           = var.warehouse_bucket
  # One table per file: profiles/<name>.conf holds the table's own keys (extract, transform, load).
  tables = {
    for profile in fileset(local.profiles_dir, "*.conf") :
    trimsuffix(profile, ".conf") => file(format("%s/%s", local.profiles_dir, profile))
  }
  listener_image             = var.listener_image
  batcher_image              = var.batcher_image
  job_jar_uri                = var.job_jar_uri
  dataproc_runtime_version   = var.dataproc_runtime_version
  dataproc_subnetwork        = var.dataproc_subnetwork
  catalog_uri                = var.catalog_uri
  catalog_warehouse          = var.catalog_warehouse
  catalog_vended_credentials = var.catalog_vended_credentials
  catalog_service_account    = var.catalog_service_account
  create_firestore_database  = var.create_firestore_database
  firestore_database         = var.firestore_database
  collection_prefix          = var.collection_prefix
  subscription_type          = var.subscription_type
  batcher_schedule           = var.batcher_schedule
  maintenance_enabled        = var.maintenance_enabled
  maintenance_schedule       = var.maintenance_schedule
  maintenance_retention      = var.maintenance_retention
  maintenance_compact        = var.maintenance_compact
}

output "listener_url" {
  description = "URL of the Cloud Run listener."
  value       = module.files2iceberg.listener_url
}

output "topic" {
  description = "Topic of the landing bucket's notifications."
  value       = module.files2iceberg.topic
}

output "subscription" {
  description = "The listener's subscription."
  value       = module.files2iceberg.subscription
}

output "dead_letter_subscription" {
  description = "Messages that failed max_delivery_attempts times."
  value       = module.files2iceberg.dead_letter_subscription
}

output "batcher_job" {
  description = "The Cloud Run job of the batcher."
  value       = module.files2iceberg.batcher_job
}

output "batcher_service" {
  description = "The Cloud Run service of the batcher (batch serve; null without batcher_serve)."
  value       = module.files2iceberg.batcher_service
}

output "maintenance_job" {
  description = "The Cloud Run job of the scheduled maintenance (null when disabled)."
  value       = module.files2iceberg.maintenance_job
}

output "service_accounts" {
  description = "The deployment's service accounts."
  value       = module.files2iceberg.service_accounts
}
