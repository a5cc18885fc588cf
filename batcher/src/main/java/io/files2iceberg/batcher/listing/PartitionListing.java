package io.files2iceberg.batcher.listing;

import io.files2iceberg.batcher.engine.StorageListing;
import io.files2iceberg.batcher.engine.StorageListing.PartitionFolder;
import io.files2iceberg.batcher.engine.StorageListing.Scan;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.profile.TableProfile;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Lists the objects of a range of partitions as cheaply as the ledger allows: one partition whose
 * folder the ledger knows (its marker's prefix) is one prefix listing; otherwise the partition
 * folders are enumerated with delimiter listings and only those in the range (or whose value is not
 * known before listing them) are listed.
 */
public final class PartitionListing {
  private PartitionListing() {}

  /** The objects of the range, restricted to its partitions. */
  public static Scan scan(StorageListing listing, Ledger ledger, TableProfile profile, PartitionRange range) {
    List<String> prefixes;
    Optional<String> knownPrefix = range.single()
        .flatMap(token -> ledger.partition(profile.table(), token))
        .flatMap(PartitionRecord::prefix);
    if (knownPrefix.isPresent()) {
      prefixes = List.of(StorageListing.namePrefix(knownPrefix.get()));
    } else {
      prefixes = listing.partitionFolders(profile).stream()
          .filter(folder -> folder.token().map(range::contains).orElse(true))
          .map(PartitionFolder::prefix)
          .toList();
    }
    Scan scan = listing.scan(profile, prefixes);
    return new Scan(
        scan.data().stream().filter(f -> range.contains(f.partition().token())).toList(),
        scan.markers().entrySet().stream().filter(e -> range.contains(e.getKey()))
            .collect(Collectors.toUnmodifiableMap(Map.Entry::getKey, Map.Entry::getValue)),
        scan.rejected());
  }
}
