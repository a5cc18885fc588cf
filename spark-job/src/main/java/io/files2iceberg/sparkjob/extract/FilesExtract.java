package io.files2iceberg.sparkjob.extract;

import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.manifest.QuarantinedFile;
import io.files2iceberg.core.profile.Extract;
import io.files2iceberg.core.profile.Extract.LineageColumn;
import io.files2iceberg.sparkjob.stage.BatchFailedException;
import io.files2iceberg.sparkjob.stage.Stage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads exactly the batch's files (never a listing) in the profile's format and reader options.
 *
 * <p>Each file's schema is read on its own ({@link FileSchemas}: all files at once, the footers of
 * Parquet without a Spark job), so that a file that cannot be opened (missing, not in the format,
 * a corrupt footer) is named. Such a file is reported to the quarantine callback (the ledger marks it
 * QUARANTINED with the reason); then the batch fails naming it, or, with {@code
 * extract.quarantine-bad-files = true}, goes on without it. A json file in which no line parses is
 * such a file too. Corruption that only shows once the data is read (a bad page behind a good
 * footer) fails the batch with Spark's error, which names the file; with quarantine-bad-files the
 * job then quarantines that file and runs this stage again with it set aside (the {@code setAside}
 * files of the constructor).
 *
 * <p>An object is read by its URI, that is its live content, so only a file whose generation is the
 * live one is read ({@link GenerationCheck}): a generation already gone (the object was rewritten
 * or deleted after its notification, also when a batch holds several generations of one object)
 * is left out and SUPERSEDED. With {@code extract.on-overwrite = ignore}, a new generation of an
 * object already loaded is left out and IGNORED ({@link IgnoredOverwrites}).
 *
 * <p>Then each opened file's schema is checked against the table's and the other files' ({@link
 * SchemaCheck}, {@link FittingFiles}): a file that does not fit (a key column missing, a type that
 * cannot widen, no column in common) fails the batch naming it and the column, or, with
 * quarantine-bad-files, is quarantined and left out, its reason naming the file and the column.
 *
 * <p>Types are settled before the files are put together, because Spark's union would silently
 * coerce a string and an int: per column, a type every file widens to safely ({@link
 * SafeWidening}, {@link BatchColumns}); the check above has set aside any file with another
 * difference. The files of one schema are read together, in one read (a batch of like files is one
 * read, however many files; {@link AlignedReads});
 * each row's file is found by the path the reader gives it ({@code _metadata.file_path}). Then
 * every file gets the same columns (missing ones NULL, and listed in {@link
 * InternalColumns#ABSENT}) and the partition column from its token (typed {@code date} for date
 * partitions; it replaces a file column of that name), the lineage columns the profile asks for
 * and the {@link InternalColumns}: its URI, generation, manifest order and row position.
 */
public final class FilesExtract implements Stage<LoadBatch, ExtractedBatch> {
  private static final Logger LOG = LoggerFactory.getLogger(FilesExtract.class);
  private static final int MAX_REASON_LENGTH = 500;

  private final Consumer<QuarantinedFile> onQuarantined;
  private final GenerationCheck generations;
  private final IgnoredOverwrites overwrites;
  private final List<QuarantinedFile> setAside;

  /**
   * @param onQuarantined called once per file that cannot be read, before the batch goes on or
   *     fails; the job records it in the ledger
   * @param generations leaves out (SUPERSEDED) a file whose generation is gone before it is opened
   * @param overwrites leaves out (IGNORED) a rewrite of a loaded object when the profile says so
   */
  public FilesExtract(Consumer<QuarantinedFile> onQuarantined, GenerationCheck generations,
      IgnoredOverwrites overwrites) {
    this(onQuarantined, generations, overwrites, List.of());
  }

  /**
   * @param setAside batch files an earlier read of this run found corrupt (and already reported
   *     to {@code onQuarantined}): left out unopened, and counted as quarantined
   */
  public FilesExtract(Consumer<QuarantinedFile> onQuarantined, GenerationCheck generations,
      IgnoredOverwrites overwrites, List<QuarantinedFile> setAside) {
    this.onQuarantined = Objects.requireNonNull(onQuarantined, "onQuarantined");
    this.generations = Objects.requireNonNull(generations, "generations");
    this.overwrites = Objects.requireNonNull(overwrites, "overwrites");
    this.setAside = List.copyOf(setAside);
  }

  @Override
  public ExtractedBatch apply(LoadBatch batch) {
    long start = System.nanoTime();
    Extract extract = batch.profile().extract();
    // Spark has the last word on the hints' types: a type it refuses fails the batch before any read.
    DeclaredTypes.hints(batch.profile());
    List<ManifestFile> files = batch.filesToRead();
    List<ManifestFile> toOpen = new ArrayList<>();
    List<Integer> orders = new ArrayList<>();
    Set<String> setAsideIds = setAside.stream().map(QuarantinedFile::fileId).collect(Collectors.toSet());
    // Only the manifest's generation is read (an older one of an object the batch holds twice is
    // gone, too): every file's generation is asked for at once, a few calls at a time.
    Set<String> live = generations.live(batch, files.stream()
            .filter(file -> !(setAsideIds.contains(file.fileId()) && batch.isBatchFile(file))).toList())
        .stream().map(ManifestFile::fileId).collect(Collectors.toSet());
    for (int order = 0; order < files.size(); order++) {
      ManifestFile file = files.get(order);
      // With on-overwrite = ignore, not a rewrite of a loaded object either.
      if (!live.contains(file.fileId()) || overwrites.isIgnored(batch, file)) {
        continue;
      }
      toOpen.add(file);
      orders.add(order);
    }
    // Every file's schema at once; the outcomes are then taken in manifest order, as one by one.
    List<FileSchemas.Outcome> outcomes = FileSchemas.read(batch.spark(), extract, toOpen);
    List<OpenedFile> opened = new ArrayList<>();
    List<QuarantinedFile> quarantined = new ArrayList<>(setAside);
    for (int i = 0; i < toOpen.size(); i++) {
      ManifestFile file = toOpen.get(i);
      try {
        opened.add(open(batch, extract, file, orders.get(i), outcomes.get(i)));
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
    opened = FittingFiles.withoutMisfits(batch, extract, opened, quarantined, onQuarantined);

    String partitionColumn = extract.batchFile().partitionColumn();
    List<String> added = concat(List.of(partitionColumn),
        extract.lineageColumns().stream().map(LineageColumn::code).toList());
    Map<String, SourceColumn> fileColumns = BatchColumns.settleTypes(opened, added);
    for (OpenedFile file : opened) {
      for (String name : file.schema().fieldNames()) {
        if (added.contains(name)) {
          LOG.info("Table {} batch {}: column {} of file {} is replaced by the one the job adds",
              batch.table(), batch.batchId(), name, file.file().uri());
        }
      }
    }
    List<SourceColumn> columns = new ArrayList<>(fileColumns.values());
    columns.add(new SourceColumn(partitionColumn, BatchColumns.partitionType(extract), "the partition token"));
    for (LineageColumn column : extract.lineageColumns()) {
      columns.add(new SourceColumn(column.code(), BatchColumns.lineageType(column), "lineage"));
    }

    Dataset<Row> rows = null;
    List<List<OpenedFile>> reads = AlignedReads.readGroups(batch, opened);
    for (List<OpenedFile> group : reads) {
      Dataset<Row> aligned = AlignedReads.align(batch, extract, group, fileColumns);
      rows = rows == null ? aligned : rows.union(aligned);
    }
    if (rows == null) {
      rows = batch.spark().createDataFrame(List.of(), BatchColumns.schemaOf(columns,
          batch.profile().transform().rescuedDataColumn().isPresent()));
    }
    Optional<String> corrupt = ExtractReaders.corruptRecordColumn(batch.spark(), extract)
        .filter(fileColumns::containsKey);
    List<ManifestFile> read = opened.stream().map(OpenedFile::file).toList();
    LOG.info("Table {} batch {}: {} file(s) to read in {} read(s), {} quarantined; columns {}", batch.table(),
        batch.batchId(), read.size(), reads.size(), quarantined.size(),
        columns.stream().map(c -> c.name() + " " + c.type().simpleString()).toList());
    Map<String, Integer> ignoredColumns = new LinkedHashMap<>();
    opened.stream().filter(f -> f.ignoredColumns() > 0)
        .forEach(f -> ignoredColumns.put(f.file().fileId(), f.ignoredColumns()));
    return new ExtractedBatch(batch, rows, columns, corrupt, read, quarantined, Duration.ofNanos(System.nanoTime() - start),
        ignoredColumns);
  }

  /** One file's schema, as opened: this is where a file that cannot be read shows. */
  private OpenedFile open(LoadBatch batch, Extract extract, ManifestFile file, int order, FileSchemas.Outcome outcome) {
    if (outcome instanceof FileSchemas.Outcome.Failed failed) {
      throw failed.error();
    }
    if (outcome instanceof FileSchemas.Outcome.Unreadable unreadable) {
      throw new UnreadableFile(unreadable.reason());
    }
    StructType schema = ((FileSchemas.Outcome.Read) outcome).schema();
    Optional<String> corrupt = ExtractReaders.corruptRecordColumn(batch.spark(), extract);
    if (corrupt.isPresent() && schema.fields().length == 1 && schema.fields()[0].name().equals(corrupt.get())) {
      throw new UnreadableFile("no line is a valid " + extract.format().code() + " record");
    }
    for (StructField field : schema.fields()) {
      if (InternalColumns.isInternal(field.name())) {
        throw new BatchFailedException("file " + file.uri() + ": column " + field.name()
            + " uses the prefix " + InternalColumns.PREFIX + ", which the job reserves for itself");
      }
    }
    return new OpenedFile(file, order, schema, OpenedFile.metadataKey(batch.spark(), file));
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

  /**
   * Why the file cannot be read: the first line of the root cause, which is the reader's own
   * words ("... is not a Parquet file. Expected magic number at tail ..."), not Spark's job
   * wrapping; bounded.
   */
  public static String reason(Throwable error) {
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

  /** A file that can never be read as it is; the message is the reason recorded in the ledger. */
  private static final class UnreadableFile extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnreadableFile(String reason) {
      super(reason, null, false, false);
    }
  }
}
