package io.files2iceberg.sparkjob.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;

/**
 * Writes the demo's landing folder: a few days of click data as Parquet, the way an upstream
 * system drops them into a bucket, one folder per day with a {@code _SUCCESS} marker written after
 * the day's files.
 *
 * <pre>{@code
 * WriteDemoLanding --landing DIR [--late DIR] [--days N]
 * }</pre>
 *
 * <p>Writes {@code DIR/clicks/dt=YYYY-MM-DD/part-N.parquet} ({@value DemoClicks#FILES_PER_DAY}
 * files a day from {@link DemoClicks#FIRST_DAY}) and then every day's {@code _SUCCESS}, the last
 * day's last of all: a landing folder whose last marker exists is complete. With {@code --late},
 * also {@code LATE/clicks/dt=<first day>/part-N.parquet}: a file that belongs to the first day but
 * is delivered after that day was loaded (the demo moves it into the landing folder later).
 *
 * <p>The data is deterministic ({@link DemoClicks}). Spark writes each file into a staging folder
 * next to its destination; its single part file is then moved to a stable name, so the landing
 * folder never holds Spark's own {@code _SUCCESS}, {@code .crc} or temporary files.
 */
public final class WriteDemoLanding {
  static final String TABLE_FOLDER = "clicks";
  static final String MARKER = "_SUCCESS";
  private static final String USAGE = "usage: WriteDemoLanding --landing DIR [--late DIR] [--days N]";

  private WriteDemoLanding() {}

  public static void main(String[] args) {
    if (System.getProperty("log4j2.configurationFile") == null) {
      System.setProperty("log4j2.configurationFile", "files2iceberg/log4j2-quiet.properties");
    }
    Options options;
    try {
      options = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("files2iceberg: " + e.getMessage());
      System.err.println(USAGE);
      System.exit(2);
      return;
    }
    SparkSession spark = session();
    int code = 0;
    try {
      List<Path> written = write(spark, options.landing(), options.late(), options.days());
      System.out.println("wrote " + written.size() + " file(s) under " + options.landing().toAbsolutePath());
    } catch (Exception e) { // Spark's checked exceptions are thrown undeclared
      System.err.println("files2iceberg: writing the demo landing folder failed: " + e.getMessage());
      code = 1;
    } finally {
      spark.stop();
    }
    System.exit(code);
  }

  /**
   * Writes the landing folder (and the late file) and returns every path written, markers last.
   * Files that exist already are kept as they are, so an interrupted run can be completed.
   */
  public static List<Path> write(SparkSession spark, Path landing, Optional<Path> late, int days) {
    DemoClicks clicks = new DemoClicks(days);
    List<Path> written = new ArrayList<>();
    for (int day = 0; day < days; day++) {
      Path folder = dayFolder(landing, clicks.date(day));
      for (int part = 0; part < DemoClicks.FILES_PER_DAY; part++) {
        writeParquet(spark, clicks.file(day, part), folder.resolve(partName(part))).ifPresent(written::add);
      }
    }
    late.ifPresent(dir -> writeParquet(spark, clicks.lateFile(),
            dayFolder(dir, clicks.date(0)).resolve(partName(DemoClicks.FILES_PER_DAY)))
        .ifPresent(written::add));
    // Markers after every data file: a partition is complete when its marker exists.
    for (int day = 0; day < days; day++) {
      Path marker = dayFolder(landing, clicks.date(day)).resolve(MARKER);
      if (!Files.exists(marker)) {
        try {
          Files.createFile(marker);
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot write " + marker, e);
        }
        written.add(marker);
      }
    }
    return written;
  }

  /** A small local session: the data is a few hundred rows. */
  static SparkSession session() {
    return SparkSession.builder()
        .appName("files2iceberg demo landing")
        .master(System.getProperty("spark.master", "local[1]"))
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .getOrCreate();
  }

  static Path dayFolder(Path root, LocalDate date) {
    return root.resolve(TABLE_FOLDER).resolve("dt=" + date);
  }

  static String partName(int part) {
    return "part-" + part + ".parquet";
  }

  /** Writes one Parquet file of these rows at {@code target}, unless it exists. */
  private static Optional<Path> writeParquet(SparkSession spark, List<Row> rows, Path target) {
    if (Files.exists(target)) {
      return Optional.empty();
    }
    Path staging = target.resolveSibling("." + target.getFileName() + ".staging");
    try {
      Files.createDirectories(target.getParent());
      deleteRecursively(staging);
      spark.createDataFrame(rows, DemoClicks.SCHEMA)
          .coalesce(1)
          .write()
          .mode(SaveMode.Overwrite)
          .parquet(staging.toUri().toString());
      Path part;
      try (Stream<Path> files = Files.list(staging)) {
        part = files
            .filter(p -> p.getFileName().toString().startsWith("part-"))
            .filter(p -> p.getFileName().toString().endsWith(".parquet"))
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("Spark wrote no part file into " + staging));
      }
      // A move within one folder is atomic: the file appears complete or not at all.
      Files.move(part, target, StandardCopyOption.ATOMIC_MOVE);
      deleteRecursively(staging);
      return Optional.of(target);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + target, e);
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path path : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(path);
      }
    }
  }

  record Options(Path landing, Optional<Path> late, int days) {
    static Options parse(String[] args) {
      Path landing = null;
      Optional<Path> late = Optional.empty();
      int days = DemoClicks.DEFAULT_DAYS;
      for (int i = 0; i < args.length; i++) {
        String name = args[i];
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException(name + " needs a value");
        }
        String value = args[++i];
        switch (name) {
          case "--landing" -> landing = Path.of(value);
          case "--late" -> late = Optional.of(Path.of(value));
          case "--days" -> {
            try {
              days = Integer.parseInt(value);
            } catch (NumberFormatException e) {
              days = 0;
            }
            if (days < 1 || days > DemoClicks.MAX_DAYS) {
              throw new IllegalArgumentException(
                  "--days \"" + value + "\" is not a whole number from 1 to " + DemoClicks.MAX_DAYS);
            }
          }
          default -> throw new IllegalArgumentException("unknown option " + name);
        }
      }
      if (landing == null) {
        throw new IllegalArgumentException("--landing DIR is required");
      }
      return new Options(landing, late, days);
    }
  }
}
