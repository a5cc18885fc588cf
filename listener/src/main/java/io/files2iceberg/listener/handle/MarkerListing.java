package io.files2iceberg.listener.handle;

import io.files2iceberg.core.ledger.FileRecorded;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.match.ObjectMatch;
import io.files2iceberg.core.match.ObjectMatch.DataFile;
import io.files2iceberg.core.match.ObjectMatch.SuccessMarker;
import io.files2iceberg.core.match.ObjectMatcher;
import io.files2iceberg.core.match.PartitionRef;
import io.files2iceberg.listener.handle.ObjectListing.ListedObject;
import io.files2iceberg.listener.handle.StorageNotification.ObjectFinalized;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A success marker's listing (listener {@code list-prefix-on-marker}): the partition's data files
 * in the marker's folder that no notification recorded yet, recorded from the listing.
 */
record MarkerListing(Ledger ledger, ObjectMatcher matcher, ObjectListing listing, ListenerMetrics metrics) {
  private static final Logger LOG = LoggerFactory.getLogger(NotificationHandler.class);

  /**
   * Records the partition's files the ledger does not know yet, in as few ledger commits as the
   * ledger allows ({@link Ledger#recordFiles}); returns how many were new. With {@code
   * recursive-file-lookup} the files of the folder's subfolders are the partition's too.
   */
  int recordListedFiles(String messageId, ObjectFinalized finalized, SuccessMarker marker) {
    PartitionRef partition = marker.partition();
    List<ListedObject> objects =
        listing.listFolderOf(marker.object(), marker.profile().extract().recursiveFileLookup());
    String eventId = NotificationHandler.LISTING_EVENT_PREFIX + messageId;
    List<RecordFile> commands = new ArrayList<>();
    for (ListedObject listed : objects) {
      ObjectMatch match = matcher.match(listed.location(), listed.generation(), listed.size());
      if (!(match instanceof DataFile dataFile)
          || !dataFile.partition().table().equals(partition.table())
          || !dataFile.partition().token().equals(partition.token())) {
        // Not a data file of this partition; a rejected file is quarantined by its own
        // notification.
        continue;
      }
      commands.add(
          RecordFile.of(
              partition.table(),
              partition.token(),
              listed.location(),
              listed.generation(),
              listed.size(),
              eventId,
              listed.updated().orElse(finalized.eventTime()),
              Optional.empty(),
              false));
    }
    List<FileRecorded> recorded =
        commands.isEmpty() ? List.of() : metrics.ledgerWrite("record-files", partition.table(),
            () -> ledger.recordFiles(commands));
    int found = 0;
    for (FileRecorded file : recorded) {
      if (file.isNew()) {
        found++;
        LOG.debug(
            "Message {} for {}: listing recorded {} (generation {}) before its notification",
            messageId, marker.object().uri(), file.file().uri(), file.file().generation());
      }
    }
    if (found > 0) {
      LOG.info(
          "Message {} for {}: listing recorded {} of the {} data files in the folder before their notification",
          messageId, marker.object().uri(), found, commands.size());
    }
    metrics.markerListed(found);
    return found;
  }
}
