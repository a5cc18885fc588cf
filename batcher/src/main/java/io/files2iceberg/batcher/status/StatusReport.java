package io.files2iceberg.batcher.status;

import io.files2iceberg.batcher.history.FileLoad;
import io.files2iceberg.batcher.history.LoadHistory;
import io.files2iceberg.batcher.engine.TableStops;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.TableChange;
import io.files2iceberg.core.ledger.TableStatus;
import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.core.profile.TableProfile;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The pipeline at a glance, read from the ledger: per table, partitions and files by state, the
 * batches in flight, the last commit, the lag, the failures and, with the profiles, what stops it. Rendered by {@link StatusFormat}.
 *
 * @param generatedAt when it was read
 * @param tables sorted by table
 * @param quarantinedMessages notifications that could never be recorded (the whole deployment)
 * @param filesSince with {@code status --files}: where each table's file loads start
 */
public record StatusReport(Instant generatedAt, List<TableView> tables, int quarantinedMessages,
    Optional<Instant> filesSince) {

  public StatusReport {
    Objects.requireNonNull(generatedAt, "generatedAt");
    Objects.requireNonNull(filesSince, "filesSince");
    tables = List.copyOf(tables);
  }

  /**
   * One table: what the ledger holds about it, with what the profiles and the clock add.
   *
   * @param status the ledger's counts, batches and failures of the table
   * @param profile the profile that loads it; empty when the ledger knows a table no profile given
   *     loads (or no profiles were given)
   * @param mode the profile's ingestion type
   * @param lag how long the oldest READY partition has been waiting; empty when none waits
   * @param stoppedBy quarantined files that stop the table's runs (strict-pattern); known only
   *     when the profiles are given
   * @param fileLoads with {@code status --files}: the table's file loads since then, newest first
   *     ({@link LoadHistory})
   * @param unfinishedChange an operator's change ({@code rollback}, {@code drop-partition}) written
   *     down and not finished: no batch of the table is claimed until it is run again
   * @param cleanupPending files landing cleanup decided on ({@code load.after-ingest}) whose
   *     landed object is not removed yet: a {@code maintain} that stopped between the ledger and
   *     the storage; the next one finishes them. At most {@link #CLEANUP_PENDING_SHOWN}
   */
  public record TableView(
      TableStatus status,
      Optional<String> profile,
      Optional<IngestionType> mode,
      Optional<Duration> lag,
      List<TableStops.Stop> stoppedBy,
      Optional<List<FileLoad>> fileLoads,
      Optional<TableChange> unfinishedChange,
      int cleanupPending) {

    /** The most pending cleanups counted per table. */
    public static final int CLEANUP_PENDING_SHOWN = 1000;

    public TableView {
      fileLoads = fileLoads.map(List::copyOf);
      stoppedBy = List.copyOf(stoppedBy);
    }

    public String table() {
      return status.table();
    }
  }

  /**
   * Reads the status of every table the ledger or the profiles know.
   *
   * @param profiles the deployment's profiles, when given: their tables are shown even before the
   *     ledger knows them, with their profile and mode
   * @param table only this table, when given
   */
  public static StatusReport read(Ledger ledger, Optional<ProfileRegistry> profiles, Optional<String> table,
      Clock clock) {
    return read(ledger, profiles, table, Optional.empty(), clock);
  }

  /**
   * {@link #read(Ledger, Optional, Optional, Clock)}, with each table's file loads since {@code
   * filesSince} when given.
   */
  public static StatusReport read(Ledger ledger, Optional<ProfileRegistry> profiles, Optional<String> table,
      Optional<Instant> filesSince, Clock clock) {
    Instant now = clock.instant();
    TreeSet<String> tables = new TreeSet<>(ledger.tables());
    profiles.ifPresent(registry -> registry.profiles().forEach(p -> tables.add(p.table())));
    table.ifPresent(only -> tables.retainAll(List.of(only)));
    Map<String, List<TableStops.Stop>> stops =
        profiles.map(registry -> TableStops.read(ledger, registry.profiles())).orElse(Map.of());
    List<TableView> views = tables.stream().map(name -> {
      TableStatus status = ledger.tableStatus(name);
      Optional<TableProfile> profile = profiles.flatMap(registry -> registry.byTable(name));
      Optional<Duration> lag = status.oldestReadyAt().map(ready -> Duration.between(ready, now))
          .map(d -> d.isNegative() ? Duration.ZERO : d);
      return new TableView(status, profile.map(TableProfile::name),
          profile.map(p -> p.extract().batchFile().ingestionType()), lag, stops.getOrDefault(name, List.of()),
          filesSince.map(since -> LoadHistory.read(ledger, name, since)),
          ledger.changes(name).stream().filter(c -> c.state() == TableChange.ChangeState.INTENDED).findFirst(),
          ledger.filesBeingCleaned(name, TableView.CLEANUP_PENDING_SHOWN).size());
    }).toList();
    return new StatusReport(now, views, ledger.quarantinedMessages().size(), filesSince);
  }
}
