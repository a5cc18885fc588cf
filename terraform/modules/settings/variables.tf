variable "tables" {
  description = "Table profiles by profile name: the HOCON text of each table's own keys (extract.*, transform.*, load.*). The deployment settings below are appended to each."
  type        = map(string)
}

variable "project_id" {
  description = "Google Cloud project of the Firestore ledger."
  type        = string
}

variable "firestore_database" {
  description = "Firestore database id of the ledger (ledger.firestore-database)."
  type        = string
}

variable "collection_prefix" {
  description = "Prefix of every ledger collection name (ledger.collection-prefix)."
  type        = string
}

variable "firestore_indexes_file" {
  description = "The ledger's declared index file (Firebase firestore.indexes.json format)."
  type        = string
}

variable "metadata_bucket" {
  description = "Bucket of the batch manifests: each profile's metadata.path is gs://<bucket>/metadata/<profile>/."
  type        = string
}

variable "push_path" {
  description = "Path of the listener's push endpoint (listener.push-path)."
  type        = string
}

variable "list_prefix_on_marker" {
  description = "listener.list-prefix-on-marker: list a partition's folder when its marker arrives."
  type        = bool
}

variable "push" {
  description = "Whether Pub/Sub pushes to the listener: then it checks the push tokens (listener.oidc-audience, listener.oidc-service-account); a pulling listener checks none."
  type        = bool
}

variable "oidc_audience" {
  description = "Audience the push requests' OIDC tokens carry (listener.oidc-audience when push)."
  type        = string
}

variable "oidc_service_account" {
  description = "Service account the push tokens belong to (listener.oidc-service-account when push)."
  type        = string
}

variable "dataproc_region" {
  description = "Region of the Dataproc Serverless batches (job.dataproc-region)."
  type        = string
}

variable "dataproc_runtime_version" {
  description = "Dataproc Serverless runtime version (job.runtime-version)."
  type        = string
}

variable "dataproc_subnetwork" {
  description = "Subnetwork URI of the Dataproc batches (job.subnetwork); null: Dataproc's default."
  type        = string
  default     = null
}

variable "job_service_account" {
  description = "Email of the service account the Dataproc batches run as (job.service-account)."
  type        = string
}

variable "job_jar_uri" {
  description = "gs:// URI of the Spark job's shaded -all.jar (job.jar-uri)."
  type        = string
}

variable "catalog" {
  description = "The Iceberg REST catalog (BigLake): catalog.uri, catalog.warehouse, catalog.user-project, catalog.vended-credentials, catalog.properties."
  type = object({
    uri                = string
    warehouse          = string
    user_project       = string
    vended_credentials = bool
    properties         = map(string)
  })
}

variable "change_events_topic" {
  description = "Pub/Sub topic of the change events, projects/<project>/topics/<topic> (events.pubsub-topic); empty: none, the batcher writes them to its home."
  type        = string
  default     = ""
}
