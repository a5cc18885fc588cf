# Metrics and alerts. The listener (and the batcher service, with batcher_serve) serve /prometheus;
# the Managed Service for Prometheus sidecar of each scrapes it into Cloud Monitoring, as the
# RunMonitoring config below says. Cloud Run's own metrics (request counts, job executions) and
# Pub/Sub's need nothing of ours.
locals {
  sidecar = var.prometheus_sidecar_image != ""
  # Where the sidecar reads its RunMonitoring config (config.yaml).
  run_monitoring_dir = "/etc/rungmp"
  run_monitoring = yamlencode({
    apiVersion = "monitoring.googleapis.com/v1beta"
    kind       = "RunMonitoring"
    metadata   = { name = var.name }
    spec = {
      endpoints = [{ port = "8080", path = "/prometheus", interval = var.prometheus_scrape_interval }]
    }
  })
  # The accounts whose services run the sidecar.
  sidecar_accounts = local.sidecar ? {
    listener = google_service_account.listener.email
    batcher  = google_service_account.batcher.email
  } : {}
}

resource "google_secret_manager_secret" "run_monitoring" {
  count = local.sidecar ? 1 : 0

  project   = var.project_id
  secret_id = "${var.name}-run-monitoring"

  # auto replication may place replicas anywhere, which a resource-location policy refuses.
  replication {
    dynamic "auto" {
      for_each = length(var.secret_replication_locations) == 0 ? [1] : []
      content {}
    }
    dynamic "user_managed" {
      for_each = length(var.secret_replication_locations) == 0 ? [] : [1]
      content {
        dynamic "replicas" {
          for_each = var.secret_replication_locations
          content {
            location = replicas.value
          }
        }
      }
    }
  }

  depends_on = [google_project_service.apis]
}

resource "google_secret_manager_secret_version" "run_monitoring" {
  count = local.sidecar ? 1 : 0

  secret      = google_secret_manager_secret.run_monitoring[0].id
  secret_data = local.run_monitoring
}

resource "google_secret_manager_secret_iam_member" "sidecar_reads_config" {
  for_each = local.sidecar_accounts

  project   = var.project_id
  secret_id = google_secret_manager_secret.run_monitoring[0].secret_id
  role      = "roles/secretmanager.secretAccessor"
  member    = "serviceAccount:${each.value}"
}

# Metrics have no resource-level IAM: the sidecar writes with its service's account.
resource "google_project_iam_member" "sidecar_writes_metrics" {
  for_each = local.sidecar_accounts

  project = var.project_id
  role    = "roles/monitoring.metricWriter"
  member  = "serviceAccount:${each.value}"
}

# --- Alert policies; each notifies alert_notification_channels.

# The listener answers 5xx when the ledger or storage fails: Pub/Sub redelivers, but a lasting
# ratio means nothing is being recorded.
resource "google_monitoring_alert_policy" "listener_5xx" {
  count = local.push ? 1 : 0

  project               = var.project_id
  display_name          = "${var.name}: listener 5xx ratio above ${var.alert_listener_5xx_ratio}"
  combiner              = "OR"
  notification_channels = var.alert_notification_channels

  conditions {
    display_name = "5xx replies / all replies of ${var.name}-listener"

    condition_threshold {
      filter             = "metric.type = \"run.googleapis.com/request_count\" AND resource.type = \"cloud_run_revision\" AND resource.label.service_name = \"${google_cloud_run_v2_service.listener[0].name}\" AND metric.label.response_code_class = \"5xx\""
      denominator_filter = "metric.type = \"run.googleapis.com/request_count\" AND resource.type = \"cloud_run_revision\" AND resource.label.service_name = \"${google_cloud_run_v2_service.listener[0].name}\""
      comparison         = "COMPARISON_GT"
      threshold_value    = var.alert_listener_5xx_ratio
      duration           = var.alert_window

      aggregations {
        alignment_period     = var.alert_window
        per_series_aligner   = "ALIGN_RATE"
        cross_series_reducer = "REDUCE_SUM"
      }

      denominator_aggregations {
        alignment_period     = var.alert_window
        per_series_aligner   = "ALIGN_RATE"
        cross_series_reducer = "REDUCE_SUM"
      }
    }
  }

  documentation {
    content   = "The listener replies 5xx (Pub/Sub redelivers) when the ledger or storage fails. Its JSON logs say why: severity>=WARNING in the service's logs, labels table and object_uri."
    mime_type = "text/markdown"
  }

  depends_on = [google_project_service.apis]
}

# A message lands in the dead-letter topic after max_delivery_attempts failed deliveries: it was
# never recorded, and waits for an operator in the dead-letter subscription.
resource "google_monitoring_alert_policy" "dead_letters" {
  project               = var.project_id
  display_name          = "${var.name}: dead-lettered notifications waiting"
  combiner              = "OR"
  notification_channels = var.alert_notification_channels

  conditions {
    display_name = "Messages in ${google_pubsub_subscription.dead_letter.name}"

    condition_threshold {
      filter          = "metric.type = \"pubsub.googleapis.com/subscription/num_undelivered_messages\" AND resource.type = \"pubsub_subscription\" AND resource.label.subscription_id = \"${google_pubsub_subscription.dead_letter.name}\""
      comparison      = "COMPARISON_GT"
      threshold_value = 0
      duration        = "60s"

      aggregations {
        alignment_period   = "60s"
        per_series_aligner = "ALIGN_MAX"
      }
    }
  }

  documentation {
    content   = "Notifications the listener failed on max_delivery_attempts times are in the dead-letter subscription: their files are not in the ledger. Fix the cause, then replay them (or run reconcile --fix)."
    mime_type = "text/markdown"
  }

  depends_on = [google_project_service.apis]
}

# A scheduled job of the batcher image failed: run-once with a FAILED batch (exit 1), reconcile
# with drift it did not fix (exit 3), maintain refused or failed, a configuration error (exit 2).
resource "google_monitoring_alert_policy" "job_failed" {
  project               = var.project_id
  display_name          = "${var.name}: a batcher job execution failed"
  combiner              = "OR"
  notification_channels = var.alert_notification_channels

  conditions {
    display_name = "Failed executions of the ${var.name}-* jobs"

    condition_threshold {
      filter          = "metric.type = \"run.googleapis.com/job/completed_execution_count\" AND resource.type = \"cloud_run_job\" AND resource.label.job_name = starts_with(\"${var.name}-\") AND metric.label.result = \"failed\""
      comparison      = "COMPARISON_GT"
      threshold_value = 0
      duration        = "0s"

      aggregations {
        alignment_period     = var.alert_window
        per_series_aligner   = "ALIGN_DELTA"
        cross_series_reducer = "REDUCE_SUM"
        group_by_fields      = ["resource.label.job_name"]
      }
    }
  }

  documentation {
    content   = "A job of the batcher image failed. Its logs name the table and batch (labels table, batch_id); `files2iceberg status` shows FAILED partitions and batches, `retry` runs them again."
    mime_type = "text/markdown"
  }

  depends_on = [google_project_service.apis]
}

# With batcher_serve, from the batcher's own metrics (files2iceberg_batcher_*, docs/reference/metrics.md).
resource "google_monitoring_alert_policy" "oldest_ready_partition" {
  count = var.batcher_serve && local.sidecar ? 1 : 0

  project               = var.project_id
  display_name          = "${var.name}: a READY partition waits longer than ${var.alert_oldest_ready_seconds}s"
  combiner              = "OR"
  notification_channels = var.alert_notification_channels

  conditions {
    display_name = "files2iceberg_batcher_oldest_ready_partition_age_seconds above ${var.alert_oldest_ready_seconds}"

    condition_prometheus_query_language {
      query               = "max by (table) (files2iceberg_batcher_oldest_ready_partition_age_seconds) > ${var.alert_oldest_ready_seconds}"
      duration            = var.alert_window
      evaluation_interval = "60s"
    }
  }

  documentation {
    content   = "Loadable data waits: the batcher is down, or its batches keep failing on this table. `files2iceberg status` shows the table's partitions and batches."
    mime_type = "text/markdown"
  }

  depends_on = [google_project_service.apis]
}

resource "google_monitoring_alert_policy" "batches_failed" {
  count = var.batcher_serve && local.sidecar ? 1 : 0

  project               = var.project_id
  display_name          = "${var.name}: batches FAILED"
  combiner              = "OR"
  notification_channels = var.alert_notification_channels

  conditions {
    display_name = "files2iceberg_batcher_batches_total{outcome=\"failed\"} increased"

    condition_prometheus_query_language {
      query               = "sum by (table) (increase(files2iceberg_batcher_batches_total{outcome=\"failed\"}[${var.alert_window}])) > 0"
      duration            = "0s"
      evaluation_interval = "60s"
    }
  }

  documentation {
    content   = "A batch did not commit. The batcher's logs carry the table and batch id (labels table, batch_id); `files2iceberg status` and `inspect` show the error, `retry` runs it again."
    mime_type = "text/markdown"
  }

  depends_on = [google_project_service.apis]
}
