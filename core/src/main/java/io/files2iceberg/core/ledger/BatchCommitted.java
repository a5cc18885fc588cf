package io.files2iceberg.core.ledger;

/**
 * Fact: a batch's checkpoint is in the ledger.
 *
 * @param alreadyCommitted the batch was COMMITTED before this call with the same snapshot id
 */
public record BatchCommitted(BatchRecord batch, boolean alreadyCommitted) {}
