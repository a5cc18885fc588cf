output "profiles" {
  description = "The table profiles to upload, by file name (<profile>.conf): each table's text plus the deployment settings."
  value       = { for name, text in local.profiles : format("%s.conf", name) => text }
}

output "firestore_indexes" {
  description = "The ledger's composite indexes, on the prefixed collections, keyed by collection and fields."
  value       = local.firestore_indexes
}

output "firestore_field_overrides" {
  description = "Single-field index settings of the index file, on the prefixed collections."
  value       = local.firestore_field_overrides
}
