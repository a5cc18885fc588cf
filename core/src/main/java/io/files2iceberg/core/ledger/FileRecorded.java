package io.files2iceberg.core.ledger;

/**
 * Fact: a file was recorded.
 *
 * @param isNew false when this generation was already known (a redelivery)
 * @param file the file as stored
 * @param partition its partition after the write
 */
public record FileRecorded(boolean isNew, FileRecord file, PartitionRecord partition) {}
