# What the deployment writes, computed without any provider: the table profiles and the one
# deployment file (deployment.conf, beside them) the listener and the batcher read, and the
# ledger's Firestore indexes. Being provider-free, it can be evaluated
# (terraform init + apply) where the Google provider cannot be downloaded, which the deploy
# module's tests do.

locals {
  # The deployment file's keys exactly as core's DeploymentKeys spells them: one ledger, one
  # listener and one job setting for every table; events only with a topic.
  deployment = merge(local.base_deployment, local.events)

  events = {
    for section, keys in { events = { "pubsub-topic" = var.change_events_topic } } : section => keys
    if var.change_events_topic != ""
  }

  base_deployment = {
    ledger = {
      "type"               = "firestore"
      "firestore-project"  = var.project_id
      "firestore-database" = var.firestore_database
      "collection-prefix"  = var.collection_prefix
    }
    listener = {
      "push-path"             = var.push_path
      "list-prefix-on-marker" = var.list_prefix_on_marker
      "oidc-audience"         = var.push ? var.oidc_audience : null
      "oidc-service-account"  = var.push ? var.oidc_service_account : null
    }
    job = {
      "dataproc-region" = var.dataproc_region
      "runtime-version" = var.dataproc_runtime_version
      "service-account" = var.job_service_account
      "subnetwork"      = var.dataproc_subnetwork
      "jar-uri"         = var.job_jar_uri
    }
  }

  # Table keys every profile gets, exactly as core's ProfileKeys spells them. HOCON merges a later
  # object into an earlier one, so these settings, appended after the table's own text, win over it.
  table_settings = {
    catalog = {
      "type"               = "rest"
      "uri"                = var.catalog.uri
      "warehouse"          = var.catalog.warehouse
      "user-project"       = var.catalog.user_project
      "vended-credentials" = var.catalog.vended_credentials
      "properties"         = var.catalog.properties
    }
  }

  # Each table's manifests and logs in its own folder of the deployment's metadata bucket.
  metadata = {
    for name in keys(var.tables) : name => { "path" = format("gs://%s/metadata/%s/", var.metadata_bucket, name) }
  }

  profiles = {
    for name, text in var.tables : name => join("\n", concat(
      [
        trimspace(text),
        "",
        "# The catalog and the metadata folder, appended by Terraform (terraform/modules/settings): they win over the lines above.",
      ],
      [for section in sort(keys(local.table_settings)) : format("%s %s", section, jsonencode(local.table_settings[section]))],
      [format("metadata %s", jsonencode(local.metadata[name])), ""],
    ))
  }

  # The deployment file, uploaded beside the profiles as deployment.conf.
  deployment_file = join("\n", concat(
    ["# The deployment's settings (ledger, listener, job, events), written by Terraform (terraform/modules/settings)."],
    [for section in sort(keys(local.deployment)) : format("%s %s", section, jsonencode(local.deployment[section]))],
    [""],
  ))

  # The index file names collections without the environment's prefix; the ledger reads and
  # writes "<prefix><collection>", so the indexes go there. Keys name the index's content, so an
  # index added to the file creates one resource and moves no other.
  declared = jsondecode(file(var.firestore_indexes_file))

  firestore_indexes = {
    for index in local.declared.indexes :
    format("%s%s:%s", var.collection_prefix, index.collectionGroup, join(",", [for f in index.fields : format("%s:%s", f.fieldPath, try(f.order, f.arrayConfig))])) => {
      collection  = format("%s%s", var.collection_prefix, index.collectionGroup)
      query_scope = index.queryScope
      fields = [for f in index.fields : {
        field_path   = f.fieldPath
        order        = try(f.order, null)
        array_config = try(f.arrayConfig, null)
      }]
    }
  }

  firestore_field_overrides = {
    for override in try(local.declared.fieldOverrides, []) :
    format("%s%s:%s", var.collection_prefix, override.collectionGroup, override.fieldPath) => {
      collection = format("%s%s", var.collection_prefix, override.collectionGroup)
      field      = override.fieldPath
      indexes    = override.indexes
    }
  }
}
