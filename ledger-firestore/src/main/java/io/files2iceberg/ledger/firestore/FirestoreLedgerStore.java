package io.files2iceberg.ledger.firestore;

import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.store.LedgerStore;
import io.files2iceberg.core.ledger.store.Subject;
import java.util.Optional;

/**
 * The production ledger's store: Cloud Firestore in native mode, one document per file, partition,
 * batch and quarantined message ({@link FirestoreDocuments}). Each write is one Firestore
 * transaction, which Firestore reruns when a document it read changed before the commit, of at
 * most {@value FirestoreLedger#MAX_WRITES_PER_COMMIT} writes; a batch document's file and event ids
 * stay within its 1 MiB. Transient errors are retried with backoff ({@link FirestoreRetry}); after
 * the bound, or past {@code ledger.deadline}, they surface as {@code LedgerUnavailableException},
 * other errors as {@code IllegalStateException}, both naming the document.
 */
final class FirestoreLedgerStore implements LedgerStore {
  final FirestoreStore store;

  FirestoreLedgerStore(FirestoreStore store) {
    this.store = store;
  }

  /** The document (or collection) a subject names, for errors and logs. */
  String path(Subject subject) {
    return switch (subject.kind()) {
      case FILE -> store.files.document(subject.id()).getPath()
          + (subject.detail().isEmpty() ? "" : " (" + subject.detail() + ")");
      case PARTITION -> store.partitions.document(subject.id()).getPath() + " (" + subject.detail() + ")";
      case BATCH -> store.batches.document(subject.id()).getPath();
      case TABLE -> store.partitions.getPath() + " (" + subject + ")";
      case MESSAGE -> store.quarantine.document(io.files2iceberg.core.ledger.LedgerSchema.quarantineId(subject.id()))
          .getPath();
      case OTHER -> subject.toString();
    };
  }

  @Override
  public <T> T write(String operation, Subject subject, Work<T> work) {
    return store.transaction(operation, path(subject), t -> {
      try {
        return work.run(new FirestoreTransaction(store, t));
      } catch (FirestoreTransaction.Failed e) {
        throw (Exception) e.getCause();
      }
    });
  }

  @Override
  public <T> T read(String operation, Subject subject, Reading<T> reading) {
    return store.read(operation, path(subject), () -> {
      try {
        return reading.run(new FirestoreTransaction(store, null));
      } catch (FirestoreTransaction.Failed e) {
        throw (Exception) e.getCause();
      }
    });
  }

  @Override
  public int writesPerCommit() {
    return FirestoreLedger.MAX_WRITES_PER_COMMIT;
  }

  @Override
  public long maxFileListBytes() {
    return FirestoreLedger.MAX_FILE_LIST_BYTES;
  }

  @Override
  public long listedBytes(FileRecord file) {
    return FirestoreDocuments.listedBytes(file.fileId()) + FirestoreDocuments.listedBytes(file.eventId());
  }

  @Override
  public Optional<String> unavailableBecause() {
    return store.unavailableBecause();
  }

  @Override
  public String describe() {
    return "Firestore (collections '" + store.prefix + "*')";
  }

  @Override
  public void close() {
    store.close();
  }
}
