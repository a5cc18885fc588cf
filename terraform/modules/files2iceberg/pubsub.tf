data "google_storage_project_service_account" "gcs" {
  project = var.project_id
}

resource "google_pubsub_topic" "notifications" {
  project = var.project_id
  name    = "${var.name}-notifications"

  depends_on = [google_project_service.apis]
}

# One notification config for the whole bucket: GCS allows 10 per event type per bucket, so all
# tables share it and the listener routes each object to its profile.
resource "google_storage_notification" "landing" {
  bucket             = var.landing_bucket
  topic              = google_pubsub_topic.notifications.id
  event_types        = ["OBJECT_FINALIZE"]
  payload_format     = "JSON_API_V1"
  object_name_prefix = var.notification_object_prefix

  depends_on = [google_pubsub_topic_iam_member.gcs_publishes_notifications]
}

resource "google_pubsub_topic" "dead_letter" {
  project = var.project_id
  name    = "${var.name}-dead-letter"

  depends_on = [google_project_service.apis]
}

# A topic keeps nothing by itself: this subscription holds the dead letters for an operator.
resource "google_pubsub_subscription" "dead_letter" {
  project                    = var.project_id
  name                       = "${var.name}-dead-letter"
  topic                      = google_pubsub_topic.dead_letter.id
  message_retention_duration = var.message_retention_duration
  ack_deadline_seconds       = 60

  expiration_policy {
    ttl = ""
  }
}

resource "google_pubsub_subscription" "notifications" {
  project                    = var.project_id
  name                       = "${var.name}-${var.subscription_type}"
  topic                      = google_pubsub_topic.notifications.id
  ack_deadline_seconds       = var.ack_deadline_seconds
  message_retention_duration = var.message_retention_duration

  retry_policy {
    minimum_backoff = var.retry_minimum_backoff
    maximum_backoff = var.retry_maximum_backoff
  }

  dead_letter_policy {
    dead_letter_topic     = google_pubsub_topic.dead_letter.id
    max_delivery_attempts = var.max_delivery_attempts
  }

  expiration_policy {
    ttl = ""
  }

  dynamic "push_config" {
    for_each = local.push ? [1] : []

    content {
      push_endpoint = "${google_cloud_run_v2_service.listener[0].uri}${var.push_path}"

      oidc_token {
        service_account_email = google_service_account.push.email
        audience              = local.oidc_audience
      }
    }
  }

  depends_on = [
    google_pubsub_topic_iam_member.pubsub_agent_dead_letters,
    google_service_account_iam_member.pubsub_agent_mints_push_tokens,
    google_cloud_run_v2_service_iam_member.push_invokes_listener,
  ]
}

# Change events (events.pubsub-topic): one message per commit, rollback and dropped partition,
# published by the batcher from the ledger's outbox, at least once. Subscribers are the consumers'.
resource "google_pubsub_topic" "change_events" {
  count   = var.change_events_topic == "" ? 0 : 1
  project = var.project_id
  name    = var.change_events_topic

  depends_on = [google_project_service.apis]
}

resource "google_pubsub_topic_iam_member" "batcher_publishes_change_events" {
  count   = var.change_events_topic == "" ? 0 : 1
  project = var.project_id
  topic   = google_pubsub_topic.change_events[0].name
  role    = "roles/pubsub.publisher"
  member  = "serviceAccount:${google_service_account.batcher.email}"
}
