package io.files2iceberg.sparkjob.extract;

import io.files2iceberg.core.profile.BatchFile.PartitionType;
import io.files2iceberg.core.profile.Extract;
import io.files2iceberg.core.profile.Extract.LineageColumn;
import io.files2iceberg.sparkjob.stage.BatchFailedException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The batch's columns and their types: one type per file column, settled before the files are put
 * together ({@link SafeWidening}), then the columns the job adds (the partition column, the lineage
 * columns).
 */
final class BatchColumns {
  private BatchColumns() {}

  /** One type per column, in first-seen order; a change that is not a safe widening fails. */
  static Map<String, SourceColumn> settleTypes(List<OpenedFile> files, List<String> replaced) {
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

  /** The partition column's type: {@code date} for date partitions, else {@code string}. */
  static DataType partitionType(Extract extract) {
    return extract.batchFile().partitionType() == PartitionType.DATE ? DataTypes.DateType : DataTypes.StringType;
  }

  /** A lineage column's type. */
  static DataType lineageType(LineageColumn lineage) {
    return switch (lineage) {
      case SOURCE_FILE, BATCH_ID -> DataTypes.StringType;
      case SOURCE_GENERATION -> DataTypes.LongType;
      case INGESTED_AT -> DataTypes.TimestampType;
    };
  }

  /** The schema of a batch without rows: its columns, then the {@link InternalColumns}. */
  static StructType schemaOf(List<SourceColumn> columns, boolean rescued) {
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
}
