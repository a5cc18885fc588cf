package io.files2iceberg.sparkjob.extract;

import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.manifest.QuarantinedFile;
import io.files2iceberg.core.profile.BatchFile.PartitionType;
import io.files2iceberg.core.profile.Extract.Format;
import io.files2iceberg.core.profile.Extract.LineageColumn;
import io.files2iceberg.core.profile.Extract;
import io.files2iceberg.sparkjob.load.IcebergTables;
import io.files2iceberg.sparkjob.stage.BatchFailedException;
import io.files2iceberg.sparkjob.stage.Stage;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.sql.Date;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import static io.files2iceberg.sparkjob.extract.SqlNames.column;

/**
 * Reads exactly the batch's files (never a listing) in the profile's format and reader options.
 *
 * <p>Each file is opened on its own, so that a file that cannot be opened (missing, not in the
 * format, a corrupt footer) is named, and so that each row can carry its file's partition token,
 * generation and position. Such a file is reported to the quarantine callback (the ledger marks it
 * QUARANTINED with the reason); then the batch fails naming it, or, with {@code
 * extract.quarantine-bad-files = true}, goes on without it. A json file in which no line parses is
 * such a file too. Corruption that only shows once the data is read (a bad page behind a good
 * footer) fails the batch with Spark's error, which names the file.
 *
 * <p>An object is read by its URI, that is its live content, so only a file whose generation is the
 * live one is read ({@link GenerationCheck}): a generation already gone (the object was rewritten
 * or deleted after its notification, also when a batch holds several generations of one object)
 * is left out and SUPERSEDED. With {@code extract.on-overwrite = ignore}, a new generation of an
 * object already loaded is left out and IGNORED ({@link IgnoredOverwrites}).
 *
 * <p>Then each opened file's schema is checked against the table's and the other files' ({@link
 * SchemaCheck}): a file that does not fit (a key column missing, a type that cannot widen, no
 * column in common) fails the batch naming it and the column, or, with quarantine-bad-files, is
 * quarantined and left out, its reason naming the file and the column.
 *
 * <p>Types are settled before the files are put together, because Spark's union would silently
 * coerce a string and an int: per column, a type every file widens to safely ({@link
 * SafeWidening}); the check above has set aside any file with another difference. Then every file gets the same columns (missing ones NULL, and listed in {@link
 * InternalColumns#ABSENT}) and the partition column from
 * its token (typed {@code date} for date partitions; it replaces a file column of that name),
 * the lineage columns the profile asks for and the {@link InternalColumns}.
 */
public final class FilesExtract implements Stage<LoadBatch, ExtractedBatch> {
  private static final Logger LOG = LoggerFactory.getLogger(FilesExtract.class);
  private static final int MAX_REASON_LENGTH = 500;

  private final Consumer<QuarantinedFile> onQuarantined;
  private final GenerationCheck generations;
  private final IgnoredOverwrites overwrites;

  /**
   * @param onQuarantined called once per file that cannot be read, before the batch goes on or
   *     fails; the job records it in the ledger
   * @param generations leaves out (SUPERSEDED) a file whose generation is gone before it is opened
   * @param overwrites leaves out (IGNORED) a rewrite of a loaded object when the profile says so
   */
  public FilesExtract(Consumer<QuarantinedFile> onQuarantined, GenerationCheck generations,
      IgnoredOverwrites overwrites) {
    this.onQuarantined = Objects.requireNonNull(onQuarantined, "onQuarantined");
    this.generations = Objects.requireNonNull(generations, "generations");
    this.overwrites = Objects.requireNonNull(overwrites, "overwrites");
  }

  @Override
  public ExtractedBatch apply(LoadBatch batch) {
    long start = System.nanoTime();
    Extract extract = batch.profile().extract();
    List<OpenedFile> opened = new ArrayList<>();
    List<QuarantinedFile> quarantined = new ArrayList<>();
    List<ManifestFile> files = batch.filesToRead();
    for (int order = 0; order < files.size(); order++) {
      ManifestFile file = files.get(order);
      // Only the manifest's generation is read (an older one of an object the batch holds twice
      // is gone, too), and with on-overwrite = ignore not a rewrite of a loaded object.
      if (!generations.isLive(batch, file) || overwrites.isIgnored(batch, file)) {
        continue;
      }
      try {
        opened.add(open(batch, extract, file, order));
      } catch (UnreadableFile e) {
        if (!batch.isBatchFile(file)) {
          // Loaded by an earlier batch, read again to overwrite its partition: quarantining it
          // now would drop rows the table holds.
          throw new BatchFailedException("cannot read file " + file.uri() + " again (loaded by an earlier batch;"
              + " load.save-mode = Overwrite rewrites partition " + file.partition() + " whole): " + e.getMessage());
        }
        QuarantinedFile bad = new QuarantinedFile(file.fileId(), file.uri(), e.getMessage());
        LOG.warn("Table {} batch {}: cannot read file {}: {}", batch.table(), batch.batchId(), file.uri(), bad.reason());
        onQuarantined.accept(bad);
        quarantined.add(bad);
      }
    }
    if (!quarantined.isEmpty() && !extract.quarantineBadFiles()) {
      throw new BatchFailedException(describeUnreadable(quarantined));
    }
    opened = withoutMisfits(batch, extract, opened, quarantined);

    String partitionColumn = extract.batchFile().partitionColumn();
    List<String> added = concat(List.of(partitionColumn),
        extract.lineageColumns().stream().map(LineageColumn::code).toList());
    Map<String, SourceColumn> fileColumns = settleTypes(opened, added);
    for (OpenedFile file : opened) {
      for (String name : file.schema().fieldNames()) {
        if (added.contains(name)) {
          LOG.info("Table {} batch {}: column {} of file {} is replaced by the one the job adds",
              batch.table(), batch.batchId(), name, file.file().uri());
        }
      }
    }
    List<SourceColumn> columns = new ArrayList<>(fileColumns.values());
    columns.add(new SourceColumn(partitionColumn, partitionType(extract), "the partition token"));
    for (LineageColumn column : extract.lineageColumns()) {
      columns.add(new SourceColumn(column.code(), lineageType(column), "lineage"));
    }

    Dataset<Row> rows = null;
    for (OpenedFile file : opened) {
      Dataset<Row> aligned = align(batch, extract, file, fileColumns);
      rows = rows == null ? aligned : rows.union(aligned);
    }
    if (rows == null) {
      rows = batch.spark().createDataFrame(List.of(), schemaOf(columns));
    }
    Optional<String> corrupt = corruptRecordColumn(batch.spark(), extract)
        .filter(fileColumns::containsKey);
    List<ManifestFile> read = opened.stream().map(OpenedFile::file).toList();
    LOG.info("Table {} batch {}: {} file(s) to read, {} quarantined; columns {}", batch.table(), batch.batchId(),
        read.size(), quarantined.size(), columns.stream().map(c -> c.name() + " " + c.type().simpleString()).toList());
    return new ExtractedBatch(batch, rows, columns, corrupt, read, quarantined, Duration.ofNanos(System.nanoTime() - start));
  }

  /** Opens one file and reads its schema: this is where a file that cannot be read shows. */
  private OpenedFile open(LoadBatch batch, Extract extract, ManifestFile file, int order) {
    SparkSession spark = batch.spark();
    Dataset<Row> rows;
    StructType schema;
    try {
      rows = spark.read().format(extract.format().code()).options(extract.options()).load(file.uri());
      schema = rows.schema();
    } catch (Exception e) {
      if (isTransient(e)) {
        throw new IllegalStateException("Cannot read file " + file.uri() + " (a transient error; it is not"
            + " quarantined and the batch can be retried): " + reason(e), e);
      }
      throw new UnreadableFile(reason(e));
    }
    Optional<String> corrupt = corruptRecordColumn(spark, extract);
    if (corrupt.isPresent() && schema.fields().length == 1 && schema.fields()[0].name().equals(corrupt.get())) {
      throw new UnreadableFile("no line is a valid " + extract.format().code() + " record");
    }
    for (StructField field : schema.fields()) {
      if (InternalColumns.isInternal(field.name())) {
        throw new BatchFailedException("file " + file.uri() + ": column " + field.name()
            + " uses the prefix " + InternalColumns.PREFIX + ", which the job reserves for itself");
      }
    }
    return new OpenedFile(file, order, rows, schema);
  }

  /**
   * The files whose schema can be aligned with the table's and the others' ({@link SchemaCheck}).
   * A misfit fails the batch naming it and the column; with {@code extract.quarantine-bad-files =
   * true} it is quarantined (added to {@code quarantined}) and the batch goes on without it.
   */
  private List<OpenedFile> withoutMisfits(LoadBatch batch, Extract extract, List<OpenedFile> opened,
      List<QuarantinedFile> quarantined) {
    Optional<StructType> table = IcebergTables.find(batch.spark(), batch.table())
        .map(t -> SparkSchemaUtil.convert(t.schema()));
    SchemaCheck check = new SchemaCheck(batch.profile(), batch.table(), table,
        corruptRecordColumn(batch.spark(), extract));
    List<SchemaCheck.Misfit> misfits = check.misfits(
        opened.stream().map(f -> new SchemaCheck.FileSchema(f.file(), f.schema())).toList());
    if (misfits.isEmpty()) {
      return opened;
    }
    for (SchemaCheck.Misfit misfit : misfits) {
      if (!batch.isBatchFile(misfit.file())) {
        // Loaded by an earlier batch, read again to overwrite its partition: quarantining it now
        // would drop rows the table holds.
        throw new BatchFailedException("file " + misfit.file().uri() + " (loaded by an earlier batch; load.save-mode"
            + " = Overwrite rewrites partition " + misfit.file().partition() + " whole) no longer fits: "
            + misfit.reason());
      }
    }
    if (!extract.quarantineBadFiles()) {
      throw new BatchFailedException(misfits.get(0).reason()
          + "; set extract.quarantine-bad-files = true to quarantine it and load the other files");
    }
    List<OpenedFile> fitting = new ArrayList<>(opened);
    for (SchemaCheck.Misfit misfit : misfits) {
      QuarantinedFile bad = new QuarantinedFile(misfit.file().fileId(), misfit.file().uri(), misfit.reason());
      LOG.warn("Table {} batch {}: file {} does not fit the table's schema: {}", batch.table(), batch.batchId(),
          misfit.file().uri(), misfit.reason());
      onQuarantined.accept(bad);
      quarantined.add(bad);
      fitting.removeIf(f -> f.file().fileId().equals(misfit.file().fileId()));
    }
    return fitting;
  }

  /** One type per column, in first-seen order; a change that is not a safe widening fails. */
  private static Map<String, SourceColumn> settleTypes(List<OpenedFile> files, List<String> replaced) {
    Map<String, SourceColumn> columns = new LinkedHashMap<>();
    for (OpenedFile file : files) {
      for (StructField field : file.schema().fields()) {
        if (replaced.contains(field.name())) {
          continue;
        }
        SourceColumn seen = columns.get(field.name());
        if (seen == null) {
          columns.put(field.name(), new SourceColumn(field.name(), field.dataType(), file.file().uri()));
          continue;
        }
        Optional<DataType> common = SafeWidening.common(seen.type(), field.dataType());
        if (common.isEmpty()) {
          throw new BatchFailedException("column " + field.name() + ": file " + file.file().uri() + " has type "
              + field.dataType().simpleString() + " but file " + seen.origin() + " has type "
              + seen.type().simpleString() + ", and neither widens safely to the other");
        }
        if (!SafeWidening.sameType(common.get(), seen.type())) {
          columns.put(field.name(), new SourceColumn(field.name(), common.get(), file.file().uri()));
        }
      }
    }
    return columns;
  }

  /** The file with every batch column (NULL where it has none), typed alike, plus the added columns. */
  private static Dataset<Row> align(
      LoadBatch batch, Extract extract, OpenedFile file, Map<String, SourceColumn> fileColumns) {
    Map<String, DataType> own = new LinkedHashMap<>();
    for (StructField field : file.schema().fields()) {
      own.put(field.name(), field.dataType());
    }
    List<Column> select = new ArrayList<>();
    List<String> absent = new ArrayList<>();
    for (SourceColumn column : fileColumns.values()) {
      DataType type = own.get(column.name());
      Column value;
      if (type == null) {
        absent.add(column.name());
        value = functions.lit(null).cast(column.type());
      } else if (SafeWidening.sameType(type, column.type())) {
        value = column(column.name());
      } else {
        value = column(column.name()).cast(column.type());
      }
      select.add(value.as(column.name()));
    }
    select.add(partitionValue(extract, file.file()).as(extract.batchFile().partitionColumn()));
    for (LineageColumn lineage : extract.lineageColumns()) {
      select.add(lineageValue(batch, lineage, file.file()).as(lineage.code()));
    }
    select.add(functions.lit(file.file().uri()).as(InternalColumns.FILE));
    select.add(functions.lit(file.file().generation()).as(InternalColumns.GENERATION));
    select.add(functions.lit(file.order()).as(InternalColumns.ORDER));
    select.add(functions.monotonically_increasing_id().as(InternalColumns.ROW));
    select.add(InternalColumns.absent(absent).as(InternalColumns.ABSENT));
    return file.rows().select(select.toArray(Column[]::new));
  }

  private static Column partitionValue(Extract extract, ManifestFile file) {
    if (extract.batchFile().partitionType() == PartitionType.DATE) {
      try {
        return functions.lit(Date.valueOf(LocalDate.parse(file.partition())));
      } catch (DateTimeParseException e) {
        throw new BatchFailedException("file " + file.uri() + ": partition \"" + file.partition()
            + "\" is not an ISO date (yyyy-MM-dd), as a date partition's token must be in the manifest");
      }
    }
    return functions.lit(file.partition());
  }

  private static Column lineageValue(LoadBatch batch, LineageColumn lineage, ManifestFile file) {
    return switch (lineage) {
      case SOURCE_FILE -> functions.lit(file.uri());
      case SOURCE_GENERATION -> functions.lit(file.generation());
      case BATCH_ID -> functions.lit(batch.batchId());
      case INGESTED_AT -> functions.lit(Timestamp.from(batch.startedAt()));
    };
  }

  private static DataType partitionType(Extract extract) {
    return extract.batchFile().partitionType() == PartitionType.DATE ? DataTypes.DateType : DataTypes.StringType;
  }

  private static DataType lineageType(LineageColumn lineage) {
    return switch (lineage) {
      case SOURCE_FILE, BATCH_ID -> DataTypes.StringType;
      case SOURCE_GENERATION -> DataTypes.LongType;
      case INGESTED_AT -> DataTypes.TimestampType;
    };
  }

  private static StructType schemaOf(List<SourceColumn> columns) {
    List<StructField> fields = new ArrayList<>();
    for (SourceColumn column : columns) {
      fields.add(DataTypes.createStructField(column.name(), column.type(), true));
    }
    fields.add(DataTypes.createStructField(InternalColumns.FILE, DataTypes.StringType, true));
    fields.add(DataTypes.createStructField(InternalColumns.GENERATION, DataTypes.LongType, true));
    fields.add(DataTypes.createStructField(InternalColumns.ORDER, DataTypes.IntegerType, true));
    fields.add(DataTypes.createStructField(InternalColumns.ROW, DataTypes.LongType, true));
    fields.add(DataTypes.createStructField(InternalColumns.ABSENT, InternalColumns.ABSENT_TYPE, false));
    return DataTypes.createStructType(fields);
  }

  /** json and csv put lines they cannot parse in this column (Spark's PERMISSIVE mode). */
  private static Optional<String> corruptRecordColumn(SparkSession spark, Extract extract) {
    if (extract.format() != Format.JSON && extract.format() != Format.CSV) {
      return Optional.empty();
    }
    String name = extract.options().get("columnNameOfCorruptRecord");
    if (name == null) {
      name = spark.conf().get("spark.sql.columnNameOfCorruptRecord", "_corrupt_record");
    }
    return Optional.of(name);
  }

  private static String describeUnreadable(List<QuarantinedFile> files) {
    QuarantinedFile first = files.get(0);
    String message = "cannot read file " + first.uri() + ": " + first.reason();
    if (files.size() > 1) {
      message += " (and " + (files.size() - 1) + " more: "
          + files.subList(1, files.size()).stream().map(QuarantinedFile::uri).collect(Collectors.joining(", ")) + ")";
    }
    return message + "; quarantined; set extract.quarantine-bad-files = true to load the other files";
  }

  /** Network trouble says nothing about the file: such a failure is retried, never quarantined. */
  private static boolean isTransient(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof SocketException || t instanceof UnknownHostException || t instanceof ConnectException
          || t instanceof InterruptedIOException) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /**
   * Why the file cannot be read: the first line of the root cause, which is the reader's own
   * words ("... is not a Parquet file. Expected magic number at tail ..."), not Spark's job
   * wrapping; bounded.
   */
  static String reason(Throwable error) {
    Throwable root = error;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String reason = firstLine(root);
    return reason.length() <= MAX_REASON_LENGTH ? reason : reason.substring(0, MAX_REASON_LENGTH) + "...";
  }

  private static String firstLine(Throwable error) {
    String message = error.getMessage();
    if (message == null || message.isBlank()) {
      return error.getClass().getSimpleName();
    }
    int newline = message.indexOf('\n');
    return (newline < 0 ? message : message.substring(0, newline)).trim();
  }

  private static <T> List<T> concat(List<T> a, List<T> b) {
    List<T> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  private record OpenedFile(ManifestFile file, int order, Dataset<Row> rows, StructType schema) {}

  /** A file that can never be read as it is; the message is the reason recorded in the ledger. */
  private static final class UnreadableFile extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnreadableFile(String reason) {
      super(reason, null, false, false);
    }
  }
}
