package io.files2iceberg.core.ledger;

import java.util.List;
import java.util.Objects;

/**
 * Fact: the newest READY partition of a table was claimed whole (mode {@code last}).
 *
 * @param batch the new PLANNED batch, holding that one partition
 * @param superseded the older READY partitions now SUPERSEDED, sorted; they are never loaded
 */
public record NewestPartitionClaimed(BatchRecord batch, List<String> superseded) {
  public NewestPartitionClaimed {
    Objects.requireNonNull(batch, "batch");
    superseded = List.copyOf(superseded);
  }
}
