# The listener: a Cloud Run service that Pub/Sub pushes to (push mode only; in pull mode the
# listener runs on GKE or a VM with FILES2ICEBERG_LISTENER_PULL_SUBSCRIPTION set).
resource "google_cloud_run_v2_service" "listener" {
  count = local.push ? 1 : 0

  project             = var.project_id
  name                = "${var.name}-listener"
  location            = var.region
  ingress             = var.listener_ingress
  deletion_protection = false
  # Pub/Sub's token carries this audience; Cloud Run accepts it for the invoker check, the
  # listener checks it again (listener.oidc-audience).
  custom_audiences = [local.oidc_audience]

  template {
    service_account                  = google_service_account.listener.email
    max_instance_request_concurrency = var.listener_concurrency
    execution_environment            = "EXECUTION_ENVIRONMENT_GEN2"
    # The listener finishes in-flight messages within 8 s of SIGTERM.
    timeout = "${var.ack_deadline_seconds}s"

    scaling {
      min_instance_count = var.listener_min_instances
      max_instance_count = var.listener_max_instances
    }

    containers {
      name  = "listener"
      image = var.listener_image

      # Pub/Sub's pushes, /health and /prometheus (scraped by the sidecar below).
      ports {
        container_port = 8080
      }

      env {
        name  = "FILES2ICEBERG_CONFIG"
        value = local.profiles_dir
      }
      env {
        name  = "FILES2ICEBERG_HOME"
        value = local.home_dir
      }
      env {
        name  = "GOOGLE_CLOUD_PROJECT"
        value = var.project_id
      }
      # A new profile set or deployment file rolls out a new revision.
      env {
        name  = "FILES2ICEBERG_PROFILES_VERSION"
        value = sha256(jsonencode([module.settings.profiles, module.settings.deployment_file]))
      }

      resources {
        limits = {
          cpu    = var.listener_cpu
          memory = var.listener_memory
        }
      }

      # Started = listening. /health is DOWN until Firestore accepts a write, which on a new
      # project waits for the database and for the datastore.user grant to propagate (minutes):
      # a startup probe on it would fail the first revision. The port alone starts the revision;
      # until the ledger answers, pushes get 5xx and Pub/Sub redelivers them.
      startup_probe {
        tcp_socket {
          port = 8080
        }
        period_seconds    = 5
        failure_threshold = 24
      }

      # The ledger check, with room for IAM propagation: restarted after 10 min of DOWN.
      liveness_probe {
        http_get {
          path = "/health"
        }
        period_seconds    = 60
        timeout_seconds   = 10
        failure_threshold = 10
      }

      volume_mounts {
        name       = "profiles"
        mount_path = local.profiles_dir
      }
    }

    # The Managed Service for Prometheus sidecar: scrapes the listener's /prometheus into Cloud
    # Monitoring, as its RunMonitoring config (monitoring.tf) says.
    dynamic "containers" {
      for_each = local.sidecar ? [1] : []

      content {
        name       = "collector"
        image      = var.prometheus_sidecar_image
        depends_on = ["listener"]

        volume_mounts {
          name       = "run-monitoring"
          mount_path = local.run_monitoring_dir
        }
      }
    }

    volumes {
      name = "profiles"
      gcs {
        bucket    = google_storage_bucket.config.name
        read_only = true
      }
    }

    dynamic "volumes" {
      for_each = local.sidecar ? [1] : []

      content {
        name = "run-monitoring"
        secret {
          secret = google_secret_manager_secret.run_monitoring[0].secret_id
          items {
            version = "latest"
            path    = "config.yaml"
          }
        }
      }
    }
  }

  depends_on = [
    google_project_service.apis,
    google_storage_bucket_object.profiles,
    google_storage_bucket_object.deployment,
    google_storage_bucket_iam_member.config_viewers,
    google_firestore_database.ledger,
    google_project_iam_member.ledger_users,
    google_secret_manager_secret_version.run_monitoring,
    google_secret_manager_secret_iam_member.sidecar_reads_config,
  ]
}

# With batcher_serve: the batcher as a service running `batch serve`, one instance with its CPU
# always allocated (it works between requests), exporting its metrics on /prometheus to the
# sidecar. It replaces the scheduled run-once job; maintenance and reconcile stay jobs.
resource "google_cloud_run_v2_service" "batcher" {
  count = var.batcher_serve ? 1 : 0

  project             = var.project_id
  name                = "${var.name}-batcher"
  location            = var.region
  ingress             = "INGRESS_TRAFFIC_INTERNAL_ONLY"
  deletion_protection = false

  template {
    service_account       = google_service_account.batcher.email
    execution_environment = "EXECUTION_ENVIRONMENT_GEN2"

    # One planner: the ledger's claims make a second one safe, but never faster.
    scaling {
      min_instance_count = 1
      max_instance_count = 1
    }

    containers {
      name  = "batcher"
      image = var.batcher_image
      args = [
        "batch", "serve",
        "--config", local.profiles_dir,
        "--concurrency", tostring(var.batcher_concurrency),
        "--job-timeout", "${local.batcher_job_timeout_seconds}s",
        "--interval", var.batcher_serve_interval,
        "--metrics-port", "8080",
        # Cloud Run reaches the container's port from outside its loopback.
        "--metrics-address", "0.0.0.0",
      ]

      ports {
        container_port = 8080
      }

      env {
        name  = "FILES2ICEBERG_HOME"
        value = local.home_dir
      }
      env {
        name  = "GOOGLE_CLOUD_PROJECT"
        value = var.project_id
      }
      env {
        name  = "FILES2ICEBERG_PROFILES_VERSION"
        value = sha256(jsonencode([module.settings.profiles, module.settings.deployment_file]))
      }

      resources {
        limits = {
          cpu    = var.batcher_cpu
          memory = var.batcher_memory
        }
        cpu_idle = false
      }

      volume_mounts {
        name       = "profiles"
        mount_path = local.profiles_dir
      }
    }

    dynamic "containers" {
      for_each = local.sidecar ? [1] : []

      content {
        name       = "collector"
        image      = var.prometheus_sidecar_image
        depends_on = ["batcher"]

        volume_mounts {
          name       = "run-monitoring"
          mount_path = local.run_monitoring_dir
        }
      }
    }

    volumes {
      name = "profiles"
      gcs {
        bucket    = google_storage_bucket.config.name
        read_only = true
      }
    }

    dynamic "volumes" {
      for_each = local.sidecar ? [1] : []

      content {
        name = "run-monitoring"
        secret {
          secret = google_secret_manager_secret.run_monitoring[0].secret_id
          items {
            version = "latest"
            path    = "config.yaml"
          }
        }
      }
    }
  }

  depends_on = [
    google_project_service.apis,
    google_storage_bucket_object.profiles,
    google_storage_bucket_object.deployment,
    google_storage_bucket_iam_member.config_viewers,
    google_firestore_database.ledger,
    google_project_iam_member.ledger_users,
    google_secret_manager_secret_version.run_monitoring,
    google_secret_manager_secret_iam_member.sidecar_reads_config,
  ]
}

# The jobs of the batcher image, started by Cloud Scheduler: `batch run-once`, `maintain` and
# `reconcile`. Jobs rather than services: each run does its work and exits, and no instance idles
# between runs (batcher_serve trades that for the batcher's metrics: the service above). All run as
# the batcher's account with the profiles mounted; only their command, timeout and schedule differ.
locals {
  # The scheduled maintain of every table and of each table with a schedule of its own:
  # maintenance_base_args, then the actions the maintenance_* variables turn on.
  maintenance_base_args = [
    "maintain",
    "--config", local.profiles_dir,
    "--retention", var.maintenance_retention,
    local.maintenance_compaction,
    "--timeout", "${local.maintenance_table_timeout_seconds}s",
  ]
  maintenance_action_args = concat(
    var.maintenance_sort ? ["--sort"] : [],
    var.maintenance_rewrite_position_deletes ? ["--rewrite-position-deletes"] : [],
    var.maintenance_rewrite_manifests ? ["--rewrite-manifests"] : [],
    var.maintenance_remove_orphan_files ? ["--remove-orphan-files", "--orphan-older-than", var.maintenance_orphan_older_than] : [],
  )
  maintenance_args = concat(local.maintenance_base_args, local.maintenance_action_args)

  batcher_image_jobs = {
    # run-once recovers, loads what is READY and exits once every batch it claimed is settled
    # (--wait: the execution fails when a batch did). No retries: the next scheduled run
    # recovers whatever a failed one left.
    batcher = {
      args = [
        "batch", "run-once", "--wait",
        "--config", local.profiles_dir,
        "--concurrency", tostring(var.batcher_concurrency),
        "--job-timeout", "${local.batcher_job_timeout_seconds}s",
      ]
      timeout_seconds = var.batcher_task_timeout_seconds
      schedule        = var.batcher_schedule
    }
    # maintain expires snapshots and compacts each table on Dataproc. No retries: a table with a
    # batch in flight is refused (exit 1) and an immediate retry would most likely be refused
    # again; the next scheduled run maintains it, and the other tables were maintained anyway.
    # The tables of maintenance_table_schedules are left to their own jobs (--skip-table).
    maintenance = {
      args = concat(local.maintenance_args, flatten([
        for table in keys(var.maintenance_table_schedules) : ["--skip-table", table]
      ]))
      timeout_seconds = var.maintenance_task_timeout_seconds
      schedule        = var.maintenance_schedule
    }
    # reconcile compares the bucket with the ledger ("designed for a schedule"): it exits 3 on
    # drift it did not fix, which fails the execution, and the failed-execution alert fires.
    reconcile = {
      args = concat([
        "reconcile",
        "--config", local.profiles_dir,
        "--stuck-after", var.reconcile_stuck_after,
      ], var.reconcile_fix ? ["--fix"] : [])
      timeout_seconds = var.reconcile_task_timeout_seconds
      schedule        = var.reconcile_schedule
    }
  }
  # Which of them run as scheduled jobs: run-once only without batcher_serve (the service runs
  # the planner then), the others when enabled.
  image_job_enabled = {
    batcher     = !var.batcher_serve
    maintenance = var.maintenance_enabled
    reconcile   = var.reconcile_enabled
  }
  # A table that lists storage (ingestion-type = full, save-checkpoint = false) runs only when it
  # is named, never as part of the run-once above: one job and schedule per entry of
  # listing_table_schedules, running `batch run-once --table`.
  listing_table_jobs = zipmap(
    [for table in keys(var.listing_table_schedules) : "table-${substr(sha1(table), 0, 10)}"],
    [for table in keys(var.listing_table_schedules) : {
      args = [
        "batch", "run-once", "--wait",
        "--config", local.profiles_dir,
        "--table", table,
        "--job-timeout", "${local.batcher_job_timeout_seconds}s",
      ]
      timeout_seconds = var.batcher_task_timeout_seconds
      schedule        = var.listing_table_schedules[table]
    }]
  )
  # A table of maintenance_table_schedules is maintained on its own schedule, with the same
  # actions, by a job of its own running `maintain --table` (when maintenance is enabled).
  maintenance_table_jobs = var.maintenance_enabled ? zipmap(
    [for table in keys(var.maintenance_table_schedules) : "maintain-${substr(sha1(table), 0, 10)}"],
    [for table in keys(var.maintenance_table_schedules) : {
      args            = concat(local.maintenance_args, ["--table", table])
      timeout_seconds = var.maintenance_task_timeout_seconds
      schedule        = var.maintenance_table_schedules[table]
    }]
  ) : {}
  image_jobs   = { for key, job in local.batcher_image_jobs : key => job if local.image_job_enabled[key] }
  batcher_jobs = merge(local.image_jobs, local.listing_table_jobs, local.maintenance_table_jobs)
}

resource "google_cloud_run_v2_job" "batcher" {
  for_each = local.batcher_jobs

  project             = var.project_id
  name                = "${var.name}-${each.key}"
  location            = var.region
  deletion_protection = false

  template {
    task_count  = 1
    parallelism = 1

    template {
      service_account       = google_service_account.batcher.email
      timeout               = "${each.value.timeout_seconds}s"
      max_retries           = 0
      execution_environment = "EXECUTION_ENVIRONMENT_GEN2"

      containers {
        image = var.batcher_image
        args  = each.value.args

        env {
          name  = "FILES2ICEBERG_HOME"
          value = local.home_dir
        }
        env {
          name  = "GOOGLE_CLOUD_PROJECT"
          value = var.project_id
        }
        env {
          name  = "FILES2ICEBERG_PROFILES_VERSION"
          value = sha256(jsonencode([module.settings.profiles, module.settings.deployment_file]))
        }

        resources {
          limits = {
            cpu    = var.batcher_cpu
            memory = var.batcher_memory
          }
        }

        volume_mounts {
          name       = "profiles"
          mount_path = local.profiles_dir
        }
      }

      volumes {
        name = "profiles"
        gcs {
          bucket    = google_storage_bucket.config.name
          read_only = true
        }
      }
    }
  }

  depends_on = [
    google_project_service.apis,
    google_storage_bucket_object.profiles,
    google_storage_bucket_object.deployment,
    google_storage_bucket_iam_member.config_viewers,
  ]
}

resource "google_cloud_scheduler_job" "batcher" {
  for_each = local.batcher_jobs

  project   = var.project_id
  region    = var.region
  name      = "${var.name}-${each.key}"
  schedule  = each.value.schedule
  time_zone = var.batcher_time_zone

  http_target {
    http_method = "POST"
    uri         = "https://run.googleapis.com/v2/projects/${var.project_id}/locations/${var.region}/jobs/${google_cloud_run_v2_job.batcher[each.key].name}:run"

    oauth_token {
      service_account_email = google_service_account.scheduler.email
      scope                 = "https://www.googleapis.com/auth/cloud-platform"
    }
  }

  depends_on = [google_project_service.apis, google_cloud_run_v2_job_iam_member.scheduler_runs_batcher]
}

# The batcher job and its schedule existed before the maintenance job: keep them in the state.
moved {
  from = google_cloud_run_v2_job.batcher
  to   = google_cloud_run_v2_job.batcher["batcher"]
}

moved {
  from = google_cloud_scheduler_job.batcher
  to   = google_cloud_scheduler_job.batcher["batcher"]
}
