package io.files2iceberg.sparkjob.extract;

import static io.files2iceberg.sparkjob.extract.SqlNames.column;

import io.files2iceberg.core.profile.Extract;
import io.files2iceberg.core.profile.Extract.LineageColumn;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The reads of the batch's opened files: the files of one schema are read together, and each read
 * is aligned to the batch's columns (one type per column, NULL where a file has none), with the
 * columns the job adds and the {@link InternalColumns}.
 */
final class AlignedReads {
  /** The file source's hidden column of file metadata. */
  private static final String METADATA = "_metadata";

  private AlignedReads() {}

  /**
   * The files, grouped into reads: the files of one schema are read together (in manifest order of
   * their first file), so a batch of like files is one read. A file read on its own: one without
   * columns (its reader decides what it holds), one with a column {@value #METADATA} (it hides the
   * reader's file metadata by which rows are told apart), an object that is in the batch twice.
   */
  static List<List<OpenedFile>> readGroups(LoadBatch batch, List<OpenedFile> files) {
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
  static Dataset<Row> align(
      LoadBatch batch, Extract extract, List<OpenedFile> files, Map<String, SourceColumn> fileColumns) {
    StructType schema = files.get(0).schema();
    DataFrameReader reader = ExtractReaders.reader(batch.spark(), extract);
    if (!schema.isEmpty()) {
      reader = reader.schema(schema);
    }
    // An archived file is read from its copy; its rows still name where it landed (values.uri()).
    Dataset<Row> raw = reader.load(files.stream().map(f -> f.file().readUri()).toArray(String[]::new));
    PerFile values = files.size() == 1 ? PerFile.literal(extract, files.get(0)) : PerFile.indexed(extract, files);
    if (files.size() > 1) {
      List<Column> withIndex = new ArrayList<>();
      for (String name : raw.columns()) {
        withIndex.add(column(name));
      }
      withIndex.add(values.index(functions.col(METADATA + ".file_path")).as(PerFile.INDEX));
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

  /** What makes files one read: their schema, and how their columns are read. */
  private record ReadShape(StructType schema, Map<String, String> rescued, Set<String> ignored,
      Map<String, StructType> narrowed, Map<String, List<String>> rescuedFields) {}
}
