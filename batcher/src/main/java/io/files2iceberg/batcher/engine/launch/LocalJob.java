package io.files2iceberg.batcher.engine.launch;

import io.files2iceberg.core.manifest.AttemptResult;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.JobExit;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job JVM on this machine: the child this launcher started, whose exit code it reads, or (for
 * recovery) the child of an earlier attempt that outlived the batcher which started it, whose
 * exit code is its dead parent's to read, so that its result file alone says how it ended.
 */
final class LocalJob implements LaunchedJob {
  private static final Logger LOG = LoggerFactory.getLogger(LocalJob.class);

  /** What the job's own last word in its log starts with (read when it wrote no result file). */
  static final String JOB_LINE_PREFIX = "files2iceberg:";

  private final String table;
  private final String batchId;
  private final ProcessHandle process;
  private final Optional<Process> child;
  private final Path logFile;
  private final Optional<String> resultLocation;
  private final AttemptResults results;
  private volatile boolean cancelled;
  private JobResult result;

  LocalJob(String table, String batchId, ProcessHandle process, Optional<Process> child, Path logFile,
      Optional<String> resultLocation, AttemptResults results) {
    this.table = table;
    this.batchId = batchId;
    this.process = process;
    this.child = child;
    this.logFile = logFile;
    this.resultLocation = resultLocation;
    this.results = results;
  }

  @Override
  public Optional<String> log() {
    return Optional.of(logFile.toString());
  }

  @Override
  public String jobId() {
    return "pid " + process.pid();
  }

  @Override
  public synchronized Optional<JobResult> await(Duration timeout) throws InterruptedException {
    if (result != null) {
      return Optional.of(result);
    }
    try {
      process.onExit().get(Math.max(0, timeout.toMillis()), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      return Optional.empty();
    } catch (ExecutionException e) {
      throw new LaunchException("Table " + table + " batch " + batchId + ": cannot watch process " + process.pid()
          + ": " + e.getCause(), true, e);
    }
    Optional<Integer> exitCode = child.map(started -> {
      try {
        return started.waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return started.exitValue();
      }
    });
    result = ended(exitCode, cancelled, logFile, resultLocation, results);
    // The outcome only: a failure's error is logged once, where the batch is settled.
    LOG.info("Table {} batch {}: process {}{} ended{}: {}", table, batchId, process.pid(),
        child.isPresent() ? "" : " (started by an earlier batcher)",
        exitCode.map(code -> " with " + code).orElse(""), result.exit());
    return Optional.of(result);
  }

  @Override
  public void cancel() {
    if (!process.isAlive()) {
      return;
    }
    cancelled = true;
    LOG.warn("Table {} batch {}: cancelling process {}", table, batchId, process.pid());
    stop(process);
  }

  /**
   * How a run ended, from what it left: its result file when it wrote one (the job's own word),
   * else the exit code (when known) and its log's last {@value #JOB_LINE_PREFIX} line, metrics
   * line and last line (a job killed or out of memory before it could write its result).
   */
  static JobResult ended(Optional<Integer> exitCode, boolean cancelled, Path log, Optional<String> resultLocation,
      AttemptResults results) {
    Optional<AttemptResult> written = resultLocation.flatMap(results::read);
    if (written.isPresent() && !cancelled) {
      return AttemptResults.toJobResult(written.get(), Optional.of(log.toString()));
    }
    LogTail tail = LogTail.of(log);
    JobExit exit = exitCode.map(JobExit::fromCode).orElse(JobExit.FAILED);
    Optional<BatchLoadReport> report = tail.report();
    boolean fromJob = exitCode.isPresent() && (tail.jobLine().isPresent() || (exit == JobExit.LOADED
        && report.isPresent()));
    String code = exitCode.map(c -> "code " + c).orElse("an unknown code (its batcher died)");
    String detail;
    if (cancelled) {
      detail = "the job was cancelled (exit " + code + ")";
    } else if (tail.jobLine().isPresent()) {
      detail = tail.jobLine().get();
    } else if (exit == JobExit.LOADED && report.isPresent()) {
      BatchLoadReport r = report.get();
      detail = (r.alreadyCommitted() ? "already committed in snapshot " : "committed snapshot ") + r.snapshotId()
          + ", checkpoint " + r.checkpoint().code();
    } else {
      detail = "the job exited with " + code + " without a " + JOB_LINE_PREFIX + " line"
          + (resultLocation.isPresent() ? " or a result file" : "")
          + tail.lastLine().map(line -> "; last log line: " + line).orElse("");
    }
    return new JobResult(exit, report, detail, fromJob && !cancelled, Optional.of(log.toString()));
  }

  /** What a log says when no result file does: the last lines that matter. */
  private record LogTail(Optional<BatchLoadReport> report, Optional<String> jobLine, Optional<String> lastLine) {
    static LogTail of(Path log) {
      BatchLoadReport report = null;
      String jobLine = null;
      String lastLine = null;
      try (BufferedReader reader = Files.newBufferedReader(log, StandardCharsets.UTF_8)) {
        String line;
        while ((line = reader.readLine()) != null) {
          if (line.isBlank()) {
            continue;
          }
          lastLine = line.strip();
          Optional<BatchLoadReport> parsed = BatchLoadReport.fromMetricsLine(line);
          if (parsed.isPresent()) {
            report = parsed.get();
          } else if (line.startsWith(JOB_LINE_PREFIX)) {
            jobLine = line.strip();
          }
        }
      } catch (IOException | UncheckedIOException e) {
        LOG.warn("Cannot read the job log {}: {}", log, e.toString());
      }
      return new LogTail(Optional.ofNullable(report), Optional.ofNullable(jobLine), Optional.ofNullable(lastLine));
    }
  }

  /** Stops a job and its children: politely, then after 10 seconds by force. */
  private static void stop(ProcessHandle process) {
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
    try {
      process.onExit().get(10, TimeUnit.SECONDS);
    } catch (TimeoutException | ExecutionException e) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
