package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.JobFixture.Landed;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dates and timestamps from year 1 to 9999 round-trip exactly, read back through Iceberg: files of
 * modern writers (proleptic Gregorian, no Spark calendar metadata) as written, Spark 2's
 * legacy-calendar Parquet rebased by its metadata, Avro, ORC and INT96.
 */
class AncientDatesTest {
  @TempDir static Path home;
  static JobFixture fixture;

  static final List<LocalDate> DATES = List.of(LocalDate.of(1, 1, 1), LocalDate.of(1500, 1, 1),
      LocalDate.of(1582, 10, 4), LocalDate.of(1970, 1, 1), LocalDate.of(9999, 12, 31));

  @BeforeAll
  static void startSession() {
    fixture = JobFixture.embedded(home);
  }

  static TableProfile table(String table, String format, String extra) {
    return fixture.profile(table, """
        extract {
          path = "file://%s/*/*"
          format = %s
        }
        load.iceberg.table = "local.dates.%s"
        %s
        """.formatted(fixture.landing(table), format, table, extra));
  }

  static Instant midnight(LocalDate date) {
    return date.atStartOfDay().toInstant(ZoneOffset.UTC);
  }

  static long micros(Instant instant) {
    return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000L);
  }

  /** Each row as {@code <id>:<days since epoch>:<micros since epoch>}: exact, whatever the zone or calendar of a printer. */
  static List<String> rowsOf(String table, String date, String timestamp) {
    return fixture.rows("SELECT concat(id, ':', unix_date(" + date + "), ':', unix_micros(" + timestamp
        + ")) FROM local.dates." + table + " ORDER BY id");
  }

  static List<String> expected() {
    return java.util.stream.IntStream.range(0, DATES.size())
        .mapToObj(i -> "[" + i + ":" + DATES.get(i).toEpochDay() + ":" + micros(midnight(DATES.get(i)).plusSeconds(1))
            + "]").toList();
  }

  /** A Parquet file as DuckDB, Arrow or Trino write it: proleptic values, no Spark metadata. */
  static Path modernParquet(String relative, boolean int96) throws IOException {
    String timestamp = int96 ? "required int96 ts;"
        : "required int64 ts (TIMESTAMP(MICROS,true)); required int64 ts_local (TIMESTAMP(MICROS,false));";
    MessageType schema = MessageTypeParser.parseMessageType(
        "message duckdb_schema { required int32 id; required int32 d (DATE); " + timestamp + " }");
    Path target = fixture.landing(relative);
    Files.createDirectories(target.getParent());
    SimpleGroupFactory groups = new SimpleGroupFactory(schema);
    try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(
        new org.apache.hadoop.fs.Path(target.toUri())).withType(schema).withConf(new Configuration()).build()) {
      for (int i = 0; i < DATES.size(); i++) {
        LocalDate date = DATES.get(i);
        Instant ts = midnight(date).plusSeconds(1);
        Group row = groups.newGroup().append("id", i).append("d", (int) date.toEpochDay());
        if (int96) {
          row.append("ts", int96(ts));
        } else {
          row.append("ts", micros(ts)).append("ts_local", micros(ts));
        }
        writer.write(row);
      }
    }
    return target;
  }

  /** INT96: nanoseconds of the day, then the Julian day number (of the proleptic Gregorian date), little-endian. */
  static Binary int96(Instant instant) {
    LocalDateTime utc = LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
    long julianDay = utc.toLocalDate().toEpochDay() + 2_440_588L;
    ByteBuffer bytes = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
    bytes.putLong(utc.toLocalTime().toNanoOfDay()).putInt((int) julianDay);
    return Binary.fromConstantByteArray(bytes.array());
  }

  @Test
  void parquetOfAModernWriterLoadsDatesAndTimestampsFromYearOneAsWritten() throws IOException {
    TableProfile profile = table("modern", "parquet", "");
    BatchManifest batch = fixture.claimBatch(profile, Landed.of(modernParquet("modern/p1/duckdb.parquet", false),
        "p1"));

    fixture.load(batch);

    assertThat(rowsOf("modern", "d", "ts")).containsExactlyElementsOf(expected());
    assertThat(fixture.rows("SELECT CAST(ts_local AS STRING) FROM local.dates.modern ORDER BY id"))
        .containsExactly("[0001-01-01 00:00:01]", "[1500-01-01 00:00:01]", "[1582-10-04 00:00:01]",
            "[1970-01-01 00:00:01]", "[9999-12-31 00:00:01]");
  }

  @Test
  void int96TimestampsOfAModernWriterLoadAsWritten() throws IOException {
    TableProfile profile = table("int96", "parquet", "");
    BatchManifest batch = fixture.claimBatch(profile, Landed.of(modernParquet("int96/p1/impala.parquet", true),
        "p1"));

    fixture.load(batch);

    assertThat(rowsOf("int96", "d", "ts")).containsExactlyElementsOf(expected());
  }

  @Test
  void parquetSparkWroteWithLegacyCalendarMetadataIsRebasedByIt() {
    StructType schema = new StructType().add("id", DataTypes.IntegerType).add("d", DataTypes.DateType)
        .add("ts", DataTypes.TimestampType);
    List<org.apache.spark.sql.Row> rows = new java.util.ArrayList<>();
    for (int i = 0; i < DATES.size(); i++) {
      rows.add(RowFactory.create(i, DATES.get(i), midnight(DATES.get(i)).plusSeconds(1)));
    }
    // Spark 2's files: the hybrid calendar, with Spark's legacy-calendar key in the footer.
    fixture.spark.conf().set("spark.sql.datetime.java8API.enabled", "true");
    fixture.spark.conf().set("spark.sql.parquet.datetimeRebaseModeInWrite", "LEGACY");
    fixture.spark.conf().set("spark.sql.parquet.int96RebaseModeInWrite", "LEGACY");
    Path file;
    try {
      file = fixture.writeFile("parquet", "legacy/p1/spark2.parquet", schema, rows);
    } finally {
      fixture.spark.conf().unset("spark.sql.parquet.datetimeRebaseModeInWrite");
      fixture.spark.conf().unset("spark.sql.parquet.int96RebaseModeInWrite");
      fixture.spark.conf().unset("spark.sql.datetime.java8API.enabled");
    }
    TableProfile profile = table("legacy", "parquet", "");

    fixture.load(fixture.claimBatch(profile, Landed.of(file, "p1")));

    assertThat(rowsOf("legacy", "d", "ts")).containsExactlyElementsOf(expected());
  }

  @Test
  void avroOfAModernWriterLoadsAsWritten() throws IOException {
    Schema date = LogicalTypes.date().addToSchema(Schema.create(Schema.Type.INT));
    Schema micros = LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
    Schema schema = SchemaBuilder.record("dates").fields().requiredInt("id").name("d").type(date).noDefault()
        .name("ts").type(micros).noDefault().endRecord();
    Path target = fixture.landing("avro/p1/writer.avro");
    Files.createDirectories(target.getParent());
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataFileWriter<GenericRecord> writer = new DataFileWriter<>(new GenericDatumWriter<>(schema))) {
      writer.create(schema, bytes);
      for (int i = 0; i < DATES.size(); i++) {
        GenericRecord row = new GenericData.Record(schema);
        row.put("id", i);
        row.put("d", (int) DATES.get(i).toEpochDay());
        row.put("ts", micros(midnight(DATES.get(i)).plusSeconds(1)));
        writer.append(row);
      }
    }
    Files.write(target, bytes.toByteArray());
    TableProfile profile = table("avro", "avro", "");

    fixture.load(fixture.claimBatch(profile, Landed.of(target, "p1")));

    assertThat(rowsOf("avro", "d", "ts")).containsExactlyElementsOf(expected());
  }

  @Test
  void orcLoadsAsWritten() {
    StructType schema = new StructType().add("id", DataTypes.IntegerType).add("d", DataTypes.DateType)
        .add("ts", DataTypes.TimestampType);
    List<org.apache.spark.sql.Row> rows = new java.util.ArrayList<>();
    for (int i = 0; i < DATES.size(); i++) {
      rows.add(RowFactory.create(i, DATES.get(i), midnight(DATES.get(i)).plusSeconds(1)));
    }
    fixture.spark.conf().set("spark.sql.datetime.java8API.enabled", "true");
    Path file;
    try {
      file = fixture.writeFile("orc", "orc/p1/writer.orc", schema, rows);
    } finally {
      fixture.spark.conf().unset("spark.sql.datetime.java8API.enabled");
    }
    TableProfile profile = table("orc", "orc", "");

    fixture.load(fixture.claimBatch(profile, Landed.of(file, "p1")));

    assertThat(rowsOf("orc", "d", "ts")).containsExactlyElementsOf(expected());
  }

  /**
   * Spark's error for a value it refuses to read (a reader option of the profile's asks it to
   * refuse) does not name the file: the job finds it by reading the files one at a time, and
   * quarantines that file alone.
   */
  @Test
  void aReadErrorThatNamesNoFileIsTracedToItsFileWhichAloneIsQuarantined() throws IOException {
    TableProfile profile = table("refused", "parquet", """
        extract.options { datetimeRebaseMode = EXCEPTION }
        extract.quarantine-bad-files = true
        """);
    StructType schema = new StructType().add("id", DataTypes.IntegerType).add("d", DataTypes.DateType)
        .add("ts", DataTypes.TimestampType).add("ts_local", DataTypes.TimestampNTZType);
    Landed recent = Landed.of(fixture.writeFile("parquet", "refused/p1/a-recent.parquet", schema, List.of(
        RowFactory.create(7, java.sql.Date.valueOf("2024-01-01"), java.sql.Timestamp.valueOf("2024-01-01 00:00:01"),
            LocalDateTime.of(2024, 1, 1, 0, 0, 1)))), "p1");
    Landed ancient = Landed.of(modernParquet("refused/p1/b-ancient.parquet", false), "p1");
    BatchManifest batch = fixture.claimBatch(profile, recent, ancient);

    var report = fixture.load(batch);

    assertThat(fixture.rows("SELECT id FROM local.dates.refused")).containsExactly("[7]");
    assertThat(report.quarantinedFiles()).extracting(q -> q.uri()).containsExactly(JobFixture.uri(ancient.path()));
    assertThat(report.quarantinedFiles().get(0).reason()).contains("READ_ANCIENT_DATETIME");
  }

  @Test
  void theLegacyModeRebasesFilesOfAnOldHiveWriterWithoutMetadata() throws IOException {
    TableProfile profile = table("hive", "parquet", "extract.datetime-rebase = legacy");
    BatchManifest batch = fixture.claimBatch(profile, Landed.of(modernParquet("hive/p1/hive.parquet", false), "p1"));

    fixture.load(batch);

    // The same days, read as the hybrid calendar wrote them: shifted before 1582-10-15, equal after.
    List<String> rows = rowsOf("hive", "d", "ts");
    assertThat(rows.get(0)).isNotEqualTo(expected().get(0));
    assertThat(rows.subList(3, 5)).containsExactlyElementsOf(expected().subList(3, 5));
    assertThat(profile.extract().datetimeRebase().code()).isEqualTo("legacy");
  }
}
