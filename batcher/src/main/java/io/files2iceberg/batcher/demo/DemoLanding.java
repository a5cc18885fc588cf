package io.files2iceberg.batcher.demo;

import io.files2iceberg.batcher.local.SparkMain;
import io.files2iceberg.core.match.Glob;
import io.files2iceberg.core.profile.Home;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;

/**
 * The demo's folders under the home: {@code demo/profiles/clicks.conf} (the profile of {@code
 * examples/local/clicks.conf}, reading from this landing folder), {@code demo/landing/clicks/dt=.../}
 * (the sample data the Spark main {@value SparkMain#WRITE_DEMO_LANDING} writes) and {@code
 * demo/late/} (a file of the first day held back, which lands after that day was loaded).
 *
 * @param profiles {@code <home>/demo/profiles}
 * @param landing {@code <home>/demo/landing}
 * @param late {@code <home>/demo/late}
 */
public record DemoLanding(Path profiles, Path landing, Path late) {
  public static final LocalDate FIRST_DAY = LocalDate.of(2026, 11, 27);
  public static final int DAYS = 3;
  public static final String TABLE = "local.demo.clicks";
  static final String LATE_FILE = "part-3.parquet";

  public DemoLanding(Home home) {
    this(home.root().resolve("demo"));
  }

  private DemoLanding(Path root) {
    this(root.resolve("profiles"), root.resolve("landing"), root.resolve("late"));
  }

  /** The folder of one day in a landing-like root. */
  static Path dayFolder(Path base, LocalDate day) {
    return base.resolve("clicks").resolve("dt=" + day);
  }

  /**
   * Whether the sample data is complete: the last day's marker is the last thing the writer
   * writes.
   */
  public boolean isWritten() {
    return Files.exists(dayFolder(landing(), FIRST_DAY.plusDays(DAYS - 1)).resolve("_SUCCESS"));
  }

  /** The arguments of {@value SparkMain#WRITE_DEMO_LANDING}. */
  public List<String> writerArguments() {
    return List.of("--landing", landing().toString(), "--late", late().toString(), "--days", Integer.toString(DAYS));
  }

  /**
   * Writes the demo's profile and its deployment file beside it (again, when they are not as they
   * should be), reading the landing folder's Parquet files into {@value #TABLE}.
   *
   * @return the profile
   */
  public Path writeProfile() {
    Path file = profiles().resolve("clicks.conf");
    writeIfChanged(file, profileText(landing()));
    writeIfChanged(profiles().resolve("deployment.conf"), deploymentText());
    return file;
  }

  private void writeIfChanged(Path file, String text) {
    try {
      Files.createDirectories(file.getParent());
      if (!Files.exists(file) || !Files.readString(file, StandardCharsets.UTF_8).equals(text)) {
        Files.writeString(file, text, StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the demo's " + file, e);
    }
  }

  /**
   * The demo's deployment file: {@code examples/local/deployment.conf}, the embedded deployment,
   * with a short lease.
   */
  static String deploymentText() {
    return String.join("\n",
        "# Written by `bin/files2iceberg demo`: examples/local/deployment.conf with a lease of a minute.",
        "# The embedded deployment: the SQLite ledger in the home, the Spark job on this machine.",
        "ledger.type = sqlite",
        "job {",
        "  master = \"local[*]\"",
        "  # A demo interrupted mid-batch is recovered by the next run within a minute.",
        "  lease-timeout = 1m",
        "  spark-properties { \"spark.ui.enabled\" = \"false\", \"spark.sql.shuffle.partitions\" = \"4\" }",
        "}",
        "");
  }

  /** The profile, as in {@code examples/local/clicks.conf}, with this landing folder. */
  static String profileText(Path landing) {
    // Object URIs are taken literally (no percent-encoding), so the glob is the plain path, its
    // glob characters escaped (a home such as "/tmp/run[1]" is a folder, not a class), then
    // quoted for HOCON.
    String folder = Glob.escape(landing.toAbsolutePath().normalize().toString())
        .replace("\\", "\\\\").replace("\"", "\\\"");
    return String.join("\n",
        "# Written by `bin/files2iceberg demo`: examples/local/clicks.conf with the demo's landing folder.",
        "# Every day of click data is one partition, complete once its _SUCCESS marker lands.",
        "extract {",
        "  path = \"file://" + folder + "/clicks/dt=*/*.parquet\"",
        "  batch-file {",
        "    partition-type = \"date\"",
        "    pattern = \".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+\"",
        "    date-format = \"yyyy-MM-dd\"",
        "  }",
        "  # One day per batch, so that later days update the rows of earlier ones.",
        "  max-batch-size = 3",
        "}",
        "transform {",
        "  filter = [\"click_id IS NOT NULL\", \"user_id != ''\"]",
        "  rename-columns { temp_id = \"temporary_id\" }",
        "  cast.columns { user_id = \"BIGINT\" }",
        "}",
        "load {",
        "  iceberg.table = \"" + TABLE + "\"",
        "  primary-key = [\"click_id\"]",
        "  partition-by = [\"dt\"]",
        "  iceberg.precombine-field = \"click_time\"",
        "}",
        "");
  }

  /**
   * Moves the held-back late file into its day's folder, as an upload of it now would (a new
   * modification time is a new generation). Empty when it has landed already.
   */
  public Optional<Path> landLateFile(Clock clock) {
    Path held = dayFolder(late(), FIRST_DAY).resolve(LATE_FILE);
    Path target = dayFolder(landing(), FIRST_DAY).resolve(LATE_FILE);
    if (Files.exists(target) || !Files.exists(held)) {
      return Optional.empty();
    }
    try {
      Files.createDirectories(target.getParent());
      Path staging = target.resolveSibling("." + LATE_FILE + ".landing");
      Files.copy(held, staging, StandardCopyOption.REPLACE_EXISTING);
      Files.setLastModifiedTime(staging, FileTime.from(clock.instant().minus(Duration.ofSeconds(2))));
      Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
      Files.delete(held);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot land the late file " + target, e);
    }
    return Optional.of(target);
  }
}
