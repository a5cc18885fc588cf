package io.files2iceberg.sparkjob.extract;

import io.files2iceberg.core.manifest.ManifestFile;
import io.files2iceberg.core.profile.BatchFile.PartitionType;
import io.files2iceberg.core.profile.Extract;
import io.files2iceberg.sparkjob.stage.BatchFailedException;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;

/** A file's own values (URI, generation, manifest order, partition) as columns of its rows. */
record PerFile(Column uri, Column generation, Column order, Column partition, UserDefinedFunction lookup) {
  /** A row's file, as its position among the files of its read (from 1). */
  static final String INDEX = InternalColumns.PREFIX + "file_index";

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
        position = positions.get(OpenedFile.normalized(path));
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

  /** The partition token of a file as its value: a date for date partitions. */
  private static Column partitionValue(Extract extract, ManifestFile file) {
    try {
      return functions.lit(PartitionValue.of(extract, file.partition()));
    } catch (DateTimeParseException e) {
      throw new BatchFailedException("file " + file.uri() + ": partition \"" + file.partition()
          + "\" is not an ISO date (yyyy-MM-dd), as a date partition's token must be in the manifest");
    }
  }
}
