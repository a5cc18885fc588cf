variable "project_id" {
  description = "Google Cloud project to deploy into."
  type        = string
}

variable "region" {
  description = "Region of Cloud Run, Cloud Scheduler, Dataproc Serverless and Firestore."
  type        = string
}

variable "name" {
  description = "Prefix of every resource name."
  type        = string
  default     = "files2iceberg"
}

variable "landing_bucket" {
  description = "Existing bucket the files land in."
  type        = string
}

variable "notification_object_prefix" {
  description = "Notify only objects under this prefix; null: the whole bucket."
  type        = string
  default     = null
}

variable "warehouse_bucket" {
  description = "Existing bucket of the Iceberg warehouse."
  type        = string
}

variable "profiles_dir" {
  description = "Folder (relative to this configuration) of the table profiles, one <name>.conf per table."
  type        = string
  default     = "profiles"
}

variable "listener_image" {
  description = "Listener image in Artifact Registry."
  type        = string
}

variable "batcher_image" {
  description = "Batcher image in Artifact Registry."
  type        = string
}

variable "job_jar_uri" {
  description = "gs:// URI of the uploaded Spark job jar."
  type        = string
}

variable "dataproc_runtime_version" {
  description = "Dataproc Serverless runtime version."
  type        = string
  default     = "2.3"
}

variable "dataproc_subnetwork" {
  description = "Subnetwork URI of the Dataproc batches (its network needs a firewall rule allowing internal ingress on all ports); null: the default network, which must exist."
  type        = string
  default     = null
}

variable "catalog_uri" {
  description = "Iceberg REST catalog endpoint."
  type        = string
  default     = "https://biglake.googleapis.com/iceberg/v1/restcatalog"
}

variable "catalog_warehouse" {
  description = "Catalog warehouse; null: gs://<warehouse_bucket>."
  type        = string
  default     = null
}

variable "catalog_vended_credentials" {
  description = "Ask the catalog for vended credentials."
  type        = bool
  default     = false
}

variable "catalog_service_account" {
  description = "The catalog's own service account (biglake-service-account of gcloud biglake iceberg catalogs describe); with vended credentials it needs roles/storage.objectUser on the warehouse bucket. null: no grant."
  type        = string
  default     = null
}

variable "create_firestore_database" {
  description = "Create the Firestore database; false when it exists."
  type        = bool
  default     = true
}

variable "firestore_database" {
  description = "Firestore database id of the ledger."
  type        = string
  default     = "(default)"
}

variable "collection_prefix" {
  description = "Prefix of the ledger's collections."
  type        = string
  default     = ""
}

variable "subscription_type" {
  description = "push (Cloud Run listener) or pull (listener on GKE or a VM)."
  type        = string
  default     = "push"
}

variable "batcher_schedule" {
  description = "Cron schedule of the batcher."
  type        = string
  default     = "*/10 * * * *"
}

variable "maintenance_enabled" {
  description = "Schedule table maintenance (maintain: snapshot expiry and compaction)."
  type        = bool
  default     = true
}

variable "maintenance_schedule" {
  description = "Cron schedule of the maintenance job (UTC): a quiet hour."
  type        = string
  default     = "0 3 * * *"
}

variable "maintenance_retention" {
  description = "Snapshots younger than this are kept (maintain --retention)."
  type        = string
  default     = "7d"
}

variable "maintenance_compact" {
  description = "Compact small data files during maintenance (maintain --compact)."
  type        = bool
  default     = true
}
