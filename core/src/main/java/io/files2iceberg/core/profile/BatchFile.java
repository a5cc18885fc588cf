package io.files2iceberg.core.profile;

import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.ClaimNewestPartition;
import io.files2iceberg.core.ledger.ClaimPartitions;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.rules.ClaimWalk;
import io.files2iceberg.core.manifest.ManifestFile;
import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.ResolverStyle;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How objects become partitions, and when a partition is ready.
 *
 * @param ingestionType incremental (event-driven, the default), last or full
 * @param partitionType date or string
 * @param pattern a regular expression with exactly one capture group, matched against the whole
 *     object URI (or, failing that, the object name); the group is the partition token. Empty: the
 *     object's parent folder below the glob's fixed prefix is the token
 * @param partitionColumn the column the job adds from the partition token, never empty: as set,
 *     else the pattern's named group, else the {@code name} of a {@code name=} just before the
 *     pattern's group, else {@code partition}
 * @param dateFormat a {@link java.time.format.DateTimeFormatter} pattern; required for date
 *     partitions
 * @param strictPattern a data file that matches the glob but not the pattern is an error, not a skip
 * @param successFileFilter a partition is ready only once its success marker has landed
 * @param successFileName the marker's object name inside the partition folder
 */
public record BatchFile(
    IngestionType ingestionType,
    PartitionType partitionType,
    Optional<String> pattern,
    String partitionColumn,
    Optional<String> dateFormat,
    boolean strictPattern,
    boolean successFileFilter,
    String successFileName) {

  public BatchFile {
    Objects.requireNonNull(partitionColumn, "partitionColumn");
    if (partitionColumn.isBlank()) {
      throw new IllegalArgumentException("partitionColumn must not be blank");
    }
  }

  /**
   * The formatter partitions of {@code date-format} are parsed with. STRICT rejects 2024-02-30
   * instead of clamping it; the defaulted era lets STRICT resolve the year-of-era that "yyyy"
   * parses.
   *
   * @throws IllegalArgumentException for a pattern {@link DateTimeFormatter} does not know
   */
  public static DateTimeFormatter strictDateFormat(String pattern) {
    return new DateTimeFormatterBuilder()
        .appendPattern(pattern)
        .parseDefaulting(ChronoField.ERA, 1)
        .toFormatter()
        .withResolverStyle(ResolverStyle.STRICT);
  }

  /**
   * What one run of the batcher loads, and everything that follows from it: how a batch is
   * claimed, whether the ledger checkpoints it, whether its batch replaces the table, which keys
   * the mode refuses, how a replay treats it. A new mode is one constant here; nothing outside
   * compares constants. A method a constant does not override does what {@code incremental} does.
   * Its {@link #code()} is the value of {@code extract.batch-file.ingestion-type} and of the
   * manifest's {@code mode}.
   */
  public enum IngestionType {
    /** Every READY partition, once, through the ledger: what every mode does unless it says otherwise. */
    INCREMENTAL("incremental") {
      @Override
      public String listedBatchPrefix() {
        return "backfill";
      }
    },

    /** Only the newest READY partition, with overwrite; older READY ones are superseded. */
    LAST("last") {
      @Override
      public Optional<Claimed> claim(Ledger ledger, ClaimLimits limits) {
        return ledger.claimNewestPartition(new ClaimNewestPartition(limits.table(), limits.lease()))
            .map(claimed -> new Claimed(claimed.batch(), claimed.superseded()));
      }

      @Override
      public boolean claimsOncePerTurn() {
        return true;
      }

      @Override
      public boolean replacesTable() {
        return true;
      }

      @Override
      public boolean readsWholePartitions() {
        return true;
      }

      @Override
      public List<List<ManifestFile>> listedChunks(List<ManifestFile> files, int maxBatchSize) {
        if (files.isEmpty()) {
          return List.of();
        }
        String newest = files.get(files.size() - 1).partition();
        return List.of(files.stream().filter(f -> f.partition().equals(newest)).toList());
      }
    },

    /** Every file matching the glob, listed on each run, with overwrite; no checkpoint. */
    FULL("full") {
      @Override
      public boolean replacesTable() {
        return true;
      }

      @Override
      public boolean checkpoints() {
        return false;
      }

      @Override
      public List<List<ManifestFile>> listedChunks(List<ManifestFile> files, int maxBatchSize) {
        return files.isEmpty() ? List.of() : List.of(files);
      }

      /** A ledger batch of a profile since switched to full (which has none) loads incrementally. */
      @Override
      public IngestionType recoveredAs() {
        return INCREMENTAL;
      }

      @Override
      public Optional<String> whyNotReplayed() {
        return Optional.of("ingestion-type = full: every run loads every file");
      }
    };

    /** The mode of a profile that sets none. */
    public static final IngestionType DEFAULT = INCREMENTAL;

    private final String code;

    IngestionType(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }

    /** The mode of the given {@link #code()}, if any. */
    public static Optional<IngestionType> ofCode(String code) {
      return Arrays.stream(values()).filter(type -> type.code.equals(code)).findFirst();
    }

    /**
     * The mode of files loaded outside the ledger that add to the table and replace nothing, as
     * {@code replay --no-checkpoint} loads them: incremental.
     */
    public static IngestionType backfill() {
      return INCREMENTAL;
    }

    /**
     * Claims the table's next batch in the ledger: the READY partitions, oldest first, up to
     * {@link ClaimLimits#maxFiles()} files (incremental), or the newest READY partition whole,
     * superseding the older ones ({@code last}).
     */
    public Optional<Claimed> claim(Ledger ledger, ClaimLimits limits) {
      return ledger.claimPartitions(
              new ClaimPartitions(limits.table(), limits.maxFiles(), limits.lease(), true, limits.maxBytes()))
          .map(batch -> new Claimed(batch, List.of()));
    }

    /** Whether a run claims one batch only ({@code last}), not batch after batch until none is READY. */
    public boolean claimsOncePerTurn() {
      return false;
    }

    /**
     * Whether each batch replaces the whole table ({@code last}, {@code full}), so that there is no
     * stored row to merge into or delete ({@code load.cdc} is refused) and no Overwrite of
     * partitions or Append to check.
     */
    public boolean replacesTable() {
      return false;
    }

    /**
     * Whether a batch claimed from the ledger must also read its partitions' files loaded by
     * earlier batches ({@code last}: its batch replaces the table with its one partition).
     */
    public boolean readsWholePartitions() {
      return false;
    }

    /**
     * Whether the mode loads through the ledger's checkpoint at all; {@code full} lists every file
     * on every run and the listener records nothing for it.
     */
    public boolean checkpoints() {
      return true;
    }

    /**
     * The listed files of a run without a checkpoint, batch by batch: {@code full} and {@code last}
     * load one batch that replaces the table (for {@code last}, the newest partition only), so
     * {@code max-batch-size} does not apply; an incremental backfill goes in batches of that size.
     *
     * @param files sorted by partition, the newest last
     */
    public List<List<ManifestFile>> listedChunks(List<ManifestFile> files, int maxBatchSize) {
      List<List<ManifestFile>> chunks = new ArrayList<>();
      for (int from = 0; from < files.size(); from += maxBatchSize) {
        chunks.add(files.subList(from, Math.min(files.size(), from + maxBatchSize)));
      }
      return chunks;
    }

    /** The prefix of a listed batch's id: {@code full-...}, {@code last-...}, {@code backfill-...}. */
    public String listedBatchPrefix() {
      return code;
    }

    /** The mode a ledger batch of this profile is recovered in; the ledger does not keep it. */
    public IngestionType recoveredAs() {
      return this;
    }

    /** Why {@code replay} cannot load this mode's partitions again, if it cannot. */
    public Optional<String> whyNotReplayed() {
      return Optional.empty();
    }

    /**
     * Whether the mode refuses a setting: a delete of {@code load.cdc} removes a stored row, and a
     * mode whose batch replaces the table has none; {@code load.snapshot-deletes} deletes the keys a
     * batch lacks, which only a batch holding the table's whole content may do.
     */
    public boolean refuses(SettingKey<?> key) {
      if (key == LoadKeys.LOAD_SNAPSHOT_DELETES) {
        return !replacesTable();
      }
      return replacesTable() && (key == LoadKeys.LOAD_CDC_OP_COLUMN || key == LoadKeys.LOAD_CDC_DELETE_FLAG);
    }

    /**
     * What bounds a claim.
     *
     * @param maxFiles at least 1
     * @param maxBytes the most bytes of files the batch takes, but never fewer than one file; {@link
     *     ClaimWalk#NO_BYTE_CAP} for none
     * @param lease how long the batch is held before recovery may take it over
     */
    public record ClaimLimits(String table, int maxFiles, long maxBytes, Duration lease) {
      public ClaimLimits {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(lease, "lease");
      }

      /** The limits the profile sets, with the deployment's lease. */
      public static ClaimLimits of(TableProfile profile, Duration lease) {
        return new ClaimLimits(profile.table(), profile.extract().maxBatchSize(),
            profile.extract().maxBatchBytes().orElse(ClaimWalk.NO_BYTE_CAP), lease);
      }
    }

    /**
     * Fact: a batch was claimed in the ledger.
     *
     * @param superseded the older READY partitions the claim superseded ({@code last}), sorted
     */
    public record Claimed(BatchRecord batch, List<String> superseded) {
      public Claimed {
        Objects.requireNonNull(batch, "batch");
        superseded = List.copyOf(superseded);
      }
    }


  }

  /** The type of the partition token and of the partition column the job adds. */
  public enum PartitionType {
    DATE("date"),
    STRING("string");

    private final String code;

    PartitionType(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }
  }
}
