package io.files2iceberg.core.ledger;

import java.time.Instant;
import java.util.List;

/**
 * What the ledger lists for the operator and for status, each as one query of its store: a
 * {@link Ledger} answers them, and every store's reads answer them the same way.
 */
public interface LedgerListings {

  /** The files of a batch, in the deterministic order the batch was claimed in. */
  List<FileRecord> filesOfBatch(String batchId);

  /** The tables the ledger knows, sorted. */
  List<String> tables();

  /** Counts by state, batches in flight, the last commit and the lag of one table. */
  TableStatus tableStatus(String table);

  List<QuarantinedMessage> quarantinedMessages();

  /** Every partition of the table, ordered by partition token. */
  List<PartitionRecord> partitions(String table);

  /** Every file of one partition, in every state and generation, ordered by URI then generation. */
  List<FileRecord> filesOfPartition(String table, String partition);

  /** QUARANTINED files of every table, ordered by table, partition, URI and generation. */
  List<FileRecord> quarantinedFiles();

  /**
   * Landing cleanup's candidates: the table's INGESTED files loaded before {@code ingestedBefore}
   * whose object is where it landed ({@link FileRecord#cleaned()} empty), oldest load first (then
   * by file id), at most {@code limit}. Files without a load time are left out.
   */
  List<FileRecord> filesToClean(String table, Instant ingestedBefore, int limit);

  /**
   * The table's files that landing cleanup decided on but whose object it has not yet removed
   * ({@link CleanedObject#removedAt()} empty): a run that stopped between the ledger and the
   * storage. Oldest decision first (then by file id), at most {@code limit}.
   */
  List<FileRecord> filesBeingCleaned(String table, int limit);

  /** Every generation recorded of one object, oldest generation first. */
  List<FileRecord> filesNamed(String bucket, String name);

  /** The stored batches (pruned ones are gone) that claimed the partition, oldest first. */
  List<BatchRecord> batchesOfPartition(String table, String partition);

  /**
   * Every stored batch of the table (pruned ones are gone), in every state, oldest first (by
   * creation time, then id): {@code sql}'s {@code files2iceberg.batches}.
   */
  List<BatchRecord> batches(String table);

  /**
   * {@code history}: the table's COMMITTED and FAILED batches whose last change (their commit or
   * failure) is at or after {@code since}, newest first. Pruned batches are gone, so the history
   * reaches back as far as the committed batches the ledger keeps.
   */
  List<BatchRecord> batchesSettledSince(String table, Instant since);

  /** The operators' changes of the table ({@code rollback}, {@code drop-partition}), oldest first. */
  List<TableChange> changes(String table);
}
