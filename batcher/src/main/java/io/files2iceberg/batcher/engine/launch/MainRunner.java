package io.files2iceberg.batcher.engine.launch;

import com.google.cloud.storage.BlobId;
import io.files2iceberg.core.profile.StorageSettings;
import io.files2iceberg.core.storage.StorageClients;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Runs a main of the job's build beside the batches ({@link SparkMainRun}: maintenance, rollback,
 * drop-partition) where the table's jobs run, waits for it with progress on stderr every 30
 * seconds, cancels it past its timeout, and reads the result it wrote to {@code --result} (a
 * Dataproc driver's stdout does not come back).
 */
public final class MainRunner {
  private static final Duration PROGRESS_EVERY = Duration.ofSeconds(30);

  private MainRunner() {}

  /**
   * How the main ended.
   *
   * @param job its job's end (exit code, detail, log)
   * @param result what it wrote to its result URI; empty when it wrote nothing
   */
  public record Ended(JobResult job, String result) {
    /** Where its log is, for messages: {@code  (log: ...)} or nothing. */
    public String logHint() {
      return job.log().map(l -> " (log: " + l + ")").orElse("");
    }
  }

  /**
   * Launches the run and waits for it.
   *
   * @param what what it does, for progress and errors: {@code maintenance}, {@code rollback}
   * @param storage where a {@code gs://} result is read (the deployment's {@code storage.*})
   * @throws MainFailedException when it does not end within {@code timeout} (it is cancelled) or
   *     its result cannot be read
   */
  public static Ended run(Launcher launcher, SparkMainRun run, String what, String resultUri, StorageSettings storage,
      Duration timeout, PrintWriter progress) throws InterruptedException {
    LaunchedJob job = launcher.launchMain(run);
    progress.println(what + " " + run.table() + ": started " + job.jobId() + job.log().map(l -> ", log " + l)
        .orElse(""));
    progress.flush();
    Instant started = Instant.now();
    Optional<JobResult> result = Optional.empty();
    while (result.isEmpty()) {
      Duration left = timeout.minus(Duration.between(started, Instant.now()));
      if (left.isNegative() || left.isZero()) {
        job.cancel();
        throw new MainFailedException("table " + run.table() + ": " + what + " did not end within " + timeout
            + " and was cancelled" + job.log().map(l -> " (log: " + l + ")").orElse(""));
      }
      result = job.await(left.compareTo(PROGRESS_EVERY) < 0 ? left : PROGRESS_EVERY);
      if (result.isEmpty()) {
        progress.println(what + " " + run.table() + ": still running after "
            + Duration.between(started, Instant.now()).toSeconds() + "s");
        progress.flush();
      }
    }
    return new Ended(result.get(), read(what, resultUri, storage));
  }

  private static String read(String what, String uri, StorageSettings storage) {
    try {
      if (uri.startsWith("gs://")) {
        BlobId blob = BlobId.fromGsUtilUri(uri);
        if (StorageClients.shared(storage).get(blob) == null) {
          return "";
        }
        return new String(StorageClients.shared(storage).readAllBytes(blob), StandardCharsets.UTF_8);
      }
      Path path = uri.startsWith("file:") ? Path.of(URI.create(uri)) : Path.of(uri);
      return Files.exists(path) ? Files.readString(path) : "";
    } catch (IOException | RuntimeException e) {
      throw new MainFailedException("cannot read the " + what + " result " + uri + ": " + e.getMessage());
    }
  }

  /** The run failed; the message names the table and where to look. */
  public static final class MainFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MainFailedException(String message) {
      super(message);
    }
  }
}
