package io.files2iceberg.core.ledger.service;

import io.files2iceberg.core.ledger.BatchCommitted;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.ClaimNewestPartition;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.CommitBatch;
import io.files2iceberg.core.ledger.FailBatch;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileRecorded;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.NewestPartitionClaimed;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.ledger.TableChange;
import io.files2iceberg.core.ledger.rules.BatchRules;
import io.files2iceberg.core.ledger.rules.FileRules;
import io.files2iceberg.core.ledger.rules.PartitionRules;
import io.files2iceberg.core.ledger.rules.RecordingWalk;
import io.files2iceberg.core.ledger.store.LedgerStore;
import io.files2iceberg.core.ledger.store.StoreReads;
import io.files2iceberg.core.ledger.store.StoreTransaction;
import io.files2iceberg.core.ledger.store.Subject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ledger, written once over a {@link LedgerStore}: each call reads the records it needs in one
 * of the store's transactions, applies the rules ({@code core.ledger.rules}: pure functions over
 * records) and writes the records they return, within the store's limit per commit. Transitions of
 * a batch that write more than one commit holds are {@link BatchTransitions}' (the batch records
 * what it still owes); claims are {@link Claims}'. What it logs, it logs here, once a transaction
 * has committed (a store may run a transaction's work more than once).
 *
 * <p>Times come from the injected {@link Clock}, kept to the millisecond.
 */
public class LedgerService extends LedgerLookups {
  private static final Logger LOG = LoggerFactory.getLogger(Ledger.class);

  /** Files recorded per transaction of {@link #recordFiles} at most. */
  static final int FILES_PER_WRITE = 1_000;

  private final Clock clock;
  private final BatchTransitions transitions;
  private final Claims claims;
  private final TableChanges changes;

  public LedgerService(LedgerStore store, Clock clock) {
    super(store);
    this.clock = Objects.requireNonNull(clock, "clock");
    this.transitions = new BatchTransitions(store, clock);
    this.claims = new Claims(store, clock, transitions);
    this.changes = new TableChanges(store, clock);
  }

  /** For crash tests: a hook that throws there stops the call as a process that dies would. */
  public void onBetweenCommits(BatchTransitions.BetweenCommits hook) {
    transitions.onBetweenCommits(hook);
  }

  // --- files and markers -------------------------------------------------------------------------

  @Override
  public FileRecorded recordFile(RecordFile command) {
    return store.write("recordFile", Subject.file(command.fileId(), command.uri()),
        tx -> record(tx, List.of(command))).get(0);
  }

  /**
   * Transactions of at most {@value #FILES_PER_WRITE} files, each within the store's limit per
   * commit with the partitions it may change, handed to the store at once ({@link
   * LedgerStore#writeEach}).
   */
  @Override
  public List<FileRecorded> recordFiles(List<RecordFile> commands) {
    List<Subject> subjects = new ArrayList<>();
    List<LedgerStore.Work<List<FileRecorded>>> works = new ArrayList<>();
    int limit = store.writesPerCommit();
    for (int from = 0; from < commands.size(); ) {
      Set<String> partitions = new HashSet<>();
      int to = from;
      while (to < commands.size() && to - from < FILES_PER_WRITE) {
        String partition = LedgerSchema.partitionId(commands.get(to).table(), commands.get(to).partition());
        long writes = (long) to - from + 1 + partitions.size() + (partitions.contains(partition) ? 0 : 1);
        if (writes > limit) {
          break;
        }
        partitions.add(partition);
        to++;
      }
      List<RecordFile> chunk = List.copyOf(commands.subList(from, to));
      subjects.add(Subject.other(chunk.size() + " files from " + chunk.get(0).uri() + " to " + chunk.get(chunk.size() - 1).uri()));
      works.add(tx -> record(tx, chunk));
      from = to;
    }
    List<FileRecorded> recorded = new ArrayList<>(commands.size());
    store.writeEach("recordFiles", subjects, works).forEach(recorded::addAll);
    return recorded;
  }

  /** Records the files in one transaction, as {@link RecordingWalk} decides. */
  private List<FileRecorded> record(StoreTransaction tx, List<RecordFile> commands) {
    List<String> fileIds = commands.stream().map(RecordFile::fileId).distinct().toList();
    // The commands' partitions, and those of files stored under another (a replay under a changed profile).
    Map<String, List<String>> tokens = new LinkedHashMap<>();
    commands.forEach(c -> addToken(tokens, c.table(), c.partition()));
    tx.readAhead(fileIds, tokens);
    Map<String, FileRecord> stored = new HashMap<>();
    for (FileRecord file : tx.files(fileIds)) {
      stored.put(file.fileId(), file);
      addToken(tokens, file.table(), file.partition());
    }
    Map<String, PartitionRecord> partitions = new HashMap<>();
    tokens.forEach((table, of) -> tx.partitions(table, of)
        .forEach(p -> partitions.put(LedgerSchema.partitionId(p.table(), p.partition()), p)));
    RecordingWalk.Plan plan = RecordingWalk.plan(commands, stored, partitions, now());
    for (PartitionRecord partition : plan.partitions()) {
      tx.putPartition(partition);
    }
    Map<String, FileRecord> created = new HashMap<>();
    for (FileRecord file : plan.created()) {
      created.put(file.fileId(), tx.createFile(file));
    }
    return plan.recorded().stream()
        .map(r -> created.containsKey(r.file().fileId())
            ? new FileRecorded(r.isNew(), created.get(r.file().fileId()), r.partition()) : r)
        .toList();
  }

  private static void addToken(Map<String, List<String>> tokens, String table, String token) {
    List<String> of = tokens.computeIfAbsent(table, t -> new ArrayList<>());
    if (!of.contains(token)) {
      of.add(token);
    }
  }

  @Override
  public PartitionRecord markReady(MarkReady command) {
    String table = command.table();
    return store.write("markReady", Subject.partition(table, command.partition()), tx -> {
      Optional<PartitionRecord> stored = tx.partition(table, command.partition());
      boolean pending = stored.filter(p -> p.state() == PartitionState.INGESTED).isPresent()
          && !tx.filesIn(table, command.partition(), FileState.RECORDED, 1).isEmpty();
      Optional<PartitionRecord> moved = PartitionRules.onMarker(stored, command, pending, now());
      return moved.isPresent() ? tx.putPartition(moved.get()) : stored.orElseThrow();
    });
  }

  @Override
  public Optional<BatchRecord> claimPartitions(ClaimPartitions command) {
    return claims.claimPartitions(command);
  }

  @Override
  public Optional<NewestPartitionClaimed> claimNewestPartition(ClaimNewestPartition command) {
    return claims.claimNewestPartition(command);
  }

  // --- batches -----------------------------------------------------------------------------------

  @Override
  public BatchRecord markRunning(String batchId, Duration lease) {
    Objects.requireNonNull(lease, "lease");
    String action = "Cannot mark batch " + batchId + " running";
    return store.write("markRunning", Subject.batch(batchId),
        tx -> tx.putBatch(BatchRules.running(requireBatch(tx, batchId, action), lease, now())));
  }

  @Override
  public BatchRecord renewLease(String batchId, Duration lease) {
    return newLease("renewLease", "Cannot renew the lease of batch " + batchId, batchId, lease, false);
  }

  @Override
  public BatchRecord takeOverExpiredLease(String batchId, Duration lease) {
    BatchRecord taken = newLease("takeOverExpiredLease", "Cannot take over batch " + batchId, batchId, lease, true);
    // Recovery's batch may be one whose claim died before it wrote its files (they are the
    // batch's by its record either way): the new owner writes them first.
    transitions.settle(batchId);
    return taken;
  }

  private BatchRecord newLease(String operation, String action, String batchId, Duration lease, boolean onlyExpired) {
    Objects.requireNonNull(lease, "lease");
    return store.write(operation, Subject.batch(batchId), tx ->
        tx.putBatch(BatchRules.leased(requireBatch(tx, batchId, action), lease, onlyExpired, action, now())));
  }

  @Override
  public BatchCommitted commitBatch(CommitBatch command) {
    return transitions.commit(command);
  }

  @Override
  public BatchRecord failBatch(FailBatch command) {
    return transitions.fail(command);
  }

  @Override
  public BatchRecord reviveBatch(String batchId) {
    return transitions.revive(batchId);
  }

  @Override
  public List<BatchRecord> findExpiredLeases() {
    return read("findExpiredLeases", Subject.other("all tables"), r -> r.expiredLeases(now()));
  }

  /**
   * Not one transaction: a committed batch never changes again, so deleting the ones beyond the
   * newest {@code keep} is idempotent, a commit's worth at a time. A batch still owing writes needs
   * its record: those are made first.
   */
  @Override
  public int pruneCommitted(String table, int keep) {
    if (keep < 0) {
      throw new IllegalArgumentException("keep must not be negative, was " + keep);
    }
    transitions.settleTable(table);
    List<String> beyond = read("pruneCommitted", Subject.table(table), r -> r.batchesIn(table, BatchState.COMMITTED))
        .stream()
        .sorted(Comparator.comparing(BatchRecord::updatedAt).thenComparing(BatchRecord::batchId).reversed())
        .skip(keep).map(BatchRecord::batchId).toList();
    int limit = Math.min(store.writesPerCommit(), FILES_PER_WRITE);
    for (int from = 0; from < beyond.size(); from += limit) {
      List<String> chunk = beyond.subList(from, Math.min(beyond.size(), from + limit));
      store.write("pruneCommitted", Subject.table(table), tx -> {
        chunk.forEach(tx::deleteBatch);
        return null;
      });
    }
    if (!beyond.isEmpty()) {
      LOG.info("Pruned {} committed batches of table {}, kept the newest {}", beyond.size(), table, keep);
    }
    return beyond.size();
  }

  // --- quarantine --------------------------------------------------------------------------------

  @Override
  public FileRecord quarantineFile(String fileId, String reason) {
    Objects.requireNonNull(reason, "reason");
    FileRecord file = store.write("quarantineFile", Subject.file(fileId),
        tx -> tx.putFile(FileRules.quarantined(requireFile(tx, fileId, "Cannot quarantine file "), reason)));
    LOG.warn("Quarantined file {} of table {}: {}", file.uri(), file.table(), reason);
    return file;
  }

  @Override
  public FileRecord supersedeFile(String fileId, String reason) {
    return leaveOut("supersedeFile", "Cannot supersede file ", fileId, FileState.SUPERSEDED, reason);
  }

  @Override
  public FileRecord ignoreFile(String fileId, String reason) {
    return leaveOut("ignoreFile", "Cannot ignore file ", fileId, FileState.IGNORED, reason);
  }

  private FileRecord leaveOut(String operation, String action, String fileId, FileState target, String reason) {
    Objects.requireNonNull(reason, "reason");
    record LeftOut(FileRecord file, boolean changed) {}
    LeftOut left = store.write(operation, Subject.file(fileId), tx -> {
      FileRecord stored = requireFile(tx, fileId, action);
      Optional<FileRecord> changed = FileRules.leftOut(stored, target, reason, action);
      return changed.isPresent() ? new LeftOut(tx.putFile(changed.get()), true) : new LeftOut(stored, false);
    });
    if (left.changed()) {
      FileRecord file = left.file();
      LOG.warn("File {} generation {} of table {} is {}: {}", file.uri(), file.generation(), file.table(), target,
          reason);
    }
    return left.file();
  }

  @Override
  public void quarantineMessage(QuarantinedMessage message) {
    // Idempotent by message id: the first record stays.
    store.write("quarantineMessage", Subject.message(message.messageId()), tx -> {
      if (tx.message(message.messageId()).isEmpty()) {
        tx.putMessage(message);
      }
      return null;
    });
  }

  @Override
  public boolean releaseMessage(String messageId) {
    return store.write("releaseMessage", Subject.message(messageId), tx -> {
      boolean known = tx.message(messageId).isPresent();
      if (known) {
        tx.deleteMessage(messageId);
      }
      return known;
    });
  }

  @Override
  public FileRecord releaseFile(String fileId) {
    FileRecord released = store.write("releaseFile", Subject.file(fileId), tx -> {
      FileRecord file = FileRules.released(requireFile(tx, fileId, "Cannot release file "));
      PartitionRecord partition = requirePartition(tx, file.table(), file.partition());
      // Like a late file: an INGESTED partition is READY again for just this file.
      PartitionRules.onFileReleased(partition, now()).ifPresent(tx::putPartition);
      return tx.putFile(file);
    });
    LOG.info("Released file {} of table {} from the quarantine", released.uri(), released.table());
    return released;
  }

  // --- landing cleanup ---------------------------------------------------------------------------

  @Override
  public List<FileRecord> cleanFiles(String table, List<CleanFile> files) {
    String action = "Cannot clean the landing of table " + table;
    if (files.size() > store.writesPerCommit()) {
      throw new IllegalArgumentException(action + ": " + files.size() + " files in one commit, the store takes "
          + store.writesPerCommit());
    }
    List<String> ids = files.stream().map(CleanFile::fileId).toList();
    List<FileRecord> cleaned = store.write("cleanFiles", Subject.table(table, files.size() + " files"), tx -> {
      List<TableChange> unfinished = tx.changesIn(table, TableChange.ChangeState.INTENDED);
      if (!unfinished.isEmpty()) {
        throw new IllegalStateException(action + " while its " + unfinished.get(0).kind().code() + " "
            + unfinished.get(0).changeId() + " is unfinished: nothing is cleaned until it ends");
      }
      Map<String, FileRecord> stored = new HashMap<>();
      tx.files(ids).forEach(f -> stored.put(f.fileId(), f));
      List<FileRecord> changed = new ArrayList<>();
      for (CleanFile file : files) {
        FileRecord known = stored.get(file.fileId());
        if (known == null || !known.table().equals(table)) {
          throw new IllegalStateException(action + ": no file " + file.fileId() + " in it");
        }
        FileRules.cleaned(known, file.cleaned(), action).ifPresent(changed::add);
      }
      return changed.stream().map(tx::putFile).toList();
    });
    cleaned.forEach(f -> LOG.info("File {} generation {} of table {} is {}{}", f.uri(), f.generation(), f.table(),
        f.cleaned().orElseThrow().action().code(),
        f.cleaned().orElseThrow().archiveUri().map(uri -> " to " + uri).orElse("")));
    return cleaned;
  }

  @Override
  public List<FileRecord> confirmRemoved(List<String> fileIds) {
    String action = "Cannot record the removal of landing objects";
    if (fileIds.size() > store.writesPerCommit()) {
      throw new IllegalArgumentException(action + ": " + fileIds.size() + " files in one commit, the store takes "
          + store.writesPerCommit());
    }
    return store.write("confirmRemoved", Subject.other(fileIds.size() + " files"), tx -> {
      Map<String, FileRecord> stored = new HashMap<>();
      tx.files(fileIds).forEach(f -> stored.put(f.fileId(), f));
      Instant now = now();
      List<FileRecord> changed = new ArrayList<>();
      for (String fileId : fileIds) {
        FileRecord known = stored.get(fileId);
        if (known == null) {
          throw new IllegalStateException(action + ": no file " + fileId);
        }
        FileRules.removed(known, now, action).ifPresent(changed::add);
      }
      return changed.stream().map(tx::putFile).toList();
    });
  }

  // --- operator commands: replay, retry ----------------------------------------------------------

  @Override
  public PartitionRecord reopenPartition(String table, String partition) {
    return transitions.reopen(table, partition);
  }

  @Override
  public PartitionRecord retryPartition(String table, String partition) {
    String action = "Cannot retry partition " + table + "/" + partition;
    return store.write("retryPartition", Subject.partition(table, partition), tx -> {
      PartitionRecord stored = tx.partition(table, partition)
          .orElseThrow(() -> new IllegalArgumentException(action + ": no such partition"));
      return tx.putPartition(PartitionRules.retried(stored, action, now()));
    });
  }

  @Override
  public List<PartitionRecord> retryBatch(String batchId) {
    transitions.settle(batchId); // a failure cut short still holds its partitions
    String action = "Cannot retry batch " + batchId;
    record Retried(String table, List<PartitionRecord> partitions) {}
    Retried retried = store.write("retryBatch", Subject.batch(batchId), tx -> {
      BatchRecord batch = requireBatch(tx, batchId, action);
      BatchRules.requireRetryable(batch, action);
      List<PartitionRecord> requeued = new ArrayList<>();
      for (PartitionRecord stored : tx.partitions(batch.table(), batch.partitions())) {
        if (PartitionState.RETRYABLE.contains(stored.state())) {
          requeued.add(PartitionRules.retried(stored, action, now()));
        }
      }
      return new Retried(batch.table(), requeued.stream().map(tx::putPartition).toList());
    });
    LOG.info("Retry of failed batch {} of table {} re-queued partitions {}", batchId, retried.table(),
        retried.partitions().stream().map(PartitionRecord::partition).toList());
    return retried.partitions();
  }

  @Override
  public Optional<String> unavailableBecause() {
    Optional<String> because = store.unavailableBecause();
    because.ifPresent(reason -> LOG.warn("The ledger {} cannot take a write: {}", store.describe(), reason));
    return because;
  }

  @Override
  public void close() {
    store.close();
  }

  // --- the outbox ----------------------------------------------------------------------------------

  @Override
  public void acknowledgeEvents(List<String> eventIds) {
    int perCommit = store.writesPerCommit() == LedgerStore.UNBOUNDED ? eventIds.size() : store.writesPerCommit();
    for (int from = 0; from < eventIds.size(); from += perCommit) {
      List<String> chunk = eventIds.subList(from, Math.min(eventIds.size(), from + perCommit));
      store.write("acknowledgeEvents", Subject.other(chunk.size() + " event(s) of the outbox"), tx -> {
        chunk.forEach(tx::deleteEvent);
        return null;
      });
    }
  }

  // --- operators' changes ---------------------------------------------------------------------------

  @Override
  public TableChange intendChange(TableChange change) {
    return changes.intend(change);
  }

  @Override
  public TableChange applyChange(String changeId) {
    return changes.apply(changeId);
  }

  @Override
  public TableChange abandonChange(String changeId, String why) {
    return changes.abandon(changeId, why);
  }

  @Override
  public PartitionRecord releasePartition(String table, String partition) {
    return changes.release(table, partition);
  }

  private Instant now() {
    return Instant.ofEpochMilli(clock.millis());
  }

  static BatchRecord requireBatch(StoreReads reads, String batchId, String action) {
    return reads.batch(batchId).orElseThrow(() -> new IllegalArgumentException(action + ": no such batch")).batch();
  }

  static FileRecord requireFile(StoreReads reads, String fileId, String action) {
    return reads.file(fileId).orElseThrow(() -> new IllegalArgumentException(action + fileId + ": no such file"));
  }

  static PartitionRecord requirePartition(StoreReads reads, String table, String partition) {
    return reads.partition(table, partition).orElseThrow(() ->
        new IllegalStateException("Partition " + table + "/" + partition + " is missing from the ledger"));
  }
}
