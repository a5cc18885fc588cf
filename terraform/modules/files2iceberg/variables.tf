variable "project_id" {
  description = "Google Cloud project everything is created in."
  type        = string
}

variable "region" {
  description = "Region of Cloud Run, Cloud Scheduler and (by default) Dataproc and Firestore."
  type        = string
}

variable "name" {
  description = "Prefix of every resource name (topics, subscription, services, service accounts, buckets)."
  type        = string
  default     = "files2iceberg"

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{1,16}$", var.name))
    error_message = "name: 2 to 17 lower-case letters, digits or hyphens, starting with a letter (service account ids are at most 30 characters)."
  }
}

variable "landing_bucket" {
  description = "Existing bucket the files land in: gets the one notification config, and object viewer for the listener, the batcher and the job."
  type        = string
}

variable "landing_cleanup" {
  description = "Grant the batcher roles/storage.objectUser on the landing bucket (and on landing_archive_bucket) so that maintain can delete or move loaded objects: true when some profile sets load.after-ingest.action = delete or move. Terraform cannot read the profiles, so this is not derived from them; without it the cleanup's deletes fail with 403 and maintain exits 1."
  type        = bool
  default     = false
}

variable "landing_archive_bucket" {
  description = "With landing_cleanup, the bucket of load.after-ingest.move-to when it is not the landing bucket: the batcher gets roles/storage.objectUser on it (the copies) and the job roles/storage.objectViewer (a rollback reads them). null: no archive bucket of its own."
  type        = string
  default     = null
}

variable "notification_object_prefix" {
  description = "Only objects whose name starts with this prefix are notified; null: the whole bucket."
  type        = string
  default     = null
}

variable "warehouse_bucket" {
  description = "Existing bucket of the Iceberg warehouse: object admin for the Spark job."
  type        = string
}

variable "tables" {
  description = "Table profiles by profile name: the HOCON text of each table's own keys (extract.*, transform.*, load.*); catalog.* and metadata.path are appended by the module, and ledger.*, listener.* and job.* go to the one deployment.conf it writes beside the profiles."
  type        = map(string)

  validation {
    condition     = length(var.tables) > 0 && alltrue([for name in keys(var.tables) : can(regex("^[A-Za-z0-9_-]+$", name))])
    error_message = "tables: at least one profile, each named with letters, digits, _ or - (the name becomes <name>.conf)."
  }
}

variable "listener_image" {
  description = "Container image of the listener (deploy/docker/listener.Dockerfile), in Artifact Registry."
  type        = string
}

variable "batcher_image" {
  description = "Container image of the batcher (deploy/docker/batcher.Dockerfile), in Artifact Registry."
  type        = string
}

variable "job_jar_uri" {
  description = "gs:// URI of the uploaded Spark job jar (spark-job/target/files2iceberg-spark-job-<version>-all.jar): job.jar-uri."
  type        = string

  validation {
    condition     = can(regex("^gs://[^/]+/.+\\.jar$", var.job_jar_uri))
    error_message = "job_jar_uri: a gs://bucket/path.jar URI."
  }
}

variable "dataproc_region" {
  description = "Region of the Dataproc Serverless batches (job.dataproc-region); null: var.region."
  type        = string
  default     = null
}

variable "dataproc_runtime_version" {
  description = "Dataproc Serverless runtime version (job.runtime-version)."
  type        = string
  default     = "2.3"
}

variable "dataproc_subnetwork" {
  description = "Subnetwork URI of the Dataproc batches (job.subnetwork); its network needs a firewall rule allowing internal ingress on all ports. null: the project's default network, which must then exist (a project under constraints/compute.skipDefaultNetworkCreation has none: set this)."
  type        = string
  default     = null
}

variable "catalog_uri" {
  description = "Iceberg REST catalog endpoint (catalog.uri)."
  type        = string
  default     = "https://biglake.googleapis.com/iceberg/v1/restcatalog"
}

variable "catalog_warehouse" {
  description = "Catalog warehouse (catalog.warehouse); null: gs://<warehouse_bucket>."
  type        = string
  default     = null
}

variable "catalog_user_project" {
  description = "Project billed for catalog calls (catalog.user-project); null: var.project_id."
  type        = string
  default     = null
}

variable "catalog_vended_credentials" {
  description = "Ask the catalog for vended credentials (catalog.vended-credentials)."
  type        = bool
  default     = false
}

variable "catalog_service_account" {
  description = "Email of the BigLake catalog's own service account (gcloud biglake iceberg catalogs describe: biglake-service-account); set with catalog_vended_credentials, it gets roles/storage.objectUser on the warehouse bucket. null: no grant."
  type        = string
  default     = null
}

variable "catalog_properties" {
  description = "Further catalog properties, passed as they are (catalog.properties)."
  type        = map(string)
  default     = {}
}

variable "create_firestore_database" {
  description = "Create the Firestore database (native mode); false when it exists already."
  type        = bool
  default     = true
}

variable "firestore_database" {
  description = "Firestore database id of the ledger (ledger.firestore-database)."
  type        = string
  default     = "(default)"
}

variable "firestore_location" {
  description = "Location of a created Firestore database (a region, or nam5/eur3); null: var.region."
  type        = string
  default     = null
}

variable "collection_prefix" {
  description = "Prefix of every ledger collection (ledger.collection-prefix), so environments can share a database; the indexes are created on the prefixed collections."
  type        = string
  default     = ""
}

variable "subscription_type" {
  description = "push: a push subscription to the Cloud Run listener; pull: a pull subscription for a listener on GKE or a VM (no Cloud Run listener is created)."
  type        = string
  default     = "push"

  validation {
    condition     = contains(["push", "pull"], var.subscription_type)
    error_message = "subscription_type: push or pull."
  }
}

variable "push_path" {
  description = "Path of the listener's push endpoint (listener.push-path)."
  type        = string
  default     = "/pubsub/push"

  validation {
    condition     = startswith(var.push_path, "/")
    error_message = "push_path: starts with /."
  }
}

variable "oidc_audience" {
  description = "Audience of the push OIDC tokens: the subscription's audience, the listener's listener.oidc-audience and a Cloud Run custom audience; null: <project_id>/<name>-listener."
  type        = string
  default     = null
}

variable "list_prefix_on_marker" {
  description = "listener.list-prefix-on-marker: list a partition's folder when its marker arrives."
  type        = bool
  default     = true
}

variable "ack_deadline_seconds" {
  description = "Subscription ack deadline and the listener's request timeout: longer than its slowest reply (a marker's listing of a large folder). 600 is Google's advice for push to Cloud Run."
  type        = number
  default     = 600
}

variable "retry_minimum_backoff" {
  description = "Subscription retry policy: the first redelivery delay."
  type        = string
  default     = "10s"
}

variable "retry_maximum_backoff" {
  description = "Subscription retry policy: the longest redelivery delay."
  type        = string
  default     = "600s"
}

variable "message_retention_duration" {
  description = "How long the subscription and the dead-letter subscription keep unacked messages."
  type        = string
  default     = "604800s"
}

variable "max_delivery_attempts" {
  description = "Deliveries of a message before it goes to the dead-letter topic (5 to 100)."
  type        = number
  default     = 10

  validation {
    condition     = var.max_delivery_attempts >= 5 && var.max_delivery_attempts <= 100
    error_message = "max_delivery_attempts: 5 to 100 (Pub/Sub's limits)."
  }
}

variable "listener_min_instances" {
  description = "Cloud Run minimum instances of the listener."
  type        = number
  default     = 0
}

variable "listener_max_instances" {
  description = "Cloud Run maximum instances of the listener (bounds the ledger's write rate)."
  type        = number
  default     = 10
}

variable "listener_concurrency" {
  description = "Concurrent requests per listener instance."
  type        = number
  default     = 80
}

variable "listener_cpu" {
  description = "CPU limit of a listener instance."
  type        = string
  default     = "1"
}

variable "listener_memory" {
  description = "Memory limit of a listener instance."
  type        = string
  default     = "1Gi"
}

variable "listener_ingress" {
  description = "Cloud Run ingress of the listener: INGRESS_TRAFFIC_INTERNAL_ONLY (Pub/Sub push of the same project counts as internal; allowed under constraints/run.allowedIngress = internal), or INGRESS_TRAFFIC_ALL."
  type        = string
  default     = "INGRESS_TRAFFIC_INTERNAL_ONLY"

  validation {
    condition     = contains(["INGRESS_TRAFFIC_ALL", "INGRESS_TRAFFIC_INTERNAL_ONLY", "INGRESS_TRAFFIC_INTERNAL_LOAD_BALANCER"], var.listener_ingress)
    error_message = "listener_ingress: INGRESS_TRAFFIC_ALL, INGRESS_TRAFFIC_INTERNAL_ONLY or INGRESS_TRAFFIC_INTERNAL_LOAD_BALANCER."
  }
}

variable "batcher_schedule" {
  description = "Cloud Scheduler cron of the batcher's run-once job."
  type        = string
  default     = "*/10 * * * *"
}

variable "listing_table_schedules" {
  description = "Cloud Scheduler cron by Iceberg table (catalog.namespace.table) for the tables that list storage (ingestion-type = full, save-checkpoint = false): batch run-once skips them, so each runs on its own schedule with batch run-once --table."
  type        = map(string)
  default     = {}
}

variable "batcher_time_zone" {
  description = "Time zone of batcher_schedule, maintenance_schedule and the crons of listing_table_schedules and maintenance_table_schedules."
  type        = string
  default     = "Etc/UTC"
}

variable "batcher_task_timeout_seconds" {
  description = "Cloud Run job task timeout of one batcher run; the batcher's --job-timeout is 5 minutes less."
  type        = number
  default     = 3600

  validation {
    condition     = var.batcher_task_timeout_seconds >= 600
    error_message = "batcher_task_timeout_seconds: at least 600."
  }
}

variable "batcher_concurrency" {
  description = "Tables that run a job at the same time (the batcher's --concurrency)."
  type        = number
  default     = 4
}

variable "batcher_cpu" {
  description = "CPU limit of the batcher's task."
  type        = string
  default     = "1"
}

variable "batcher_memory" {
  description = "Memory limit of the batcher's task."
  type        = string
  default     = "1Gi"
}

variable "maintenance_enabled" {
  description = "Create the maintenance job (maintain: snapshot expiry and compaction of every table) and its schedule."
  type        = bool
  default     = true
}

variable "maintenance_schedule" {
  description = "Cloud Scheduler cron of the maintenance job, in batcher_time_zone: best at a quiet hour, when few batches are in flight."
  type        = string
  default     = "0 3 * * *"
}

variable "maintenance_retention" {
  description = "maintain --retention: snapshots younger than this are kept (7d, 12h, 0); the snapshots exactly-once needs are kept whatever their age."
  type        = string
  default     = "7d"

  validation {
    condition     = can(regex("^(0|[0-9]+ ?[a-z]+)$", var.maintenance_retention))
    error_message = "maintenance_retention: a duration with a unit such as 7d, 12h or 30m, or 0."
  }
}

variable "maintenance_compact" {
  description = "maintain --compact: rewrite small data files before expiring snapshots; false: --no-compact (expiry only)."
  type        = bool
  default     = true
}

variable "maintenance_table_schedules" {
  description = "Cloud Scheduler cron by Iceberg table (catalog.namespace.table) for tables maintained on a schedule of their own, with the same actions: each gets a job running maintain --table, and the maintenance job (maintenance_schedule, the default for every other table) skips it."
  type        = map(string)
  default     = {}
}

variable "maintenance_sort" {
  description = "maintain --sort: rewrite data files in each table's order (its profile's maintain.sort-by or maintain.z-order-by, else the table's sort order) instead of binpack; a table with no order is reported and compacted."
  type        = bool
  default     = false
}

variable "maintenance_rewrite_position_deletes" {
  description = "maintain --rewrite-position-deletes: merge the position delete files of merge-on-read tables (rewrite_position_delete_files)."
  type        = bool
  default     = true
}

variable "maintenance_rewrite_manifests" {
  description = "maintain --rewrite-manifests: regroup each table's data manifests by partition (rewrite_manifests)."
  type        = bool
  default     = true
}

variable "maintenance_remove_orphan_files" {
  description = "maintain --remove-orphan-files: delete the files under each table's location that no snapshot references and that are older than maintenance_orphan_older_than (remove_orphan_files)."
  type        = bool
  default     = true
}

variable "maintenance_orphan_older_than" {
  description = "maintain --orphan-older-than: only files older than this are removed as orphans; at least 1d (maintain refuses less), far beyond the longest batch job."
  type        = string
  default     = "3d"

  validation {
    condition     = can(regex("^[0-9]+ ?(d|h)$", var.maintenance_orphan_older_than)) && try(tonumber(regex("^[0-9]+", var.maintenance_orphan_older_than)) * (endswith(var.maintenance_orphan_older_than, "h") ? 1 : 24) >= 24, false)
    error_message = "maintenance_orphan_older_than: a duration in days or hours such as 3d or 36h, at least 1d."
  }
}

variable "maintenance_task_timeout_seconds" {
  description = "Cloud Run job task timeout of one maintenance run (the tables are maintained one after another); one table's maintain --timeout is 5 minutes less."
  type        = number
  default     = 14400

  validation {
    condition     = var.maintenance_task_timeout_seconds >= 600 && var.maintenance_task_timeout_seconds <= 86400
    error_message = "maintenance_task_timeout_seconds: 600 to 86400 (Cloud Run's limit of 24 hours)."
  }
}

# --- Reconcile: the bucket against the ledger, on a schedule

variable "reconcile_enabled" {
  description = "Create the reconcile job (reconcile: the bucket against the ledger; exits 3, a failed execution, on drift it did not fix) and its schedule."
  type        = bool
  default     = true
}

variable "reconcile_schedule" {
  description = "Cloud Scheduler cron of the reconcile job, in batcher_time_zone."
  type        = string
  default     = "30 * * * *"
}

variable "reconcile_stuck_after" {
  description = "reconcile --stuck-after: a partition READY for longer is reported stuck (90s, 30m, 6h)."
  type        = string
  default     = "6h"

  validation {
    condition     = can(regex("^[0-9]+(ms|s|m|h|d)$", var.reconcile_stuck_after))
    error_message = "reconcile_stuck_after: a duration with a unit such as 90s, 30m or 6h."
  }
}

variable "reconcile_fix" {
  description = "reconcile --fix: record the data files and markers no notification recorded, as if notified (the run still fails, for the alert, on files gone from the bucket and partitions stuck READY, which it never fixes); false: report only (the run fails on any drift)."
  type        = bool
  default     = false
}

variable "reconcile_task_timeout_seconds" {
  description = "Cloud Run job task timeout of one reconcile run (it lists every partition folder of every table)."
  type        = number
  default     = 3600

  validation {
    condition     = var.reconcile_task_timeout_seconds >= 60 && var.reconcile_task_timeout_seconds <= 86400
    error_message = "reconcile_task_timeout_seconds: 60 to 86400 (Cloud Run's limit of 24 hours)."
  }
}

# --- Observability: APIs, metrics, alerts

variable "enable_apis" {
  description = "Enable the Google APIs the deployment uses (google_project_service, never disabled on destroy); false when a project's APIs are managed elsewhere."
  type        = bool
  default     = true
}

variable "batcher_serve" {
  description = "Run the batcher as a Cloud Run service (batch serve, one instance, CPU always allocated) that exports its metrics on /prometheus through the Managed Service for Prometheus sidecar, instead of the scheduled run-once job. The alerts on the oldest READY partition and on FAILED batches read those metrics, so they exist only then; with the scheduled job, a failed run-once execution alerts instead."
  type        = bool
  default     = false
}

variable "batcher_serve_interval" {
  description = "batch serve --interval: time from the end of one run to the start of the next (30s, 5m)."
  type        = string
  default     = "60s"
}

variable "prometheus_sidecar_image" {
  description = "Image of the Managed Service for Prometheus sidecar that scrapes /prometheus of the listener (and of the batcher service) into Cloud Monitoring; empty: no sidecar."
  type        = string
  default     = "us-docker.pkg.dev/cloud-ops-agents-artifacts/cloud-run-gmp-sidecar/cloud-run-gmp-sidecar:1.2.0"
}

variable "secret_replication_locations" {
  description = "Regions of the sidecar's RunMonitoring secret (user-managed replication), for a project under a resource-location policy (constraints/gcp.resourceLocations); empty: automatic replication."
  type        = list(string)
  default     = []
}

variable "prometheus_scrape_interval" {
  description = "How often the sidecar scrapes /prometheus (RunMonitoring interval)."
  type        = string
  default     = "30s"
}

variable "alert_notification_channels" {
  description = "Cloud Monitoring notification channel ids (projects/P/notificationChannels/N) every alert policy notifies; empty: the alerts show in the console only."
  type        = list(string)
  default     = []
}

variable "alert_oldest_ready_seconds" {
  description = "Alert when a table's oldest READY partition has waited longer than this many seconds (files2iceberg_batcher_oldest_ready_partition_age_seconds; needs batcher_serve)."
  type        = number
  default     = 3600
}

variable "alert_listener_5xx_ratio" {
  description = "Alert when more than this fraction of the listener's requests get a 5xx reply over alert_window (Pub/Sub redelivers them; a lasting ratio means the ledger or storage is failing)."
  type        = number
  default     = 0.05

  validation {
    condition     = var.alert_listener_5xx_ratio > 0 && var.alert_listener_5xx_ratio <= 1
    error_message = "alert_listener_5xx_ratio: a fraction above 0, at most 1."
  }
}

variable "alert_window" {
  description = "How long a condition must hold before an alert opens, and the window of the rates it compares (a duration in seconds such as 300s)."
  type        = string
  default     = "300s"

  validation {
    condition     = can(regex("^[0-9]+s$", var.alert_window))
    error_message = "alert_window: seconds with the unit s, such as 300s."
  }
}

variable "change_events_topic" {
  description = "Name of a Pub/Sub topic to create for change events (one message per commit, rollback and dropped partition, at least once, deduplicated by its eventId attribute): the batcher publishes to it (events.pubsub-topic). Empty: no topic; the batcher keeps the events in its home."
  type        = string
  default     = ""
}
