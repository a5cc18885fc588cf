package io.files2iceberg.batcher.engine.launch;

import io.files2iceberg.core.manifest.AttemptResult;
import io.files2iceberg.core.manifest.JobExit;
import io.files2iceberg.core.manifest.WarmRequest;
import io.files2iceberg.core.profile.JobSettings;
import io.files2iceberg.core.warm.WarmFolder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One batch handed to a warm driver, watched through its request in the driver's {@link
 * WarmFolder}: waiting, taken by a driver, then gone with its result beside the manifest. The same
 * for every warm launcher; what differs between them (how a driver's liveness is decided, how one
 * is started, where its output goes, how often to look) is given as {@link Drivers} and a poll
 * interval.
 *
 * <p>A run whose driver ended without writing its result, or whose request left the folder without
 * one, ends as a killed job does: not the job's word ({@code fromJob} false), so the table decides
 * whether the batch was committed. So does a cancelled run, whatever its driver wrote.
 */
public final class WarmJob implements LaunchedJob {
  private static final Logger LOG = LoggerFactory.getLogger(WarmJob.class);

  /** What a warm job needs of the drivers its launcher keeps: where the launchers differ. */
  public interface Drivers {
    /** Whether the driver that took a request still runs it (a live pid, Dataproc's word). */
    boolean isAlive(String driverId);

    /** The driver as a run's result names it: {@code (pid 4242)}, {@code f2i-warm-0a1b2c3d-1}. */
    String name(String driverId);

    /**
     * Starts a driver for a waiting request unless one lives: the driver alive when the request
     * was written may have exited since (idle, retired, ended).
     *
     * @throws LaunchException when no driver can be started
     */
    void ensureDriver(JobSettings settings, String table, String batchId);

    /** Where the output of the run with this job id goes, when known. */
    Optional<String> log(String jobId);
  }

  /** How many lines of a dead driver's log its runs' results quote, and at most how many characters. */
  private static final int LOG_LINES = 5;
  private static final int MAX_TAIL = 2000;
  /** A line of the driver's log that says what went wrong. */
  private static final Pattern FAILURE_LINE = Pattern.compile("\\b(ERROR|FATAL)\\b|Error:|Exception:|Exception in thread");

  private final WarmFolder folder;
  private final Drivers drivers;
  private final AttemptResults results;
  private final Duration poll;
  private final WarmRequest request;
  private final JobSettings settings;
  private final String resultLocation;
  private final String jobId;
  private volatile boolean cancelled;
  private JobResult result;

  /**
   * @param poll how often the request's state is read while {@link #await} waits
   * @param settings the manifest's job settings, which a driver started for the request runs with
   * @param resultLocation where the run's {@link AttemptResult} is ({@link AttemptResult#locationBeside})
   * @param jobId the driver that had the request when it was handed over or found
   */
  public WarmJob(WarmFolder folder, Drivers drivers, AttemptResults results, Duration poll, WarmRequest request,
      JobSettings settings, String resultLocation, String jobId) {
    this.folder = Objects.requireNonNull(folder, "folder");
    this.drivers = Objects.requireNonNull(drivers, "drivers");
    this.results = Objects.requireNonNull(results, "results");
    this.poll = Objects.requireNonNull(poll, "poll");
    this.request = Objects.requireNonNull(request, "request");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.resultLocation = Objects.requireNonNull(resultLocation, "resultLocation");
    this.jobId = Objects.requireNonNull(jobId, "jobId");
  }

  /** The driver alive when the request was handed over: {@code warm driver pid <pid>}, a Dataproc id. */
  @Override
  public String jobId() {
    return jobId;
  }

  @Override
  public Optional<String> log() {
    return drivers.log(jobId);
  }

  @Override
  public synchronized Optional<JobResult> await(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
    while (result == null) {
      result = poll().orElse(null);
      if (result != null) {
        // The outcome only: a failure's error is logged once, where the batch is settled.
        LOG.info("Table {} batch {}: attempt {} with the warm driver ended: {}", request.table(), request.batchId(),
            request.attempt(), result.exit());
        break;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return Optional.empty();
      }
      TimeUnit.NANOSECONDS.sleep(Math.min(left, poll.toNanos()));
    }
    return Optional.of(result);
  }

  /**
   * The run's result once it has ended; empty while it waits or runs. The result is read only
   * after the request was seen gone, or its driver dead: a driver writes the result before it
   * lets the request go, so a result missing then is missing for good.
   */
  private Optional<JobResult> poll() {
    WarmFolder.RequestState state;
    try {
      state = folder.state(request.name());
    } catch (IOException e) {
      throw new LaunchException("Cannot read the warm driver's folder " + folder.location() + ": " + e.getMessage(),
          true, e);
    }
    switch (state.stage()) {
      case WAITING -> {
        if (!cancelled) {
          drivers.ensureDriver(settings, request.table(), request.batchId());
        }
        return Optional.empty();
      }
      case TAKEN -> {
        if (drivers.isAlive(state.runner().orElseThrow())) {
          return Optional.empty();
        }
      }
      case GONE -> {
      }
    }
    Optional<AttemptResult> written = results.read(resultLocation);
    if (written.isPresent() && !cancelled) {
      return Optional.of(AttemptResults.toJobResult(written.get(), log()));
    }
    String detail;
    if (cancelled) {
      detail = "the job was cancelled (its Spark job group " + request.jobGroup() + " in the warm driver)";
    } else if (state.runner().isPresent()) {
      detail = "the warm driver " + drivers.name(state.runner().get()) + " ended while running attempt "
          + request.attempt() + ", without writing its result" + lastLines().map(l -> "; its log ends: " + l).orElse("");
    } else {
      detail = "the request of attempt " + request.attempt() + " left the warm driver's folder "
          + folder.location() + " without a result";
    }
    return Optional.of(new JobResult(JobExit.FAILED, Optional.empty(), detail, false, log()));
  }

  /**
   * The end of the driver's log when it is a local file (the embedded default): why a driver died
   * (out of memory, a fatal error) is there, not in a result. Its last error line and the one after
   * it, then its last lines; joined with {@code " | "}, bounded.
   */
  private Optional<String> lastLines() {
    Optional<Path> file = log().filter(l -> !l.contains("://")).map(Path::of).filter(Files::isRegularFile);
    if (file.isEmpty()) {
      return Optional.empty();
    }
    try {
      List<String> lines = Files.readAllLines(file.get(), StandardCharsets.UTF_8).stream()
          .filter(l -> !l.isBlank()).toList();
      // The last error the driver logged (its fatal error comes before the shutdown's lines), then its last lines.
      List<String> quoted = new ArrayList<>();
      for (int i = lines.size() - 1; i >= 0; i--) {
        if (FAILURE_LINE.matcher(lines.get(i)).find()) {
          quoted.addAll(lines.subList(i, Math.min(lines.size(), i + 2)));
          if (i + 2 < lines.size() - LOG_LINES) {
            quoted.add("...");
          }
          break;
        }
      }
      for (String line : lines.subList(Math.max(0, lines.size() - LOG_LINES), lines.size())) {
        if (!quoted.contains(line)) {
          quoted.add(line);
        }
      }
      String tail = String.join(" | ", quoted);
      return tail.isEmpty() ? Optional.empty()
          : Optional.of(tail.length() <= MAX_TAIL ? tail : tail.substring(0, MAX_TAIL) + "...");
    } catch (IOException | UncheckedIOException e) {
      LOG.warn("Cannot read the warm driver's log {}: {}", file.get(), e.toString());
      return Optional.empty();
    }
  }

  /**
   * Withdraws a waiting request, else asks the driver that took it to cancel its job group (the
   * driver then writes its result as the job does). The withdraw comes first because it is the
   * one step that settles the race with a taking driver: when it finds the request, no driver
   * ever runs it and no cancel is left behind; when it does not, a driver has taken the request
   * (or its run has ended), and only then is a cancel written for that driver to read.
   */
  @Override
  public void cancel() {
    if (result != null) {
      return;
    }
    cancelled = true;
    try {
      if (folder.withdraw(request.name())) {
        LOG.warn("Table {} batch {}: attempt {} withdrawn before a warm driver took it", request.table(),
            request.batchId(), request.attempt());
        return;
      }
      folder.cancel(request.name());
      LOG.warn("Table {} batch {}: cancelling attempt {} (job group {}) in the warm driver", request.table(),
          request.batchId(), request.attempt(), request.jobGroup());
    } catch (IOException e) {
      LOG.error("Table {} batch {}: cannot cancel attempt {} in the warm driver in {}: {}", request.table(),
          request.batchId(), request.attempt(), folder.location(), e.getMessage());
    }
  }
}
