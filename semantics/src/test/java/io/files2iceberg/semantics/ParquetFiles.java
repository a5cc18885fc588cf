package io.files2iceberg.semantics;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

/**
 * Small Parquet files written with Parquet's own example writer (no Spark job per file): each file
 * is written to a staging folder and moved into the landing folder in one step, as an upload
 * finalizes an object, so the notifier never sees half a file and the move gives a rewrite a new
 * modification time (its generation).
 */
final class ParquetFiles {
  /** A column of a file: its name and Parquet type. */
  record Column(String name, Kind kind) {}

  enum Kind { INT, BIGINT, STRING }

  private final Path staging;
  private int next;

  ParquetFiles(Path staging) {
    this.staging = staging;
  }

  /** Writes the rows (one value per column, null for a null) to {@code target}, replacing it. */
  synchronized Path write(Path target, List<Column> columns, List<Object[]> rows) {
    try {
      Files.createDirectories(staging);
      Files.createDirectories(target.getParent());
      Path staged = staging.resolve("f" + (next++) + ".parquet");
      MessageType schema = schema(columns);
      SimpleGroupFactory groups = new SimpleGroupFactory(schema);
      try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(
              new org.apache.hadoop.fs.Path(staged.toUri()))
          .withType(schema)
          .withConf(new Configuration())
          .build()) {
        for (Object[] row : rows) {
          Group group = groups.newGroup();
          for (int i = 0; i < columns.size(); i++) {
            Object value = row[i];
            if (value == null) {
              continue;
            }
            switch (columns.get(i).kind()) {
              case INT -> group.add(columns.get(i).name(), ((Number) value).intValue());
              case BIGINT -> group.add(columns.get(i).name(), ((Number) value).longValue());
              case STRING -> group.add(columns.get(i).name(), value.toString());
            }
          }
          writer.write(group);
        }
      }
      long before = Files.exists(target) ? Files.getLastModifiedTime(target).toMillis() : 0;
      Files.move(staged, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      Files.deleteIfExists(staging.resolve("." + staged.getFileName() + ".crc"));
      // A rewrite is a new generation: a later modification time than the one it replaces.
      long now = Math.max(System.currentTimeMillis(), before + 1000);
      Files.setLastModifiedTime(target, java.nio.file.attribute.FileTime.fromMillis(now));
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + target, e);
    }
  }

  private static MessageType schema(List<Column> columns) {
    Types.MessageTypeBuilder builder = Types.buildMessage();
    for (Column column : columns) {
      Type type = switch (column.kind()) {
        case INT -> Types.optional(PrimitiveTypeName.INT32).named(column.name());
        case BIGINT -> Types.optional(PrimitiveTypeName.INT64).named(column.name());
        case STRING -> Types.optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType())
            .named(column.name());
      };
      builder.addField(type);
    }
    return builder.named("row");
  }
}
