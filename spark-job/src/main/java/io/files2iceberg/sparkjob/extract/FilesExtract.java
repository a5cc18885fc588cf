package io.files2iceberg.sparkjob.extract;

import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.manifest.QuarantinedFile;
import io.files2iceberg.core.profile.BatchFile.PartitionType;
import io.files2iceberg.core.profile.Extract;
import io.files2iceberg.core.profile.Extract.Format;
import io.files2iceberg.core.profile.Extract.LineageColumn;
import io.files2iceberg.sparkjob.catalog.IcebergTables;
import io.files2iceberg.sparkjob.stage.BatchFailedException;
import io.files2iceberg.sparkjob.stage.Stage;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.sql.Date;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import static io.files2iceberg.sparkjob.extract.SqlNames.column;

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
 * SchemaCheck}): a file that does not fit (a key column missing, a type that cannot widen, no
 * column in common) fails the batch naming it and the column, or, with quarantine-bad-files, is
 * quarantined and left out, its reason naming the file and the column.
 *
 * <p>Types are settled before the files are put together, because Spark's union would silently
 * coerce a string and an int: per column, a type every file widens to safely ({@link
 * SafeWidening}); the check above has set aside any file with another difference. The files of one
 * schema are read together, in one read (a batch of like files is one read, however many files);
 * each row's file is found by the path the reader gives it ({@code _metadata.file_path}). Then
 * every file gets the same columns (missing ones NULL, and listed in {@link
 * InternalColumns#ABSENT}) and the partition column from its token (typed {@code date} for date
 * partitions; it replaces a file column of that name), the lineage columns the profile asks for
 * and the {@link InternalColumns}: its URI, generation, manifest order and row position.
 */
public final class FilesExtract implements Stage<LoadBatch, ExtractedBatch> {
  private static final Logger LOG = LoggerFactory.getLogger(FilesExtract.class);
  private static final int MAX_REASON_LENGTH = 500;
  /** The file source's hidden column of file metadata. */
  private static final String METADATA = "_metadata";
  /** A row's file, as its position among the files of its read (from 1). */
  private static final String INDEX = InternalColumns.PREFIX + "file_index";

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
    for (int order = 0; order < files.size(); order++) {
      ManifestFile file = files.get(order);
      if (setAsideIds.contains(file.fileId()) && batch.isBatchFile(file)) {
        continue;
      }
      // Only the manifest's generation is read (an older one of an object the batch holds twice
      // is gone, too), and with on-overwrite = ignore not a rewrite of a loaded object.
      if (!generations.isLive(batch, file) || overwrites.isIgnored(batch, file)) {
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
    List<List<OpenedFile>> reads = readGroups(batch, opened);
    for (List<OpenedFile> group : reads) {
      Dataset<Row> aligned = align(batch, extract, group, fileColumns);
      rows = rows == null ? aligned : rows.union(aligned);
    }
    if (rows == null) {
      rows = batch.spark().createDataFrame(List.of(), schemaOf(columns,
          batch.profile().transform().rescuedDataColumn().isPresent()));
    }
    Optional<String> corrupt = corruptRecordColumn(batch.spark(), extract)
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
    Optional<String> corrupt = corruptRecordColumn(batch.spark(), extract);
    if (corrupt.isPresent() && schema.fields().length == 1 && schema.fields()[0].name().equals(corrupt.get())) {
      throw new UnreadableFile("no line is a valid " + extract.format().code() + " record");
    }
    for (StructField field : schema.fields()) {
      if (InternalColumns.isInternal(field.name())) {
        throw new BatchFailedException("file " + file.uri() + ": column " + field.name()
            + " uses the prefix " + InternalColumns.PREFIX + ", which the job reserves for itself");
      }
    }
    return new OpenedFile(file, order, schema, metadataKey(batch.spark(), file));
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
    SchemaCheck.Checked checked = check.check(
        opened.stream().map(f -> new SchemaCheck.FileSchema(f.file(), f.schema())).toList());
    opened = opened.stream().map(f -> f.withRescued(checked.rescuedOf(f.file()))
        .withNewColumns(ignoredSources(batch, f, checked.ignoredOf(f.file())), checked.ignoredOf(f.file()).size(),
            checked.narrowedOf(f.file()), checked.rescuedFieldsOf(f.file()))).toList();
    for (OpenedFile file : opened) {
      if (!file.rescued().isEmpty() || !file.rescuedFields().isEmpty()) {
        List<String> columns = new ArrayList<>(file.rescued().values());
        columns.addAll(file.rescuedFields().keySet());
        LOG.info("Table {} batch {}: the values of column(s) {} of file {} go to {}: the table cannot take them",
            batch.table(), batch.batchId(), columns, file.file().uri(),
            batch.profile().transform().rescuedDataColumn().orElseThrow());
      }
      Map<String, DataType> ignored = checked.ignoredOf(file.file());
      if (!ignored.isEmpty()) {
        LOG.warn("Table {} batch {}: file {} has {} column(s) that the table does not have, not loaded"
            + " (load.schema-evolution = none; counted in the file's load history): {}", batch.table(), batch.batchId(),
            file.file().uri(), ignored.size(), ignored.entrySet().stream()
                .map(c -> c.getKey() + " " + c.getValue().simpleString()).toList());
      }
    }
    List<SchemaCheck.Misfit> misfits = checked.misfits();
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
        if (replaced.contains(field.name()) || file.rescued().containsKey(field.name())
            || file.ignoredSources().contains(field.name())) {
          continue;
        }
        field = file.narrowed().containsKey(field.name())
            ? new StructField(field.name(), file.narrowed().get(field.name()), true, field.metadata()) : field;
        SourceColumn seen = columns.get(field.name());
        if (seen == null) {
          columns.put(field.name(), new SourceColumn(field.name(), field.dataType(), file.file().uri()));
          continue;
        }
        Optional<DataType> common = SafeWidening.commonOfFiles(seen.type(), field.dataType());
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

  /**
   * The files, grouped into reads: the files of one schema are read together (in manifest order of
   * their first file), so a batch of like files is one read. A file read on its own: one without
   * columns (its reader decides what it holds), one with a column {@value #METADATA} (it hides the
   * reader's file metadata by which rows are told apart), an object that is in the batch twice.
   */
  private static List<List<OpenedFile>> readGroups(LoadBatch batch, List<OpenedFile> files) {
    List<List<OpenedFile>> groups = new ArrayList<>();
    Map<ReadShape, List<OpenedFile>> bySchema = new LinkedHashMap<>();
    Map<ReadShape, Set<String>> keys = new HashMap<>();
    for (OpenedFile file : files) {
      ReadShape schema = new ReadShape(file.schema(), file.rescued(), file.ignoredSources(), file.narrowed(),
          file.rescuedFields());
      boolean alone = file.schema().isEmpty() || List.of(file.schema().fieldNames()).contains(METADATA)
          || (keys.containsKey(schema) && keys.get(schema).contains(file.key()));
      List<OpenedFile> group = alone ? null : bySchema.get(schema);
      if (group == null) {
        group = new ArrayList<>();
        groups.add(group);
        if (!alone) {
          bySchema.put(schema, group);
          keys.put(schema, new HashSet<>());
        }
      }
      group.add(file);
      if (!alone) {
        keys.get(schema).add(file.key());
      }
    }
    return groups;
  }

  /**
   * One read of files that share a schema: every batch column (NULL where they have none), typed
   * alike, plus the added columns. Each row's file is found by the path the reader gives it
   * ({@code _metadata.file_path}), and from it the file's URI, generation, manifest order and
   * partition.
   */
  private static Dataset<Row> align(
      LoadBatch batch, Extract extract, List<OpenedFile> files, Map<String, SourceColumn> fileColumns) {
    StructType schema = files.get(0).schema();
    DataFrameReader reader = ExtractReaders.reader(batch.spark(), extract);
    if (!schema.isEmpty()) {
      reader = reader.schema(schema);
    }
    Dataset<Row> raw = reader.load(files.stream().map(f -> f.file().uri()).toArray(String[]::new));
    PerFile values = files.size() == 1 ? PerFile.literal(extract, files.get(0)) : PerFile.indexed(extract, files);
    if (files.size() > 1) {
      List<Column> withIndex = new ArrayList<>();
      for (String name : raw.columns()) {
        withIndex.add(column(name));
      }
      withIndex.add(values.index(functions.col(METADATA + ".file_path")).as(INDEX));
      raw = raw.select(withIndex.toArray(Column[]::new));
    }
    Map<String, DataType> own = new LinkedHashMap<>();
    for (StructField field : schema.fields()) {
      own.put(field.name(), field.dataType());
    }
    // The columns the table cannot take are read as if the files lacked them.
    Map<String, String> rescued = files.get(0).rescued();
    Map<String, StructType> narrowed = files.get(0).narrowed();
    for (String ignored : files.get(0).ignoredSources()) {
      own.remove(ignored);
    }
    List<Column> select = new ArrayList<>();
    List<String> absent = new ArrayList<>();
    for (SourceColumn column : fileColumns.values()) {
      DataType type = rescued.containsKey(column.name()) ? null : own.get(column.name());
      Column value;
      if (type == null) {
        absent.add(column.name());
        value = functions.lit(null).cast(column.type());
      } else if (narrowed.containsKey(column.name())) {
        value = narrowedStruct(column(column.name()), narrowed.get(column.name()));
        if (!SafeWidening.sameType(narrowed.get(column.name()), column.type())) {
          value = value.cast(column.type());
        }
      } else if (SafeWidening.sameType(type, column.type())) {
        value = column(column.name());
      } else if (SafeWidening.addsFields(type, column.type())) {
        value = widenedStruct(column(column.name()), (StructType) type, (StructType) column.type());
      } else {
        value = column(column.name()).cast(column.type());
      }
      select.add(value.as(column.name()));
    }
    select.add(values.partition().as(extract.batchFile().partitionColumn()));
    for (LineageColumn lineage : extract.lineageColumns()) {
      Column value = switch (lineage) {
        case SOURCE_FILE -> values.uri();
        case SOURCE_GENERATION -> values.generation();
        case BATCH_ID -> functions.lit(batch.batchId());
        case INGESTED_AT -> functions.lit(Timestamp.from(batch.startedAt()));
      };
      select.add(value.as(lineage.code()));
    }
    select.add(values.uri().as(InternalColumns.FILE));
    select.add(values.generation().as(InternalColumns.GENERATION));
    select.add(values.order().as(InternalColumns.ORDER));
    select.add(functions.monotonically_increasing_id().as(InternalColumns.ROW));
    select.add(InternalColumns.absent(absent).as(InternalColumns.ABSENT));
    if (batch.profile().transform().rescuedDataColumn().isPresent()) {
      select.add(rescuedValues(rescued, own, files.get(0).rescuedFields()).as(InternalColumns.RESCUED));
    }
    return raw.select(select.toArray(Column[]::new));
  }

  /**
   * {@link InternalColumns#RESCUED}: each rescued column's target name to its value as text
   * (nested values as JSON; NULL when the value is NULL).
   */
  private static Column rescuedValues(Map<String, String> rescued, Map<String, DataType> own,
      Map<String, List<String>> rescuedFields) {
    if (rescued.isEmpty() && rescuedFields.isEmpty()) {
      return functions.map().cast(InternalColumns.RESCUED_TYPE);
    }
    List<Column> entries = new ArrayList<>();
    rescuedFields.forEach((key, path) -> {
      Column value = column(path.get(0));
      DataType type = own.get(path.get(0));
      for (String field : path.subList(1, path.size())) {
        value = value.getField(field);
        type = ((StructType) type).apply(field).dataType();
      }
      entries.add(functions.lit(key));
      entries.add(asText(value, type));
    });
    rescued.forEach((source, target) -> {
      entries.add(functions.lit(target));
      entries.add(asText(column(source), own.get(source)));
    });
    return functions.map(entries.toArray(Column[]::new)).cast(InternalColumns.RESCUED_TYPE);
  }

  /** A value as the rescued data column keeps it: nested values as JSON, others as text. */
  private static Column asText(Column value, DataType type) {
    return type instanceof StructType || type instanceof ArrayType || type instanceof MapType
        ? functions.to_json(value) : value.cast(DataTypes.StringType);
  }

  /**
   * A struct column read as a narrower struct: only {@code to}'s fields, by name, at any depth (the
   * file's struct holds each of them, and fields {@code to} lacks).
   */
  private static Column narrowedStruct(Column value, StructType to) {
    List<Column> fields = new ArrayList<>();
    for (StructField field : to.fields()) {
      Column inner = value.getField(field.name());
      fields.add((field.dataType() instanceof StructType struct ? narrowedStruct(inner, struct) : inner)
          .as(field.name()));
    }
    return functions.when(value.isNotNull(), functions.struct(fields.toArray(Column[]::new)));
  }

  /**
   * A struct column read as a wider struct, {@code from} with fields added: each of {@code to}'s
   * fields by name, NULL where {@code from} lacks it, a narrower value widened.
   */
  private static Column widenedStruct(Column value, StructType from, StructType to) {
    List<Column> fields = new ArrayList<>();
    for (StructField field : to.fields()) {
      Optional<StructField> own = List.of(from.fields()).stream().filter(f -> f.name().equals(field.name()))
          .findFirst();
      Column inner;
      if (own.isEmpty()) {
        inner = functions.lit(null).cast(field.dataType());
      } else if (SafeWidening.sameType(own.get().dataType(), field.dataType())) {
        inner = value.getField(field.name());
      } else if (SafeWidening.addsFields(own.get().dataType(), field.dataType())) {
        inner = widenedStruct(value.getField(field.name()), (StructType) own.get().dataType(),
            (StructType) field.dataType());
      } else {
        inner = value.getField(field.name()).cast(field.dataType());
      }
      fields.add(inner.as(field.name()));
    }
    return functions.when(value.isNotNull(), functions.struct(fields.toArray(Column[]::new)));
  }

  /** The source names of a file's columns whose target names are among its ignored new columns. */
  private static Set<String> ignoredSources(LoadBatch batch, OpenedFile file, Map<String, DataType> ignored) {
    Set<String> sources = new HashSet<>();
    for (String name : file.schema().fieldNames()) {
      if (ignored.containsKey(SchemaCheck.targetName(batch.profile().transform(), name))) {
        sources.add(name);
      }
    }
    return sources;
  }

  /**
   * The path by which the reader names the file in {@code _metadata.file_path}: the URI as a
   * Hadoop path, qualified by its file system, percent-encoded ({@code file:/a%20b%25c=d.json}).
   */
  private static String metadataKey(SparkSession spark, ManifestFile file) {
    Path path = new Path(file.uri());
    try {
      return normalized(path.getFileSystem(spark.sparkContext().hadoopConfiguration()).makeQualified(path).toUri()
          .toString());
    } catch (IOException e) {
      throw new IllegalStateException("Cannot read file " + file.uri() + " (a transient error; it is not"
          + " quarantined and the batch can be retried): " + reason(e), e);
    }
  }

  /** A percent-encoded path URI without an empty authority: {@code file:///a} is {@code file:/a}. */
  static String normalized(String encoded) {
    try {
      URI uri = new URI(encoded);
      if (uri.getScheme() == null || uri.getRawPath() == null) {
        return encoded;
      }
      String authority = uri.getRawAuthority();
      return uri.getScheme() + ":" + (authority == null || authority.isEmpty() ? "" : "//" + authority)
          + uri.getRawPath();
    } catch (URISyntaxException e) {
      return encoded;
    }
  }

  /** A file's own values (URI, generation, manifest order, partition) as columns of its rows. */
  private record PerFile(Column uri, Column generation, Column order, Column partition, UserDefinedFunction lookup) {
    /** The one file of a read: literals. */
    static PerFile literal(Extract extract, OpenedFile file) {
      return new PerFile(functions.lit(file.file().uri()), functions.lit(file.file().generation()),
          functions.lit(file.order()), partitionValue(extract, file.file()), null);
    }

    /** The files of a read: looked up by the row's file path (its position among them, from 1). */
    static PerFile indexed(Extract extract, List<OpenedFile> files) {
      int n = files.size();
      String[] uris = new String[n];
      long[] generations = new long[n];
      int[] orders = new int[n];
      String[] partitions = new String[n];
      HashMap<String, Integer> positions = new HashMap<>();
      for (int i = 0; i < n; i++) {
        OpenedFile file = files.get(i);
        uris[i] = file.file().uri();
        generations[i] = file.file().generation();
        orders[i] = file.order();
        partitions[i] = file.file().partition();
        partitionValue(extract, file.file()); // a date partition that is no date fails here, naming the file
        positions.put(file.key(), i + 1);
      }
      UserDefinedFunction lookup = functions.udf((UDF1<String, Integer>) path -> {
        Integer position = positions.get(path);
        if (position == null) {
          position = positions.get(normalized(path));
        }
        if (position == null) {
          throw new IllegalStateException("the reader returned a row of " + path + ", which is none of the "
              + positions.size() + " files it was given to read");
        }
        return position;
      }, DataTypes.IntegerType).asNonNullable();
      Column index = functions.col(INDEX);
      Column partition = functions.element_at(functions.lit(partitions), index);
      if (extract.batchFile().partitionType() == PartitionType.DATE) {
        partition = partition.cast(DataTypes.DateType);
      }
      return new PerFile(functions.element_at(functions.lit(uris), index),
          functions.element_at(functions.lit(generations), index), functions.element_at(functions.lit(orders), index),
          partition, lookup);
    }

    Column index(Column path) {
      return lookup.apply(path);
    }
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

  private static StructType schemaOf(List<SourceColumn> columns, boolean rescued) {
    List<StructField> fields = new ArrayList<>();
    for (SourceColumn column : columns) {
      fields.add(DataTypes.createStructField(column.name(), column.type(), true));
    }
    fields.add(DataTypes.createStructField(InternalColumns.FILE, DataTypes.StringType, true));
    fields.add(DataTypes.createStructField(InternalColumns.GENERATION, DataTypes.LongType, true));
    fields.add(DataTypes.createStructField(InternalColumns.ORDER, DataTypes.IntegerType, true));
    fields.add(DataTypes.createStructField(InternalColumns.ROW, DataTypes.LongType, true));
    fields.add(DataTypes.createStructField(InternalColumns.ABSENT, InternalColumns.ABSENT_TYPE, false));
    if (rescued) {
      fields.add(DataTypes.createStructField(InternalColumns.RESCUED, InternalColumns.RESCUED_TYPE, true));
    }
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

  /**
   * @param key the path by which the reader names the file ({@link #metadataKey})
   */
  private record OpenedFile(ManifestFile file, int order, StructType schema, String key, Map<String, String> rescued,
      Set<String> ignoredSources, int ignoredColumns, Map<String, StructType> narrowed,
      Map<String, List<String>> rescuedFields) {
    OpenedFile(ManifestFile file, int order, StructType schema, String key) {
      this(file, order, schema, key, Map.of(), Set.of(), 0, Map.of(), Map.of());
    }

    /** @param columns the source column name to its target name, for the columns whose values are rescued */
    OpenedFile withRescued(Map<String, String> columns) {
      return new OpenedFile(file, order, schema, key, Collections.unmodifiableMap(new LinkedHashMap<>(columns)),
          ignoredSources, ignoredColumns, narrowed, rescuedFields);
    }

    /**
     * @param sources the source columns not loaded ({@code load.schema-evolution = none})
     * @param count the new columns not loaded, struct fields included
     * @param structs the struct columns read as the table's struct, by source name
     * @param fields the rescued struct fields, rescued key to source column and field path
     */
    OpenedFile withNewColumns(Set<String> sources, int count, Map<String, StructType> structs,
        Map<String, List<String>> fields) {
      return new OpenedFile(file, order, schema, key, rescued, Set.copyOf(sources), count,
          Collections.unmodifiableMap(new LinkedHashMap<>(structs)),
          Collections.unmodifiableMap(new LinkedHashMap<>(fields)));
    }
  }

  /** What makes files one read: their schema, and how their columns are read. */
  private record ReadShape(StructType schema, Map<String, String> rescued, Set<String> ignored,
      Map<String, StructType> narrowed, Map<String, List<String>> rescuedFields) {}

  /** A file that can never be read as it is; the message is the reason recorded in the ledger. */
  private static final class UnreadableFile extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnreadableFile(String reason) {
      super(reason, null, false, false);
    }
  }
}
