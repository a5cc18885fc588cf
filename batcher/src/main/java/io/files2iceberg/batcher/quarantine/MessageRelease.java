package io.files2iceberg.batcher.quarantine;

import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import io.files2iceberg.batcher.cli.NotInLedgerException;
import io.files2iceberg.batcher.engine.StorageListing.Listed;
import io.files2iceberg.core.ledger.FileRecorded;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.match.ObjectLocation;
import io.files2iceberg.core.match.ObjectMatch;
import io.files2iceberg.core.match.ObjectMatcher;
import io.files2iceberg.core.match.PartitionRef;
import io.files2iceberg.core.profile.ProfileRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * {@code quarantine release --message}: handles a quarantined notification again, after a fix (a
 * profile corrected, a folder made listable), as the listener would have: the object it names is
 * looked up in storage now, matched to its profile by {@link ObjectMatcher}, and recorded; only
 * then is the message record deleted, so a failure loses nothing.
 *
 * <ul>
 *   <li>A data file is recorded under the message id as its event ({@code readyOnArrival} when
 *       the profile's success-file-filter is off, so its partition becomes READY at once).
 *   <li>A success marker records the data files of its folder the ledger does not know yet (event
 *       {@code listing:<message id>}), then marks the partition READY: a READY partition must
 *       hold all its files.
 *   <li>A message without an object, or whose object is gone or matches no profile now, is only
 *       deleted with {@code discard}; one the matcher still rejects is kept, naming the reason.
 * </ul>
 */
public final class MessageRelease {
  /** The event id prefix of files recorded from a marker's folder, as the listener writes it. */
  static final String LISTING_EVENT_PREFIX = "listing:";

  private final Ledger ledger;
  private final ObjectMatcher matcher;
  private final Supplier<Storage> storage;

  /** What was (or, in a dry run, would be) done, as a sentence, and whether the record went. */
  public record Released(QuarantinedMessage message, String action, boolean dryRun) {}

  public MessageRelease(Ledger ledger, ProfileRegistry profiles, Supplier<Storage> storage) {
    this.ledger = Objects.requireNonNull(ledger, "ledger");
    this.matcher = new ObjectMatcher(profiles.profiles());
    this.storage = Objects.requireNonNull(storage, "storage");
  }

  /**
   * Releases one message.
   *
   * @throws NotInLedgerException when no such message is quarantined
   * @throws IllegalStateException naming the message and why it cannot be released as it is, or
   *     why Cloud Storage could not be read (the message stays quarantined)
   */
  public Released release(String messageId, boolean discard, boolean dryRun) {
    QuarantinedMessage message = ledger.quarantinedMessages().stream()
        .filter(m -> m.messageId().equals(messageId))
        .findFirst()
        .orElseThrow(() -> new NotInLedgerException("no quarantined message " + messageId + " in the ledger"));
    String action;
    try {
      action = recordObject(message, discard, dryRun);
    } catch (StorageException e) {
      throw new IllegalStateException("cannot release message " + messageId + ": cannot read "
          + message.objectUri().orElse("its object") + " from Cloud Storage: " + StoredObjects.describe(e)
          + "; the message stays quarantined", e);
    }
    if (!dryRun) {
      ledger.releaseMessage(messageId);
    }
    return new Released(message, action, dryRun);
  }

  private String recordObject(QuarantinedMessage message, boolean discard, boolean dryRun) {
    if (message.objectUri().isEmpty()) {
      return discarded(message, "it names no object", discard, dryRun);
    }
    ObjectLocation location = ObjectLocation.parse(message.objectUri().get());
    Optional<Listed> stored = StoredObjects.lookUp(location, storage);
    if (stored.isEmpty()) {
      return discarded(message, location.uri() + " is not in storage any more", discard, dryRun);
    }
    Listed object = stored.get();
    ObjectMatch match = matcher.match(location, object.generation(), object.size());
    if (match instanceof ObjectMatch.DataFile file) {
      RecordFile command = object.toRecordFile(file.partition().table(), file.partition().token(),
          message.messageId(), !file.profile().extract().batchFile().successFileFilter());
      if (dryRun) {
        return "would record " + location.uri() + " generation " + object.generation() + " in table "
            + command.table() + " partition " + command.partition();
      }
      FileRecorded recorded = ledger.recordFile(command);
      return (recorded.isNew() ? "recorded " : "already recorded: ") + location.uri() + " generation "
          + object.generation() + " in table " + command.table() + " partition " + command.partition() + " ("
          + recorded.partition().state() + ")";
    }
    if (match instanceof ObjectMatch.SuccessMarker marker) {
      return markerLanded(message, marker, object, dryRun);
    }
    if (match instanceof ObjectMatch.Ignored ignored) {
      return discarded(message, location.uri() + " is not for the pipeline: " + ignored.reason(), discard, dryRun);
    }
    ObjectMatch.Rejected rejected = (ObjectMatch.Rejected) match;
    throw new IllegalStateException("cannot release message " + message.messageId() + ": profile \""
        + rejected.profile().name() + "\" still rejects it: " + rejected.reason());
  }

  private String markerLanded(QuarantinedMessage message, ObjectMatch.SuccessMarker marker, Listed object,
      boolean dryRun) {
    PartitionRef partition = marker.partition();
    List<RecordFile> files = new ArrayList<>();
    for (Listed listed : StoredObjects.listFolderOf(object.location(),
        marker.profile().extract().recursiveFileLookup(), storage)) {
      ObjectMatch match = matcher.match(listed.location(), listed.generation(), listed.size());
      if (match instanceof ObjectMatch.DataFile file && file.partition().table().equals(partition.table())
          && file.partition().token().equals(partition.token())) {
        files.add(listed.toRecordFile(partition.table(), partition.token(), LISTING_EVENT_PREFIX + message.messageId(),
            false));
      }
    }
    String where = "table " + partition.table() + " partition " + partition.token();
    if (dryRun) {
      return "would record the " + files.size() + " data file(s) of " + partition.prefix()
          + " the ledger does not know yet and mark " + where + " READY";
    }
    int recorded = 0;
    for (RecordFile file : files) {
      recorded += ledger.recordFile(file).isNew() ? 1 : 0;
    }
    // Only now: every file the folder held is recorded, so the READY partition is complete.
    PartitionRecord ready = ledger.markReady(new MarkReady(partition.table(), partition.token(), partition.prefix(),
        message.messageId(), object.updated()));
    return "recorded " + recorded + " new data file(s) of " + partition.prefix() + "; " + where + " is "
        + ready.state();
  }

  private static String discarded(QuarantinedMessage message, String why, boolean discard, boolean dryRun) {
    if (!discard) {
      throw new IllegalStateException("cannot release message " + message.messageId() + ": " + why
          + "; pass --discard to delete it");
    }
    return (dryRun ? "would discard it (" : "discarded (") + why + ")";
  }
}
