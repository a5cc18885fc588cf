package io.files2iceberg.batcher.engine.launch;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.cloud.storage.BlobId;
import io.files2iceberg.core.profile.StorageSettings;
import io.files2iceberg.core.profile.TableProfile;
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
import java.util.function.Function;

/**
 * A {@link SparkMainRun} from start to end (maintenance, the change feed, rollback, drop-partition): launched where the
 * table's jobs run (a child JVM, a Dataproc batch), watched with progress on stderr, cancelled at
 * its timeout; then the result it wrote to {@code --result} is read back (a Dataproc driver's
 * stdout does not come back).
 */
public final class MainRuns {
  private static final Duration PROGRESS_EVERY = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = new ObjectMapper();

  private MainRuns() {}

  /** Where a main writes its result: {@code <metadata.path>/<folder>/<runId>.json}. */
  public static String resultUri(TableProfile profile, String folder, String runId) {
    String metadata = profile.metadata().path();
    return (metadata.endsWith("/") ? metadata : metadata + "/") + folder + "/" + runId + ".json";
  }

  /**
   * Launches the run and waits for it to end.
   *
   * @param verb the command, for the progress lines ({@code maintain})
   * @param what the work, for the messages ({@code maintenance})
   * @param failure the exception of a run that did not end in time
   */
  public static JobResult run(Launcher launcher, SparkMainRun run, String verb, String what, Duration timeout,
      PrintWriter progress, Function<String, RuntimeException> failure) throws InterruptedException {
    LaunchedJob job = launcher.launchMain(run);
    progress.println(verb + " " + run.table() + ": started " + job.jobId() + job.log().map(l -> ", log " + l)
        .orElse(""));
    progress.flush();
    Instant started = Instant.now();
    Optional<JobResult> result = Optional.empty();
    while (result.isEmpty()) {
      Duration left = timeout.minus(Duration.between(started, Instant.now()));
      if (left.isNegative() || left.isZero()) {
        job.cancel();
        throw failure.apply("table " + run.table() + ": " + what + " did not end within " + timeout
            + " and was cancelled" + job.log().map(l -> " (log: " + l + ")").orElse(""));
      }
      result = job.await(left.compareTo(PROGRESS_EVERY) < 0 ? left : PROGRESS_EVERY);
      if (result.isEmpty()) {
        progress.println(verb + " " + run.table() + ": still running after "
            + Duration.between(started, Instant.now()).toSeconds() + "s");
        progress.flush();
      }
    }
    return result.get();
  }

  /**
   * The body of the last result line in the text, {@code {"<key>":{...}}}, if any: a main's
   * stdout, or the file it wrote to {@code --result}.
   */
  public static Optional<JsonNode> lastResult(String text, String key) {
    Optional<JsonNode> last = Optional.empty();
    for (String line : text.split("\\R")) {
      String trimmed = line.strip();
      if (!trimmed.startsWith("{\"" + key + "\"")) {
        continue;
      }
      try {
        JsonNode body = JSON.readTree(trimmed).get(key);
        if (body != null && body.isObject()) {
          last = Optional.of(body);
        }
      } catch (JsonProcessingException e) {
        // not a result line
      }
    }
    return last;
  }

  /**
   * The text of the result file, {@code ""} when there is none.
   *
   * @param storage where a {@code gs://} result is read (the deployment's {@code storage.*})
   * @param failure the exception of a result that cannot be read
   */
  public static String readResult(String uri, StorageSettings storage, String what,
      Function<String, RuntimeException> failure) {
    try {
      if (uri.startsWith("gs://")) {
        byte[] bytes = StorageClients.shared(storage).readAllBytes(BlobId.fromGsUtilUri(uri));
        return new String(bytes, StandardCharsets.UTF_8);
      }
      Path path = uri.startsWith("file:") ? Path.of(URI.create(uri)) : Path.of(uri);
      return Files.exists(path) ? Files.readString(path) : "";
    } catch (IOException | RuntimeException e) {
      throw failure.apply("cannot read the " + what + " result " + uri + ": " + e.getMessage());
    }
  }

  /** A run that failed, did not end in time or left no result; the message names the table and where its log is. */
  public static final class MainFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MainFailedException(String message) {
      super(message);
    }
  }
}
