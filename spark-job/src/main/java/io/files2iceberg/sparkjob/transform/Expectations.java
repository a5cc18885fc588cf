package io.files2iceberg.sparkjob.transform;

import static io.files2iceberg.sparkjob.extract.SqlNames.column;

import io.files2iceberg.core.manifest.ExpectationCounts;
import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.profile.Expectation;
import io.files2iceberg.core.profile.Expectation.Kind;
import io.files2iceberg.core.profile.Expectation.OnViolation;
import io.files2iceberg.core.profile.Load.Cdc;
import io.files2iceberg.sparkjob.extract.InternalColumns;
import io.files2iceberg.sparkjob.extract.LoadBatch;
import io.files2iceberg.sparkjob.stage.BatchFailedException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The batch's {@code quality.expectations}, evaluated within the transform's one pass over the
 * rows (docs/spark-job.md, "Data quality expectations"):
 *
 * <ol>
 *   <li>A row is checked ({@link #CHECKED}) when {@code transform.filter} kept it, it is no bad
 *       record and it is no {@code load.cdc} delete (a delete carries its key only). Each check
 *       is a column of the rows by the table's names, computed for checked rows only: a row meets
 *       it only when it is TRUE, so NULL is a violation.
 *   <li>A row's action ({@link #ACTION}) is the strongest of the checks it violates: fail, reject,
 *       drop, warn. A rejected row names the first reject check it violated ({@link #REJECTED_BY}).
 *   <li>The per-file aggregate sums the violations, the actions, the rows that would load and, for
 *       each {@code max-null-fraction} column, those of them that are NULL there ({@link
 *       #perFileSums}). From these sums alone the aggregates are decided per partition of the batch
 *       (a partition's rows are those of its files in this batch, less deletes), and their action
 *       applies to every row of the partition that would load ({@link #decide}).
 * </ol>
 */
final class Expectations {
  /** Whether the checks apply to the row. */
  static final String CHECKED = InternalColumns.PREFIX + "checked";
  /** The strongest action of the checks the row violated, as the profile spells it; NULL for none. */
  static final String ACTION = InternalColumns.PREFIX + "action";
  /** With {@link #ACTION} reject: the first reject check the row violated. */
  static final String REJECTED_BY = InternalColumns.PREFIX + "rejected_by";

  private static final Logger LOG = LoggerFactory.getLogger(CommonTransformations.class);
  private static final String VIOLATED = InternalColumns.PREFIX + "violated_";
  private static final String POSITION = InternalColumns.PREFIX + "position";
  private static final int SAMPLE = 5;
  private static final String FIX = "Fix the files or the profile, then run retry for the batch";

  private final LoadBatch batch;
  private final List<Expectation> all;
  private final List<Expectation> checks;
  private final List<Column> conditions;
  private final List<Expectation> aggregates;
  private final List<String> nullColumns;

  private Expectations(LoadBatch batch, List<Column> conditions, List<String> nullColumns) {
    this.batch = batch;
    this.all = batch.profile().quality().expectations();
    this.checks = batch.profile().quality().rowChecks();
    this.conditions = conditions;
    this.aggregates = batch.profile().quality().aggregates();
    this.nullColumns = nullColumns;
  }

  /**
   * The profile's expectations, each checked against the rows' columns.
   *
   * @param rows the rows by the table's column names, with internal columns
   * @throws BatchFailedException naming {@code quality.expectations[i]} when a check does not
   *     apply to the columns or is no condition, or a {@code max-null-fraction} column is not one
   *     of them
   */
  static Expectations of(LoadBatch batch, Dataset<Row> rows) {
    List<String> columns = List.of(rows.columns()).stream().filter(c -> !InternalColumns.isInternal(c)).toList();
    List<Column> tableColumns = columns.stream().map(c -> column(c)).toList();
    List<Column> conditions = new ArrayList<>();
    List<String> nullColumns = new ArrayList<>();
    List<Expectation> all = batch.profile().quality().expectations();
    for (int i = 0; i < all.size(); i++) {
      Expectation expectation = all.get(i);
      String key = key(i, expectation);
      if (expectation.kind() == Kind.CHECK) {
        String check = expectation.check().orElseThrow();
        Column condition;
        DataType type;
        try {
          condition = functions.expr(check);
          // With the columns beside it, an aggregate function is refused as it would be in the pass.
          List<Column> probe = new ArrayList<>(tableColumns);
          probe.add(condition);
          type = rows.select(probe.toArray(Column[]::new)).schema().fields()[probe.size() - 1].dataType();
        } catch (Exception e) { // Spark's AnalysisException and ParseException, thrown undeclared
          throw new BatchFailedException(key + ": check \"" + check + "\" does not apply to the batch's columns "
              + columns + ": " + CommonTransformations.firstLine(e.getMessage()), e);
        }
        if (!(type instanceof BooleanType)) {
          throw new BatchFailedException(key + ": check \"" + check + "\" is of type " + type.simpleString()
              + ", not a condition");
        }
        conditions.add(condition);
      } else if (expectation.kind() == Kind.MAX_NULL_FRACTION) {
        String name = expectation.column().orElseThrow();
        if (!columns.contains(name)) {
          throw new BatchFailedException(key + ": column \"" + name + "\" is not among the batch's columns " + columns
              + " (after transform.rename-columns)");
        }
        if (!nullColumns.contains(name)) {
          nullColumns.add(name);
        }
      }
    }
    return new Expectations(batch, conditions, nullColumns);
  }

  private static String key(int index, Expectation expectation) {
    return "quality.expectations[" + index + "] " + expectation.name();
  }

  private String key(Expectation expectation) {
    return key(all.indexOf(expectation), expectation);
  }

  /**
   * The rows with {@link #CHECKED}, a violation column per check, {@link #ACTION} and {@link
   * #REJECTED_BY}.
   *
   * @param applies whether the checks may apply to the row: kept by the filter, no bad record
   */
  Dataset<Row> evaluated(Dataset<Row> rows, Column applies) {
    Column checked = applies;
    Optional<Cdc> cdc = batch.profile().load().cdc();
    if (!all.isEmpty() && cdc.isPresent()) {
      checked = checked.and(functions.not(CdcDeletes.isDelete(rows, cdc.get())));
    }
    Dataset<Row> withChecked = rows.select(functions.col("*"), checked.as(CHECKED));
    List<Column> violations = new ArrayList<>();
    violations.add(functions.col("*"));
    for (int i = 0; i < checks.size(); i++) {
      // CASE WHEN evaluates the condition only for the rows it applies to.
      violations.add(functions.when(column(CHECKED), functions.not(functions.coalesce(conditions.get(i),
          functions.lit(false)))).otherwise(false).as(VIOLATED + i));
    }
    Dataset<Row> violated = withChecked.select(violations.toArray(Column[]::new));
    Column action = null;
    for (OnViolation level : OnViolation.values()) {
      Column any = anyViolated(level);
      if (any != null) {
        action = action == null ? functions.when(any, level.code()) : action.when(any, level.code());
      }
    }
    Column rejectedBy = null;
    for (int i = 0; i < checks.size(); i++) {
      if (checks.get(i).onViolation() == OnViolation.REJECT) {
        Column violatedIt = column(VIOLATED + i);
        rejectedBy = rejectedBy == null ? functions.when(violatedIt, checks.get(i).name())
            : rejectedBy.when(violatedIt, checks.get(i).name());
      }
    }
    return violated.select(functions.col("*"),
        (action == null ? functions.lit(null).cast("string") : action).as(ACTION),
        (rejectedBy == null ? functions.lit(null).cast("string") : rejectedBy).as(REJECTED_BY));
  }

  private Column anyViolated(OnViolation level) {
    Column any = null;
    for (int i = 0; i < checks.size(); i++) {
      if (checks.get(i).onViolation() == level) {
        any = any == null ? column(VIOLATED + i) : any.or(column(VIOLATED + i));
      }
    }
    return any;
  }

  /** Whether a checked row's action lets it load: none, or warn. */
  static Column loads() {
    return column(ACTION).isNull().or(column(ACTION).equalTo(OnViolation.WARN.code()));
  }

  /** Whether an expectation rejected the row itself (a check). */
  static Column rejectedByCheck() {
    return column(ACTION).equalTo(OnViolation.REJECT.code());
  }

  /** Whether any aggregate may send a whole partition's rows to the rejected rows. */
  boolean mayRejectPartitions() {
    return aggregates.stream().anyMatch(a -> a.onViolation() == OnViolation.REJECT);
  }

  /** The reason a check's reject gives: {@code expectation amount_positive failed: amount > 0}. */
  Column checkReason() {
    Column reason = functions.lit(null).cast("string");
    for (Expectation check : checks) {
      if (check.onViolation() == OnViolation.REJECT) {
        reason = functions.when(column(REJECTED_BY).equalTo(check.name()),
            "expectation " + check.name() + " failed: " + check.rule()).otherwise(reason);
      }
    }
    return reason;
  }

  /**
   * The sums the per-file aggregate adds; {@link #fileCounts} reads them back from the same
   * position.
   *
   * @param applies whether the row was kept by the filter and is no bad record
   */
  List<Column> perFileSums(Column applies) {
    List<Column> sums = new ArrayList<>();
    for (int i = 0; i < checks.size(); i++) {
      sums.add(count(column(VIOLATED + i)));
    }
    sums.add(count(column(CHECKED)));
    sums.add(count(rejectedByCheck()));
    sums.add(count(column(ACTION).equalTo(OnViolation.DROP.code())));
    sums.add(count(applies.and(loads())));
    sums.add(count(column(CHECKED).and(loads())));
    for (String name : nullColumns) {
      sums.add(count(column(CHECKED).and(loads()).and(column(name).isNull())));
    }
    return sums;
  }

  private static Column count(Column condition) {
    return functions.sum(functions.when(condition, 1).otherwise(0));
  }

  /** A file's sums, read from its row of the per-file aggregate from {@code at} on. */
  FileCounts fileCounts(Row row, int at) {
    long[] violated = new long[checks.size()];
    for (int i = 0; i < violated.length; i++) {
      violated[i] = CommonTransformations.longOrZero(row, at++);
    }
    long checked = CommonTransformations.longOrZero(row, at++);
    long rejected = CommonTransformations.longOrZero(row, at++);
    long dropped = CommonTransformations.longOrZero(row, at++);
    long loading = CommonTransformations.longOrZero(row, at++);
    long loadingChecked = CommonTransformations.longOrZero(row, at++);
    long[] nulls = new long[nullColumns.size()];
    for (int i = 0; i < nulls.length; i++) {
      nulls[i] = CommonTransformations.longOrZero(row, at++);
    }
    return new FileCounts(checked, violated, rejected, dropped, loading, loadingChecked, nulls);
  }

  /**
   * A file's sums.
   *
   * @param checked its rows the checks applied to
   * @param violated by check, its rows that violated it
   * @param rejected its rows a check rejected
   * @param dropped its rows a check dropped
   * @param loading its rows that would load after the checks (kept, no bad record, no check's
   *     reject or drop), deletes included
   * @param loadingChecked those of them that are no delete: the rows the aggregates measure
   * @param nulls by {@code max-null-fraction} column, those of them with the column NULL
   */
  record FileCounts(long checked, long[] violated, long rejected, long dropped, long loading, long loadingChecked,
      long[] nulls) {
    static FileCounts none(int checks, int nullColumns) {
      return new FileCounts(0, new long[checks], 0, 0, 0, 0, new long[nullColumns]);
    }
  }

  FileCounts noRows() {
    return FileCounts.none(checks.size(), nullColumns.size());
  }

  /**
   * Decides the expectations over the files' sums: a fail action that was met fails the batch;
   * the aggregates are decided per partition, from its files' sums.
   *
   * @param staged the cached rows, for the sample a failure names
   * @param files the files read, in manifest order, with their sums by their position in the
   *     batch's files to read ({@link InternalColumns#ORDER})
   * @throws BatchFailedException when an expectation whose action is fail was violated
   */
  Verdict decide(Dataset<Row> staged, Map<Integer, ManifestFile> files, Map<Integer, FileCounts> sums) {
    for (int i = 0; i < checks.size(); i++) {
      if (checks.get(i).onViolation() == OnViolation.FAIL) {
        int check = i;
        long failed = sums.values().stream().mapToLong(c -> c.violated()[check]).sum();
        if (failed > 0) {
          throw failedRows(staged, i, failed);
        }
      }
    }
    Map<String, Partition> partitions = new LinkedHashMap<>();
    files.forEach((order, file) -> {
      FileCounts counts = sums.get(order);
      Partition partition = partitions.computeIfAbsent(file.partition(),
          p -> new Partition(p, new ArrayList<>(), new ArrayList<>(), new long[] {0}, new long[nullColumns.size()]));
      partition.orders().add(order);
      partition.uris().add(file.uri());
      partition.rows()[0] += counts.loadingChecked();
      for (int c = 0; c < nullColumns.size(); c++) {
        partition.nulls()[c] += counts.nulls()[c];
      }
    });
    Map<Expectation, List<Partition>> failedPartitions = new LinkedHashMap<>();
    for (Expectation aggregate : aggregates) {
      List<Partition> failed = partitions.values().stream().filter(p -> !meets(aggregate, p)).toList();
      failedPartitions.put(aggregate, failed);
      if (aggregate.onViolation() == OnViolation.FAIL && !failed.isEmpty()) {
        Partition first = failed.get(0);
        throw new BatchFailedException(key(aggregate) + " (" + aggregate.rule() + ", on-violation fail) failed for "
            + partitionText(first) + ": " + measure(aggregate, first) + "; files: " + first.uris() + "."
            + (failed.size() > 1 ? " " + (failed.size() - 1) + " other partition(s) failed it too." : "") + " " + FIX);
      }
    }
    // Each partition's action: the strongest of the aggregates it failed; a reject names the first.
    Map<Integer, Held> held = new LinkedHashMap<>();
    for (Partition partition : partitions.values()) {
      Held strongest = null;
      for (Expectation aggregate : aggregates) {
        if (failedPartitions.get(aggregate).contains(partition)
            && (aggregate.onViolation() == OnViolation.REJECT || aggregate.onViolation() == OnViolation.DROP)
            && (strongest == null || aggregate.onViolation().isStrongerThan(strongest.by().onViolation()))) {
          strongest = new Held(aggregate, "expectation " + aggregate.name() + " failed for " + partitionText(partition)
              + ": " + aggregate.rule() + " (" + measure(aggregate, partition) + ")");
        }
      }
      if (strongest != null) {
        for (Integer order : partition.orders()) {
          held.put(order, strongest);
        }
      }
    }

    Map<String, ExpectationCounts> counts = new LinkedHashMap<>();
    long checkedRows = sums.values().stream().mapToLong(FileCounts::checked).sum();
    for (Expectation expectation : all) {
      long failed;
      long passed;
      if (expectation.isRowLevel()) {
        int i = checks.indexOf(expectation);
        failed = sums.values().stream().mapToLong(c -> c.violated()[i]).sum();
        passed = checkedRows - failed;
      } else {
        failed = failedPartitions.get(expectation).size();
        passed = partitions.size() - failed;
      }
      counts.put(expectation.name(), new ExpectationCounts(expectation.onViolation().code(), passed, failed));
      if (expectation.onViolation() == OnViolation.WARN && failed > 0) {
        LOG.warn("Table {} batch {}: {} ({}, on-violation warn) failed for {} {}; they load", batch.table(),
            batch.batchId(), key(expectation), expectation.rule(), failed, expectation.isRowLevel() ? "row(s)"
                : "partition(s) " + failedPartitions.get(expectation).stream().map(Partition::name).toList());
      }
    }

    Map<Integer, Map<String, Long>> failedByFile = new LinkedHashMap<>();
    long rejected = 0;
    long dropped = 0;
    Map<Integer, long[]> heldRows = new LinkedHashMap<>();
    for (Map.Entry<Integer, FileCounts> entry : sums.entrySet()) {
      FileCounts file = entry.getValue();
      Map<String, Long> failed = new LinkedHashMap<>();
      for (int i = 0; i < checks.size(); i++) {
        failed.put(checks.get(i).name(), file.violated()[i]);
      }
      String partition = files.get(entry.getKey()).partition();
      for (Expectation aggregate : aggregates) {
        boolean inFailed = failedPartitions.get(aggregate).stream().anyMatch(p -> p.name().equals(partition));
        failed.put(aggregate.name(), inFailed ? file.loadingChecked() : 0);
      }
      failedByFile.put(entry.getKey(), failed);
      long fileRejected = file.rejected();
      long fileDropped = file.dropped();
      Held partitionHeld = held.get(entry.getKey());
      if (partitionHeld != null && partitionHeld.by().onViolation() == OnViolation.REJECT) {
        fileRejected += file.loading();
      } else if (partitionHeld != null) {
        fileDropped += file.loading();
      }
      heldRows.put(entry.getKey(), new long[] {fileRejected, fileDropped});
      rejected += fileRejected;
      dropped += fileDropped;
    }
    List<String> heldPartitions = partitions.values().stream()
        .filter(p -> p.orders().stream().anyMatch(held::containsKey)).map(Partition::name).toList();
    return new Verdict(new QualityOutcome(counts, rejected, dropped, heldPartitions), failedByFile, heldRows, held);
  }

  private boolean meets(Expectation aggregate, Partition partition) {
    long rows = partition.rows()[0];
    return switch (aggregate.kind()) {
      case MIN_ROWS -> rows >= aggregate.minRows();
      case MAX_NULL_FRACTION -> rows == 0
          || (double) partition.nulls()[nullColumns.indexOf(aggregate.column().orElseThrow())] / rows
              <= aggregate.maxNullFraction();
      case CHECK -> throw new IllegalArgumentException("not an aggregate: " + aggregate.name());
    };
  }

  private String measure(Expectation aggregate, Partition partition) {
    long rows = partition.rows()[0];
    return switch (aggregate.kind()) {
      case MIN_ROWS -> rows + " row(s) to load";
      case MAX_NULL_FRACTION -> partition.nulls()[nullColumns.indexOf(aggregate.column().orElseThrow())] + " of "
          + rows + " rows NULL";
      case CHECK -> throw new IllegalArgumentException("not an aggregate: " + aggregate.name());
    };
  }

  private static String partitionText(Partition partition) {
    return partition.name().isEmpty() ? "the batch's partition" : "partition " + partition.name();
  }

  /**
   * A check whose action is fail was violated: the failure names it, its rule, the count, the
   * first file at fault and a sample of the keys (without a key, of the rows' positions in that
   * file).
   */
  private BatchFailedException failedRows(Dataset<Row> staged, int i, long count) {
    Expectation check = checks.get(i);
    Column violated = column(VIOLATED + i);
    List<String> keys = batch.profile().load().primaryKey();
    Column[] order = {column(InternalColumns.ORDER), column(InternalColumns.ROW)};
    String first;
    List<String> sample = new ArrayList<>();
    if (!keys.isEmpty()) {
      List<Column> select = new ArrayList<>(List.of(column(InternalColumns.FILE)));
      keys.forEach(k -> select.add(column(k)));
      List<Row> rows = staged.filter(violated).orderBy(order).select(select.toArray(Column[]::new)).limit(SAMPLE)
          .collectAsList();
      first = rows.get(0).getString(0);
      for (Row row : rows) {
        List<String> parts = new ArrayList<>();
        for (int k = 0; k < keys.size(); k++) {
          parts.add(keys.get(k) + "=" + row.get(k + 1));
        }
        sample.add(parts.size() == 1 ? parts.get(0) : "(" + String.join(", ", parts) + ")");
      }
    } else {
      // A row's position in its file, counted from 1 over every row the file had.
      List<Row> rows = staged.withColumn(POSITION, functions.row_number().over(
              Window.partitionBy(column(InternalColumns.ORDER)).orderBy(column(InternalColumns.ROW))))
          .filter(violated).orderBy(order)
          .select(column(InternalColumns.FILE), column(InternalColumns.ORDER), column(POSITION)).limit(SAMPLE)
          .collectAsList();
      first = rows.get(0).getString(0);
      int firstOrder = rows.get(0).getInt(1);
      for (Row row : rows) {
        if (row.getInt(1) == firstOrder) {
          sample.add("row " + row.get(2));
        }
      }
    }
    return new BatchFailedException(key(check) + " (" + check.rule() + ", on-violation fail) failed for " + count
        + " row(s); first in file " + first + "; sample: " + String.join(", ", sample)
        + (keys.isEmpty() ? " of that file" : "") + ". " + FIX);
  }

  /** A partition of the batch: its files (by position), their URIs, the rows they would load, their NULLs. */
  private record Partition(String name, List<Integer> orders, List<String> uris, long[] rows, long[] nulls) {}

  /** What an aggregate does to a partition's rows that would load: rejects or drops them. */
  record Held(Expectation by, String reason) {}

  /**
   * What the expectations decided.
   *
   * @param outcome the counts by expectation, the rows rejected and dropped
   * @param failedByFile by file position, each expectation's violated rows (an aggregate's: the
   *     file's rows it measured, when the file's partition failed it)
   * @param heldRows by file position, its rows rejected and dropped by an expectation
   * @param held by file position, what an aggregate does to its rows that would load
   */
  record Verdict(QualityOutcome outcome, Map<Integer, Map<String, Long>> failedByFile,
      Map<Integer, long[]> heldRows, Map<Integer, Held> held) {

    /** Whether an aggregate holds back the row's partition. */
    Column isPartitionHeld() {
      return held.isEmpty() ? functions.lit(false)
          : column(InternalColumns.ORDER).isin(held.keySet().toArray());
    }

    /** Whether an aggregate rejects the row's partition. */
    Column isPartitionRejected() {
      Object[] orders = held.entrySet().stream().filter(e -> e.getValue().by().onViolation() == OnViolation.REJECT)
          .map(Map.Entry::getKey).toArray();
      return orders.length == 0 ? functions.lit(false) : column(InternalColumns.ORDER).isin(orders);
    }

    /** For a row of a rejected partition: what {@code part} gives of the aggregate that rejected it; else NULL. */
    Column ofPartitionReject(Function<Held, Object> part) {
      Column value = functions.lit(null).cast("string");
      for (Map.Entry<Integer, Held> entry : held.entrySet()) {
        if (entry.getValue().by().onViolation() == OnViolation.REJECT) {
          Object v = part.apply(entry.getValue());
          value = functions.when(column(InternalColumns.ORDER).equalTo(entry.getKey()),
              v == null ? functions.lit(null).cast("string") : functions.lit(v)).otherwise(value);
        }
      }
      return value;
    }
  }

  /** The expectations' part of the job's log line: {@code amount_positive 3 failed (reject), ...}. */
  static String logText(QualityOutcome outcome) {
    if (outcome.byExpectation().isEmpty()) {
      return "no expectations";
    }
    List<String> parts = new ArrayList<>();
    outcome.byExpectation().forEach((name, counts) -> parts.add(String.format(Locale.ROOT, "%s %d of %d failed (%s)",
        name, counts.failed(), counts.passed() + counts.failed(), counts.onViolation())));
    return "expectations: " + String.join(", ", parts) + "; " + outcome.rejected() + " row(s) rejected and "
        + outcome.dropped() + " dropped by them";
  }
}
