package io.files2iceberg.batcher.listing;

import io.files2iceberg.batcher.engine.StorageListing.Found;
import io.files2iceberg.core.ledger.FileRecorded;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.match.PartitionRef;
import io.files2iceberg.core.profile.TableProfile;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;

/**
 * Records listed objects in the ledger as if their notifications had come, with the values the
 * listener uses: a data file is recorded (idempotent by bucket, name and generation: a known
 * generation is a no-op), READY on arrival when {@code success-file-filter} is off; a present
 * success marker then marks its partition READY, after its files, as the listener's marker listing
 * does. The event id names the command ({@code replay}, {@code backfill}, {@code reconcile}), so
 * {@code inspect} shows where a record came from.
 */
public final class ListedRecorder {
  private final Ledger ledger;
  private final TableProfile profile;
  private final String eventId;
  private final Clock clock;
  private final boolean dryRun;

  public ListedRecorder(Ledger ledger, TableProfile profile, String eventId, Clock clock, boolean dryRun) {
    this.ledger = ledger;
    this.profile = profile;
    this.eventId = eventId;
    this.clock = clock;
    this.dryRun = dryRun;
  }

  /** What recording did (or, dry, would do). */
  public record Recorded(List<String> newFiles, int knownFiles, List<String> markedReady) {}

  /** Records the files, then marks the partitions of {@code markers} READY. */
  public Recorded record(List<Found> files, Collection<PartitionRef> markers, Consumer<String> progress) {
    List<String> newFiles = new ArrayList<>();
    int known = 0;
    boolean readyOnArrival = !profile.extract().batchFile().successFileFilter();
    for (Found found : files) {
      if (dryRun) {
        if (ledger.file(found.fileId()).isEmpty()) {
          newFiles.add(found.object().location().uri());
        } else {
          known++;
        }
        continue;
      }
      FileRecorded recorded = ledger.recordFile(
          found.object().toRecordFile(profile.table(), found.partition().token(), eventId, readyOnArrival));
      if (recorded.isNew()) {
        newFiles.add(found.object().location().uri());
        if (newFiles.size() % 100 == 0) {
          progress.accept(newFiles.size() + " file(s) recorded");
        }
      } else {
        known++;
      }
    }
    List<String> marked = new ArrayList<>();
    for (PartitionRef partition : markers) {
      if (!dryRun) {
        ledger.markReady(new MarkReady(profile.table(), partition.token(), partition.prefix(), eventId, clock.instant()));
      }
      marked.add(partition.token());
    }
    return new Recorded(List.copyOf(newFiles), known, List.copyOf(marked));
  }
}
