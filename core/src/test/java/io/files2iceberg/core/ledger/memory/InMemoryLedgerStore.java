package io.files2iceberg.core.ledger.memory;

import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.BatchState;
import io.files2iceberg.core.ledger.ChangeEvent;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.LedgerSchema;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import io.files2iceberg.core.ledger.TableChange;
import io.files2iceberg.core.ledger.service.LedgerService;
import io.files2iceberg.core.ledger.store.LedgerStore;
import io.files2iceberg.core.ledger.store.Settling;
import io.files2iceberg.core.ledger.store.StoreTransaction;
import io.files2iceberg.core.ledger.store.StoredBatch;
import io.files2iceberg.core.ledger.store.Subject;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * A ledger store in memory, for tests that need a ledger but no real store: every transaction runs
 * alone (one lock), reads before it writes (a read after a write fails, as in Firestore), and
 * commits at most {@code writesPerCommit} writes. With a bound it exercises the ledger service's
 * settling over several commits as Firestore's 500 writes do.
 */
public final class InMemoryLedgerStore implements LedgerStore {
  private static final Comparator<FileRecord> CLAIM_ORDER =
      Comparator.comparing(FileRecord::uri).thenComparingLong(FileRecord::generation);
  private static final Comparator<BatchRecord> OLDEST_FIRST =
      Comparator.comparing(BatchRecord::createdAt).thenComparing(BatchRecord::batchId);
  private static final Comparator<BatchRecord> NEWEST_SETTLED_FIRST =
      Comparator.comparing(BatchRecord::updatedAt).thenComparing(BatchRecord::batchId).reversed();

  private final Map<String, FileRecord> files = new HashMap<>();
  private final Map<String, Integer> positions = new HashMap<>();
  private final Map<String, PartitionRecord> partitions = new TreeMap<>();
  private final Map<String, StoredBatch> batches = new HashMap<>();
  private final Map<String, QuarantinedMessage> messages = new HashMap<>();
  private final Map<String, TableChange> changes = new HashMap<>();
  private final Map<String, ChangeEvent> outbox = new HashMap<>();
  private final int writesPerCommit;

  public InMemoryLedgerStore(int writesPerCommit) {
    this.writesPerCommit = writesPerCommit;
  }

  /** A ledger over a new, unbounded store. */
  public static Ledger ledger(Clock clock) {
    return new LedgerService(new InMemoryLedgerStore(UNBOUNDED), clock);
  }

  @Override
  public synchronized <T> T write(String operation, Subject subject, Work<T> work) {
    Transaction tx = new Transaction();
    T result = work.run(tx);
    if (tx.writes.size() > writesPerCommit) {
      throw new IllegalStateException(operation + " of " + subject + " made " + tx.writes.size()
          + " writes in one commit, over the store's " + writesPerCommit);
    }
    tx.writes.forEach(Runnable::run);
    return result;
  }

  @Override
  public synchronized <T> T read(String operation, Subject subject, Reading<T> reading) {
    return reading.run(new Transaction());
  }

  @Override
  public int writesPerCommit() {
    return writesPerCommit;
  }

  @Override
  public Optional<String> unavailableBecause() {
    return Optional.empty();
  }

  @Override
  public String describe() {
    return "in memory";
  }

  /** Nothing to release: another ledger over this store goes on seeing its records. */
  @Override
  public void close() {}

  private final class Transaction implements StoreTransaction {
    private final List<Runnable> writes = new ArrayList<>();

    private <T> T reading(T value) {
      if (!writes.isEmpty()) {
        throw new IllegalStateException("A read after a write in one transaction");
      }
      return value;
    }

    private Stream<FileRecord> filesWhere(Predicate<FileRecord> filter) {
      return reading(files.values().stream().filter(filter));
    }

    private Stream<BatchRecord> batchesWhere(Predicate<BatchRecord> filter) {
      return reading(batches.values().stream().map(StoredBatch::batch).filter(filter));
    }

    private static <T> List<T> limited(Stream<T> rows, int limit) {
      return (limit < 0 ? rows : rows.limit(limit)).toList();
    }

    @Override
    public Optional<FileRecord> file(String fileId) {
      return reading(Optional.ofNullable(files.get(fileId)));
    }

    @Override
    public List<FileRecord> files(List<String> fileIds) {
      return reading(fileIds.stream().map(files::get).filter(f -> f != null).toList());
    }

    @Override
    public Optional<PartitionRecord> partition(String table, String partition) {
      return reading(Optional.ofNullable(partitions.get(LedgerSchema.partitionId(table, partition))));
    }

    @Override
    public Optional<StoredBatch> batch(String batchId) {
      return reading(Optional.ofNullable(batches.get(batchId)));
    }

    @Override
    public List<PartitionRecord> partitionsIn(String table, PartitionState state, int limit) {
      return limited(partitions(table).stream().filter(p -> p.state() == state), limit);
    }

    @Override
    public List<FileRecord> filesIn(String table, String partition, FileState state, int limit) {
      return limited(filesOfPartition(table, partition).stream().filter(f -> f.state() == state), limit);
    }

    @Override
    public boolean hasBatchIn(String table, Set<BatchState> states) {
      return batchesWhere(b -> b.table().equals(table) && states.contains(b.state())).findAny().isPresent();
    }

    @Override
    public List<String> batchesOwing(String table) {
      return reading(batches.values().stream().filter(b -> b.settling().isPresent())).map(StoredBatch::batch)
          .filter(b -> b.table().equals(table)).sorted(OLDEST_FIRST).map(BatchRecord::batchId).toList();
    }

    @Override
    public List<BatchRecord> batchesIn(String table, BatchState state) {
      return batchesWhere(b -> b.table().equals(table) && b.state() == state).sorted(OLDEST_FIRST).toList();
    }

    @Override
    public Optional<QuarantinedMessage> message(String messageId) {
      return reading(Optional.ofNullable(messages.get(messageId)));
    }

    @Override
    public Optional<TableChange> change(String changeId) {
      return reading(Optional.ofNullable(changes.get(changeId)));
    }

    @Override
    public List<TableChange> changes(String table) {
      return reading(changes.values().stream().filter(c -> c.table().equals(table))
          .sorted(Comparator.comparing(TableChange::createdAt).thenComparing(TableChange::changeId)).toList());
    }

    @Override
    public List<FileRecord> filesOfBatch(String batchId) {
      return batch(batchId).map(b -> files(b.batch().fileIds()))
          .orElseGet(() -> filesWhere(f -> f.batchId().equals(Optional.of(batchId)))
              .sorted(Comparator.comparing(f -> positions.getOrDefault(f.fileId(), 0))).toList());
    }

    @Override
    public List<String> tables() {
      return reading(partitions.values().stream().map(PartitionRecord::table).distinct().sorted().toList());
    }

    @Override
    public List<PartitionRecord> partitions(String table) {
      return reading(partitions.values().stream().filter(p -> p.table().equals(table))
          .sorted(Comparator.comparing(PartitionRecord::partition)).toList());
    }

    @Override
    public List<FileRecord> filesOfPartition(String table, String partition) {
      return filesWhere(f -> f.table().equals(table) && f.partition().equals(partition)).sorted(CLAIM_ORDER).toList();
    }

    @Override
    public List<QuarantinedMessage> quarantinedMessages() {
      return reading(messages.values().stream().sorted(Comparator.comparing(QuarantinedMessage::receivedAt)
          .thenComparing(QuarantinedMessage::messageId)).toList());
    }

    @Override
    public List<FileRecord> quarantinedFiles() {
      return filesWhere(f -> f.state() == FileState.QUARANTINED).sorted(Comparator.comparing(FileRecord::table)
          .thenComparing(FileRecord::partition).thenComparing(CLAIM_ORDER)).toList();
    }

    @Override
    public List<FileRecord> filesNamed(String bucket, String name) {
      return filesWhere(f -> f.bucket().equals(bucket) && f.name().equals(name))
          .sorted(Comparator.comparingLong(FileRecord::generation)).toList();
    }

    @Override
    public List<BatchRecord> batches(String table) {
      return batchesWhere(b -> b.table().equals(table)).sorted(OLDEST_FIRST).toList();
    }

    @Override
    public List<BatchRecord> batchesSettledSince(String table, Instant since) {
      return batchesWhere(b -> b.table().equals(table) && Set.of(BatchState.COMMITTED, BatchState.FAILED)
          .contains(b.state()) && !b.updatedAt().isBefore(since)).sorted(NEWEST_SETTLED_FIRST).toList();
    }

    @Override
    public List<BatchRecord> expiredLeases(Instant now) {
      return batchesWhere(b -> b.state().isInFlight() && b.leaseUntil().filter(now::isAfter).isPresent())
          .sorted(Comparator.comparing((BatchRecord b) -> b.leaseUntil().orElseThrow())
              .thenComparing(BatchRecord::batchId)).toList();
    }

    // --- writes: applied when the transaction commits ----------------------------------------------

    @Override
    public FileRecord createFile(FileRecord file) {
      // Under the lock nothing else commits meanwhile: what is stored now is what the commit meets.
      if (files.containsKey(file.fileId())) {
        throw new IllegalStateException("File " + file.fileId() + " exists");
      }
      writes.add(() -> files.put(file.fileId(), file));
      return file;
    }

    @Override
    public FileRecord putFile(FileRecord file) {
      return putFile(file, file.batchId().isEmpty() ? null : positions.get(file.fileId()));
    }

    @Override
    public FileRecord putFile(FileRecord file, int position) {
      return putFile(file, Integer.valueOf(position));
    }

    private FileRecord putFile(FileRecord file, Integer position) {
      writes.add(() -> {
        files.put(file.fileId(), file);
        positions.compute(file.fileId(), (id, kept) -> position);
      });
      return file;
    }

    @Override
    public PartitionRecord putPartition(PartitionRecord partition) {
      writes.add(() -> partitions.put(LedgerSchema.partitionId(partition.table(), partition.partition()), partition));
      return partition;
    }

    @Override
    public BatchRecord putBatch(BatchRecord batch) {
      writes.add(() -> batches.put(batch.batchId(), new StoredBatch(batch,
          Optional.ofNullable(batches.get(batch.batchId())).flatMap(StoredBatch::settling))));
      return batch;
    }

    @Override
    public BatchRecord putBatch(BatchRecord batch, Optional<Settling> settling) {
      writes.add(() -> batches.put(batch.batchId(), new StoredBatch(batch, settling)));
      return batch;
    }

    @Override
    public void putSettling(String batchId, Optional<Settling> settling) {
      writes.add(() -> batches.computeIfPresent(batchId, (id, stored) -> new StoredBatch(stored.batch(), settling)));
    }

    @Override
    public void deleteBatch(String batchId) {
      writes.add(() -> batches.remove(batchId));
    }

    @Override
    public void putMessage(QuarantinedMessage message) {
      writes.add(() -> messages.putIfAbsent(message.messageId(), message));
    }

    @Override
    public void deleteMessage(String messageId) {
      writes.add(() -> messages.remove(messageId));
    }

    @Override
    public List<ChangeEvent> pendingEvents(int limit) {
      return reading(limited(outbox.values().stream()
          .sorted(Comparator.comparing(ChangeEvent::createdAt).thenComparing(ChangeEvent::eventId)), limit));
    }

    @Override
    public void putEvent(ChangeEvent event) {
      writes.add(() -> outbox.put(event.eventId(), event));
    }

    @Override
    public void deleteEvent(String eventId) {
      writes.add(() -> outbox.remove(eventId));
    }

    @Override
    public TableChange putChange(TableChange change) {
      writes.add(() -> changes.put(change.changeId(), change));
      return change;
    }
  }
}
