package io.files2iceberg.sparkjob;

import io.files2iceberg.batcher.engine.launch.JobResult;
import io.files2iceberg.batcher.engine.launch.LaunchedJob;
import io.files2iceberg.batcher.engine.launch.Launcher;
import io.files2iceberg.core.ledger.Ledgers;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.JobExit;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.apache.spark.sql.SparkSession;

/**
 * A launcher that runs the real job ({@link BatchJob#execute}, the code under {@code main}) in this
 * JVM on one shared session instead of a child JVM per batch: the same manifest read from where the
 * batcher wrote it, the same ledger opened from the profile, the same exit codes, stdout metrics
 * line and {@code files2iceberg:} line that the local launcher parses.
 *
 * <p>{@code beforeRead} sees each manifest after the batch is claimed and written, before the job
 * opens any file: where a test rewrites or deletes an object "between the claim and the read".
 */
public final class InProcessJobs implements Launcher {
  private final SparkSession spark;
  private final Consumer<BatchManifest> beforeRead;
  private final List<Ran> ran = new CopyOnWriteArrayList<>();

  /** One job run: its manifest and how it ended. */
  public record Ran(BatchManifest manifest, JobResult result, String stderr) {}

  public InProcessJobs(SparkSession spark, Consumer<BatchManifest> beforeRead) {
    this.spark = spark;
    this.beforeRead = beforeRead;
  }

  /** Every job this launcher ran, in order. */
  public List<Ran> ran() {
    return List.copyOf(ran);
  }

  @Override
  public synchronized LaunchedJob launch(BatchManifest manifest, String manifestUri, int attempt) {
    beforeRead.accept(manifest);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      BatchJob job = new BatchJob(Clock.systemUTC(), o, e, m -> spark, s -> Ledgers.open(s, Clock.systemUTC()));
      code = job.execute(new String[] {"--manifest", manifestUri});
    }
    String stdout = out.toString(StandardCharsets.UTF_8);
    String stderr = err.toString(StandardCharsets.UTF_8);
    Optional<BatchLoadReport> report = stdout.lines().map(BatchLoadReport::fromMetricsLine)
        .flatMap(Optional::stream).reduce((a, b) -> b);
    Optional<String> jobLine = stderr.lines().filter(l -> l.startsWith("files2iceberg:")).map(String::strip)
        .reduce((a, b) -> b);
    JobExit exit = JobExit.fromCode(code);
    String detail = jobLine.orElse(exit == JobExit.LOADED ? "loaded (in-process job)" : "exit " + code);
    JobResult result = new JobResult(exit, report, detail, true, Optional.empty());
    ran.add(new Ran(manifest, result, stderr));
    return new LaunchedJob() {
      @Override
      public String jobId() {
        return "in-process " + manifest.batchId() + " attempt " + attempt;
      }

      @Override
      public Optional<JobResult> await(Duration timeout) {
        return Optional.of(result);
      }

      @Override
      public void cancel() {}
    };
  }

  @Override
  public String toString() {
    return "the in-process job launcher";
  }
}
