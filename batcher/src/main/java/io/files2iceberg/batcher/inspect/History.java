package io.files2iceberg.batcher.inspect;

import io.files2iceberg.batcher.cli.NotInLedgerException;
import io.files2iceberg.batcher.engine.launch.AttemptResults;
import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import io.files2iceberg.batcher.engine.launch.dataproc.DataprocLauncher;
import io.files2iceberg.batcher.engine.ManifestStore;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.manifest.AttemptResult;
import io.files2iceberg.core.match.ObjectLocation;
import io.files2iceberg.core.profile.TableProfile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * What {@code inspect} shows: one partition, batch or object with everything the ledger holds
 * about it. Pruned batches are gone from the ledger; their files still name them.
 */
public sealed interface History {

  /** A partition, every file recorded for it (every state and generation) and its stored batches. */
  record OfPartition(PartitionRecord partition, List<FileRecord> files, List<BatchRecord> batches)
      implements History {}

  /** A batch, its files in claim order and its launches, oldest first. */
  record OfBatch(BatchRecord batch, List<FileRecord> files, List<Attempt> attempts) implements History {}

  /**
   * One launch of a batch, as the job recorded it.
   *
   * @param resultLocation where the job writes its result, beside the manifest
   * @param result the result, once the job wrote it
   * @param log where the launch's output goes: a local file, or the Dataproc batch
   */
  record Attempt(int attempt, String resultLocation, Optional<AttemptResult> result, String log) {}

  /**
   * Every recorded generation of one object (oldest first) and the stored batches that took them.
   *
   * @param uri the object as the ledger names it
   */
  record OfFile(String uri, List<FileRecord> generations, List<BatchRecord> batches) implements History {}

  /** @throws NotInLedgerException naming the partition when the ledger does not know it */
  static OfPartition ofPartition(Ledger ledger, String table, String partition) {
    PartitionRecord record = ledger.partition(table, partition).orElseThrow(() ->
        new NotInLedgerException("no partition " + partition + " of table " + table + " in the ledger"));
    return new OfPartition(record, ledger.filesOfPartition(table, partition),
        ledger.batchesOfPartition(table, partition));
  }

  /**
   * A batch, with the results and logs of its launches when its profile is known ({@code
   * --config}); without it, where they are is unknown and no attempts are listed.
   *
   * @param profiles the profile of a table, when the command has them
   * @param dataprocRegion the deployment's {@code job.dataproc-region}, when the command has the deployment
   * @param fallbackLogs where the local launcher logs a profile whose metadata path is not local
   * @throws NotInLedgerException naming the batch when the ledger does not know it
   */
  public static OfBatch ofBatch(Ledger ledger, String batchId, Function<String, Optional<TableProfile>> profiles,
      Optional<String> dataprocRegion, Path fallbackLogs, AttemptResults results) {
    BatchRecord batch = ledger.batch(batchId)
        .orElseThrow(() -> new NotInLedgerException("no batch " + batchId + " in the ledger"));
    Optional<TableProfile> profile = profiles.apply(batch.table());
    List<Attempt> attempts = new ArrayList<>();
    if (profile.isPresent()) {
      String manifest = ManifestStore.location(profile.get(), batchId);
      for (int launch = 1; launch <= batch.launches(); launch++) {
        int attempt = launch;
        String location = AttemptResult.locationBeside(manifest, attempt);
        String log = dataprocRegion
            .map(region -> "Dataproc batch " + DataprocLauncher.dataprocBatchId(batchId, attempt) + " in " + region)
            .orElse(LocalSparkLauncher.logFile(profile.get(), fallbackLogs, batchId, attempt).toString());
        attempts.add(new Attempt(attempt, location, results.read(location), log));
      }
    }
    return new OfBatch(batch, ledger.filesOfBatch(batchId), attempts);
  }

  /**
   * An object by its {@code gs://} or {@code file://} URI or a local path, all its generations or
   * only {@code generation}.
   *
   * @throws NotInLedgerException naming the object when the ledger knows no such generation
   * @throws IllegalArgumentException when {@code object} is not a URI or path
   */
  static OfFile ofFile(Ledger ledger, String object, Optional<Long> generation) {
    ObjectLocation location = locate(object);
    List<FileRecord> generations = new ArrayList<>(ledger.filesNamed(location.bucket(), location.name()));
    generation.ifPresent(g -> generations.removeIf(file -> file.generation() != g));
    if (generations.isEmpty()) {
      throw new NotInLedgerException("no file " + location.uri()
          + generation.map(g -> " generation " + g).orElse("") + " in the ledger");
    }
    // A file names only its current batch; the batches of its partition name every one it was in.
    Set<String> fileIds = new HashSet<>();
    Set<List<String>> partitions = new LinkedHashSet<>();
    for (FileRecord file : generations) {
      fileIds.add(file.fileId());
      partitions.add(List.of(file.table(), file.partition()));
    }
    Map<String, BatchRecord> batches = new LinkedHashMap<>();
    for (List<String> partition : partitions) {
      for (BatchRecord batch : ledger.batchesOfPartition(partition.get(0), partition.get(1))) {
        if (batch.fileIds().stream().anyMatch(fileIds::contains)) {
          batches.putIfAbsent(batch.batchId(), batch);
        }
      }
    }
    return new OfFile(location.uri(), List.copyOf(generations), List.copyOf(batches.values()));
  }

  /**
   * A URI ({@code gs://}, {@code file:}; any other scheme is refused naming it) as it is; anything
   * else is a local path, made absolute.
   */
  static ObjectLocation locate(String object) {
    if (object.contains("://") || object.startsWith(ObjectLocation.FILE + ":")) {
      return ObjectLocation.parse(object);
    }
    return ObjectLocation.file(Path.of(object));
  }
}
