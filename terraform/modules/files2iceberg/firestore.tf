resource "google_firestore_database" "ledger" {
  count = var.create_firestore_database ? 1 : 0

  project                 = var.project_id
  name                    = var.firestore_database
  location_id             = coalesce(var.firestore_location, var.region)
  type                    = "FIRESTORE_NATIVE"
  delete_protection_state = "DELETE_PROTECTION_ENABLED"
  deletion_policy         = "ABANDON"

  depends_on = [google_project_service.apis]
}

# One index per entry of terraform/firestore-indexes.json (the file the ledger's tests check
# against its queries), on the collections as the collection prefix names them.
resource "google_firestore_index" "ledger" {
  for_each = module.settings.firestore_indexes

  project     = var.project_id
  database    = var.firestore_database
  collection  = each.value.collection
  query_scope = each.value.query_scope

  dynamic "fields" {
    for_each = each.value.fields

    content {
      field_path   = fields.value.field_path
      order        = fields.value.order
      array_config = fields.value.array_config
    }
  }

  depends_on = [google_firestore_database.ledger]
}

# The file's fieldOverrides: fields exempted from single-field indexing (growing timestamps,
# arrays, the fields of the most written collection no query filters on alone).
resource "google_firestore_field" "ledger" {
  for_each = module.settings.firestore_field_overrides

  project    = var.project_id
  database   = var.firestore_database
  collection = each.value.collection
  field      = each.value.field

  index_config {
    dynamic "indexes" {
      for_each = each.value.indexes

      content {
        query_scope  = try(indexes.value.queryScope, null)
        order        = try(indexes.value.order, null)
        array_config = try(indexes.value.arrayConfig, null)
      }
    }
  }

  depends_on = [google_firestore_database.ledger]
}
