output "profiles" {
  description = "The table profiles to upload, by file name (<profile>.conf): each table's text plus its catalog and metadata settings."
  value       = { for name, text in local.profiles : format("%s.conf", name) => text }
}

output "deployment_file" {
  description = "The deployment file to upload beside the profiles as deployment.conf: the ledger, listener and job settings of every table."
  value       = local.deployment_file
}

output "firestore_indexes" {
  description = "The ledger's composite indexes, on the prefixed collections, keyed by collection and fields."
  value       = local.firestore_indexes
}

output "firestore_field_overrides" {
  description = "Single-field index settings of the index file, on the prefixed collections."
  value       = local.firestore_field_overrides
}
