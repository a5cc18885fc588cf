package io.files2iceberg.sparkjob.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.files2iceberg.sparkjob.sql.TestSessions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo's landing folder: its layout, the order markers land in, and what the data holds. */
class WriteDemoLandingTest {
  @TempDir static Path root;
  static SparkSession spark;
  static Path landing;
  static Path late;
  static List<Path> written;

  @BeforeAll
  static void writeLanding() {
    spark = TestSessions.newSession(Map.of());
    landing = root.resolve("landing");
    late = root.resolve("late");
    written = WriteDemoLanding.write(spark, landing, Optional.of(late), 3);
    spark.read().parquet(landing.resolve("clicks").toString()).createOrReplaceTempView("landing");
    spark.read().parquet(late.resolve("clicks").toString()).createOrReplaceTempView("late");
  }

  private static long count(String sql) {
    return spark.sql(sql).first().getLong(0);
  }

  @Test
  void writesThreeFilesADayWithStableNamesAndMarkersLast() throws IOException {
    List<String> names = written.stream().map(p -> root.relativize(p).toString()).toList();

    assertThat(names).containsExactly(
        "landing/clicks/dt=2026-11-27/part-0.parquet",
        "landing/clicks/dt=2026-11-27/part-1.parquet",
        "landing/clicks/dt=2026-11-27/part-2.parquet",
        "landing/clicks/dt=2026-11-28/part-0.parquet",
        "landing/clicks/dt=2026-11-28/part-1.parquet",
        "landing/clicks/dt=2026-11-28/part-2.parquet",
        "landing/clicks/dt=2026-11-29/part-0.parquet",
        "landing/clicks/dt=2026-11-29/part-1.parquet",
        "landing/clicks/dt=2026-11-29/part-2.parquet",
        "late/clicks/dt=2026-11-27/part-3.parquet",
        "landing/clicks/dt=2026-11-27/_SUCCESS",
        "landing/clicks/dt=2026-11-28/_SUCCESS",
        "landing/clicks/dt=2026-11-29/_SUCCESS");
    // Nothing of Spark's own output is left: no .crc, no Spark _SUCCESS, no staging folders.
    try (Stream<Path> all = Files.walk(root)) {
      assertThat(all.filter(p -> !Files.isDirectory(p)).map(p -> root.relativize(p).toString()).sorted())
          .containsExactlyInAnyOrderElementsOf(names);
    }
    try (Stream<Path> dirs = Files.walk(root)) {
      assertThat(dirs.filter(Files::isDirectory).map(p -> p.getFileName().toString()))
          .noneMatch(name -> name.startsWith("."));
    }
    for (Path marker : written.subList(10, 13)) {
      assertThat(Files.size(marker)).isZero();
      for (Path data : written.subList(0, 9)) {
        assertThat(Files.getLastModifiedTime(marker)).isGreaterThanOrEqualTo(Files.getLastModifiedTime(data));
      }
    }
  }

  @Test
  void writingAgainKeepsWhatExists() {
    assertThat(WriteDemoLanding.write(spark, landing, Optional.of(late), 3)).isEmpty();
  }

  @Test
  void schemaIsClickData() {
    assertThat(spark.table("landing").schema().fieldNames()).containsExactly(
        "click_id", "user_id", "session_id", "click_time", "url", "referrer", "device", "country", "temp_id", "dt");
  }

  @Test
  void everyDayHasItsClicksAndAnonymousOnes() {
    assertThat(count("SELECT count(DISTINCT click_id) FROM landing WHERE click_id LIKE 'c20261127-%'"))
        .isEqualTo(DemoClicks.CLICKS_PER_DAY);
    assertThat(count("SELECT count(DISTINCT dt) FROM landing")).isEqualTo(3);
    assertThat(count("SELECT count(*) FROM landing WHERE user_id = ''")).isBetween(5L, 40L);
  }

  @Test
  void clicksAreDeliveredTwiceWithinADay() {
    assertThat(count("""
        SELECT count(*) FROM (
          SELECT dt, click_id, click_time FROM landing GROUP BY dt, click_id, click_time HAVING count(*) > 1)
        WHERE click_id LIKE concat('c', replace(CAST(dt AS STRING), '-', ''), '-%')
        """)).isGreaterThan(10);
  }

  @Test
  void laterDaysResendAndCorrectClicksOfTheDayBefore() {
    // Re-sent unchanged.
    assertThat(count("""
        SELECT count(*) FROM landing a JOIN landing b
          ON a.click_id = b.click_id AND a.click_time = b.click_time AND b.dt = date_add(a.dt, 1)
        """)).isGreaterThan(0);
    // Corrected: a newer click_time for a click of the day before.
    assertThat(count("""
        SELECT count(*) FROM landing a JOIN landing b
          ON a.click_id = b.click_id AND b.click_time > a.click_time AND b.dt = date_add(a.dt, 1)
        """)).isGreaterThan(10);
  }

  @Test
  void theLateFileHasNewClicksAndNewerVersionsOfTheFirstDay() {
    assertThat(count("SELECT count(*) FROM late l LEFT ANTI JOIN landing d ON l.click_id = d.click_id"))
        .isEqualTo(DemoClicks.LATE_NEW_CLICKS);
    assertThat(count("""
        SELECT count(*) FROM late l JOIN landing d ON l.click_id = d.click_id
        WHERE l.click_time > d.click_time AND d.dt = DATE'2026-11-27'
        """)).isGreaterThan(5);
  }

  @Test
  void theDataIsTheSameOnEveryRun() {
    DemoClicks clicks = new DemoClicks(3);
    List<Row> again = new DemoClicks(3).file(1, 2);

    assertThat(again).isEqualTo(clicks.file(1, 2));
    assertThat(spark.read().parquet(landing.resolve("clicks/dt=2026-11-28/part-2.parquet").toString())
        .collectAsList().stream().map(row -> row.getString(0)).toList())
        .isEqualTo(again.stream().map(row -> row.getString(0)).toList());
  }

  @Test
  void optionsNeedALandingFolderAndSensibleDays() {
    assertThatThrownBy(() -> WriteDemoLanding.Options.parse(new String[] {"--days", "3"}))
        .hasMessage("--landing DIR is required");
    assertThatThrownBy(() -> WriteDemoLanding.Options.parse(new String[] {"--landing", "x", "--days", "0"}))
        .hasMessage("--days \"0\" is not a whole number from 1 to 28");
    assertThat(WriteDemoLanding.Options.parse(new String[] {"--landing", "x"}).days()).isEqualTo(3);
  }
}
