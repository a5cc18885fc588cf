package io.files2iceberg.batcher.maintain;

import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.TableStatus;
import io.files2iceberg.core.profile.TableProfile;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What the ledger allows maintenance to do on one table, decided before anything is launched.
 *
 * <ul>
 *   <li><b>Refused</b> while a batch of the table is PLANNED or RUNNING with a live lease: its job
 *       may be writing right now (a compaction would conflict with its MERGE, and its snapshot
 *       would not be protected yet).
 *   <li><b>Protected</b>, by batch id: batches in flight whose lease expired (recovery relaunches
 *       the same batch id, and its job must find its marker if it committed before dying), the
 *       newest FAILED batches (kept so an operator can see from the table whether one committed
 *       before it failed), and the newest {@code extract.keep-checkpoints} batch markers of the
 *       table: the COMMITTED batches the ledger still keeps, whose manifests a re-run would find in
 *       the table.
 * </ul>
 */
public final class MaintenanceGuard {
  private MaintenanceGuard() {}

  /** The ledger's answer for one table. */
  public sealed interface Decision permits Refused, Allowed {}

  /** A batch may be writing to the table; the message names it. */
  public record Refused(String table, String batchId, String message) implements Decision {}

  /**
   * @param protect batch id to why it is protected, in the ledger's order
   * @param protectNewest newest markers of the table kept besides (the COMMITTED batches the ledger keeps)
   */
  public record Allowed(Map<String, String> protect, int protectNewest) implements Decision {
    public Allowed {
      protect = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(protect));
    }
  }

  public static Decision decide(Ledger ledger, TableProfile profile, Instant now) {
    TableStatus status = ledger.tableStatus(profile.table());
    Map<String, String> protect = new LinkedHashMap<>();
    for (BatchRecord batch : status.inFlight()) {
      Optional<Instant> lease = batch.leaseUntil();
      if (lease.isEmpty() || lease.get().isAfter(now)) {
        return new Refused(profile.table(), batch.batchId(), "table " + profile.table() + ": batch " + batch.batchId() + " is "
            + batch.state() + lease.map(l -> " with its lease until " + l).orElse("")
            + "; its job may be writing: run maintain once no batch of the table is in flight");
      }
      protect.put(batch.batchId(), batch.state() + " with its lease expired: recovery relaunches this batch");
    }
    for (BatchRecord batch : status.failedBatches()) {
      protect.putIfAbsent(batch.batchId(), "FAILED: kept to show whether it committed before failing");
    }
    return new Allowed(protect, profile.extract().keepCheckpoints());
  }
}
