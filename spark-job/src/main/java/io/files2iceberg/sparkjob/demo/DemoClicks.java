package io.files2iceberg.sparkjob.demo;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The demo's click data, deterministic so that every run writes the same rows.
 *
 * <p>Each day has {@value #CLICKS_PER_DAY} clicks spread over {@value #FILES_PER_DAY} files, the
 * way a real upstream delivers them:
 *
 * <ul>
 *   <li>duplicates within a day: some clicks are delivered twice, in the same file or in the
 *       day's next file, with identical values;
 *   <li>anonymous clicks: about 3% have an empty {@code user_id}, which the profile filters out;
 *   <li>duplicates across days: the first file of a day re-sends a few clicks of the day before,
 *       unchanged;
 *   <li>late updates: the last file of a day carries corrected versions of clicks of the day
 *       before, with a newer {@code click_time} (the profile's precombine field), so they win;
 *   <li>the late file ({@link #lateFile}): belongs to the first day but arrives after that day was
 *       loaded, with a few new clicks and newer versions of some of that day's clicks.
 * </ul>
 */
final class DemoClicks {
  static final LocalDate FIRST_DAY = LocalDate.of(2026, 11, 27);
  static final int DEFAULT_DAYS = 3;
  static final int MAX_DAYS = 28;
  static final int FILES_PER_DAY = 3;
  static final int CLICKS_PER_DAY = 300;
  static final int LATE_NEW_CLICKS = 10;

  static final StructType SCHEMA = new StructType()
      .add("click_id", DataTypes.StringType, false)
      .add("user_id", DataTypes.StringType, true)
      .add("session_id", DataTypes.StringType, true)
      .add("click_time", DataTypes.TimestampType, true)
      .add("url", DataTypes.StringType, true)
      .add("referrer", DataTypes.StringType, true)
      .add("device", DataTypes.StringType, true)
      .add("country", DataTypes.StringType, true)
      .add("temp_id", DataTypes.StringType, true);

  private static final String[] PAGES = {
    "/", "/search?q=boots", "/search?q=rain+jacket", "/c/shoes", "/c/outdoor", "/c/sale",
    "/p/trail-runner-42", "/p/down-jacket-7", "/p/wool-socks-3", "/p/backpack-20l", "/cart", "/checkout",
    "/account", "/help/returns"
  };
  private static final String[] REFERRERS = {
    "https://www.google.com/", "https://duckduckgo.com/", "https://newsletter.example.com/", "https://t.co/"
  };
  private static final String[] COUNTRIES = {"DE", "DE", "DE", "FR", "NL", "AT", "CH", "US", "GB", "PL"};
  private static final int USERS = 150;

  private final int days;

  DemoClicks(int days) {
    this.days = days;
  }

  LocalDate date(int day) {
    return FIRST_DAY.plusDays(day);
  }

  /** The rows of {@code part-<part>.parquet} of day {@code day}, in file order. */
  List<Row> file(int day, int part) {
    if (day < 0 || day >= days || part < 0 || part >= FILES_PER_DAY) {
      throw new IllegalArgumentException("no file " + part + " on day " + day);
    }
    List<Click> today = clicks(day);
    List<Row> rows = new ArrayList<>();
    if (part == 0 && day > 0) {
      // Re-sent unchanged: clicks of the day before, again.
      List<Click> yesterday = clicks(day - 1);
      for (int i = 11; i < CLICKS_PER_DAY; i += 60) {
        rows.add(yesterday.get(i).row());
      }
    }
    for (int i = 0; i < CLICKS_PER_DAY; i++) {
      Click click = today.get(i);
      if (i % FILES_PER_DAY == part) {
        rows.add(click.row());
        if (i % 50 == 3) {
          rows.add(click.row()); // delivered twice in one file
        }
      } else if (i % 20 == 7 && (i + 1) % FILES_PER_DAY == part) {
        rows.add(click.row()); // delivered again in the day's next file
      }
    }
    if (part == FILES_PER_DAY - 1 && day > 0) {
      // Corrections of the day before: a newer click_time wins the MERGE.
      List<Click> yesterday = clicks(day - 1);
      for (int i = 5; i < CLICKS_PER_DAY; i += 25) {
        rows.add(yesterday.get(i).corrected(Duration.ofMinutes(30), "app-sync").row());
      }
    }
    return rows;
  }

  /** The first day's late file: new clicks, and newer versions of some of that day's clicks. */
  List<Row> lateFile() {
    List<Click> first = clicks(0);
    List<Row> rows = new ArrayList<>();
    Random random = new Random(7_000L);
    for (int i = 0; i < LATE_NEW_CLICKS; i++) {
      rows.add(click(random, date(0), CLICKS_PER_DAY + i).row());
    }
    for (int i = 17; i < CLICKS_PER_DAY; i += 30) {
      rows.add(first.get(i).corrected(Duration.ofHours(1), "late-batch").row());
    }
    return rows;
  }

  /** The day's clicks, in time order; the same list every time. */
  private List<Click> clicks(int day) {
    Random random = new Random(1_000L + day);
    List<Click> clicks = new ArrayList<>(CLICKS_PER_DAY);
    for (int i = 0; i < CLICKS_PER_DAY; i++) {
      clicks.add(click(random, date(day), i));
    }
    return clicks;
  }

  private static Click click(Random random, LocalDate date, int index) {
    String id = "c" + date.toString().replace("-", "") + "-" + String.format("%04d", index);
    boolean anonymous = random.nextInt(100) < 3;
    String user = anonymous ? "" : Integer.toString(10_000 + random.nextInt(USERS));
    String session = "s-" + Integer.toHexString(0x100000 + random.nextInt(0xEFFFFF));
    // From 06:00 to 22:00 UTC, in order, with a little jitter.
    long seconds = 6 * 3600L + index * (16 * 3600L / CLICKS_PER_DAY) + random.nextInt(120);
    Instant time = date.atStartOfDay(ZoneOffset.UTC).toInstant().plusSeconds(seconds);
    String url = "https://shop.example.com" + PAGES[random.nextInt(PAGES.length)];
    String referrer = random.nextInt(10) < 4 ? null : REFERRERS[random.nextInt(REFERRERS.length)];
    int deviceDraw = random.nextInt(100);
    String device = deviceDraw < 60 ? "mobile" : deviceDraw < 95 ? "desktop" : "tablet";
    String country = COUNTRIES[random.nextInt(COUNTRIES.length)];
    String tempId = "tmp-" + Long.toHexString(random.nextLong() & 0xFFFFFFFFFFL);
    return new Click(id, user, session, time, url, referrer, device, country, tempId);
  }

  private record Click(String clickId, String userId, String sessionId, Instant clickTime, String url,
      String referrer, String device, String country, String tempId) {

    Click corrected(Duration later, String source) {
      String correctedUrl = url + (url.contains("?") ? "&" : "?") + "src=" + source;
      return new Click(clickId, userId, sessionId, clickTime.plus(later), correctedUrl, referrer, device,
          country, tempId);
    }

    Row row() {
      return RowFactory.create(clickId, userId, sessionId, Timestamp.from(clickTime), url, referrer, device,
          country, tempId);
    }
  }
}
