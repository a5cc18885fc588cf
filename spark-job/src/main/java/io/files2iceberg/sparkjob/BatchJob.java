package io.files2iceberg.sparkjob;

import io.files2iceberg.core.ledger.FailureCause;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.Ledgers;
import io.files2iceberg.core.logging.Causes;
import io.files2iceberg.core.logging.LogLabels;
import io.files2iceberg.core.manifest.AttemptResult;
import io.files2iceberg.core.manifest.BatchLoadReport;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.manifest.BatchManifestCodec;
import io.files2iceberg.core.manifest.InvalidManifestException;
import io.files2iceberg.core.manifest.JobExit;
import io.files2iceberg.core.manifest.QuarantinedFile;
import io.files2iceberg.core.profile.JobSettings;
import io.files2iceberg.core.profile.LedgerSettings;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.catalog.CatalogConf;
import io.files2iceberg.sparkjob.extract.BatchScope;
import io.files2iceberg.sparkjob.extract.FileByFileRead;
import io.files2iceberg.sparkjob.extract.FilesExtract;
import io.files2iceberg.sparkjob.extract.GenerationCheck;
import io.files2iceberg.sparkjob.extract.IgnoredOverwrites;
import io.files2iceberg.sparkjob.extract.LiveGenerations;
import io.files2iceberg.sparkjob.extract.LoadBatch;
import io.files2iceberg.sparkjob.load.BatchLoadMetricsPublisher;
import io.files2iceberg.sparkjob.load.IcebergLoad;
import io.files2iceberg.sparkjob.load.PartitionContent;
import io.files2iceberg.sparkjob.load.RejectedRowsLoad;
import io.files2iceberg.sparkjob.stage.BatchFailedException;
import io.files2iceberg.sparkjob.stage.ClassifiedFailure;
import io.files2iceberg.sparkjob.stage.Loaded;
import io.files2iceberg.sparkjob.stage.MultiLoad;
import io.files2iceberg.sparkjob.stage.Stage;
import io.files2iceberg.sparkjob.transform.CommonTransformations;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The Spark job: loads exactly one batch into its Iceberg table, exactly once.
 *
 * <pre>{@code
 * BatchJob --manifest <local path | file:// | gs:// URI> [--attempt <N>]
 * }</pre>
 *
 * <p>The manifest ({@link BatchManifestCodec}) names the batch, its resolved table profile and its
 * files; the job reads nothing else and never lists a bucket. The job is
 *
 * <pre>{@code
 * FilesExtract ~> CommonTransformations ~> MultiLoad(RejectedRowsLoad, IcebergLoad, BatchLoadMetricsPublisher)
 * }</pre>
 *
 * preceded by the exactly-once check: when the table's snapshot ancestry already carries the batch
 * id, nothing is read or written, and the ledger checkpoint is finalized with that snapshot.
 *
 * <p>Exit codes: {@value #EXIT_OK} loaded or already committed (stdout's last line is the metrics
 * line of {@link BatchLoadReport}); {@value #EXIT_FAILED} the batch failed (one line on stderr
 * naming the table, the batch and what is at fault; nothing was committed); {@value
 * #EXIT_INVALID_MANIFEST} the manifest cannot be read or does not match the ledger's batch;
 * {@value #EXIT_CHECKPOINT_FAILED} the rows are committed to Iceberg but the ledger checkpoint
 * failed (the batcher finalizes it from the snapshot summary, for instance by running the job
 * again); {@value #EXIT_REJECTED} the batch cannot be loaded as it is (bad input, an unsafe schema
 * change): nothing was committed and a retry would fail the same way. See {@link JobExit}. Every
 * exception, Spark's checked ones too, becomes one of these outcomes at one place, classified by
 * {@link ClassifiedFailure} (deterministic: REJECTED; transient: FAILED), which also gives the
 * error class and the file at fault that the result carries.
 *
 * <p>With {@code --attempt N} the job also writes what it did, whatever the outcome, to {@code
 * <manifest folder>/<batchId>-attempt<N>.result.json} ({@link AttemptResult}): the launchers and
 * recovery read that file, not the job's output, which nobody may be reading any more.
 */
public final class BatchJob {
  /** Exit codes, as {@link JobExit} defines them for the launchers. */
  public static final int EXIT_OK = 0;
  public static final int EXIT_FAILED = 1;
  public static final int EXIT_INVALID_MANIFEST = 2;
  public static final int EXIT_CHECKPOINT_FAILED = 3;
  public static final int EXIT_REJECTED = 4;

  static {
    // The constants stay compile-time constants for Javadoc; they must agree with the contract.
    if (JobExit.LOADED.code() != EXIT_OK
        || JobExit.FAILED.code() != EXIT_FAILED
        || JobExit.INVALID_MANIFEST.code() != EXIT_INVALID_MANIFEST
        || JobExit.CHECKPOINT_FAILED.code() != EXIT_CHECKPOINT_FAILED
        || JobExit.REJECTED.code() != EXIT_REJECTED) {
      throw new ExceptionInInitializerError("BatchJob exit codes disagree with JobExit");
    }
  }

  private static final Logger LOG = LoggerFactory.getLogger(BatchJob.class);
  private static final int MAX_ERROR_LENGTH = 2000;
  private static final String USAGE =
      "usage: BatchJob --manifest <path or URI of the batch manifest> [--attempt <launch of the batch, from 1>]";
  /** Starts the one stderr line in which the job names the table, the batch and what is at fault. */
  static final String JOB_LINE_PREFIX = "files2iceberg: ";

  private final Clock clock;
  private final PrintStream out;
  private final PrintStream err;
  private final Function<BatchManifest, SparkSession> sessions;
  private final Function<LedgerSettings, Ledger> ledgers;
  private final LiveGenerations liveGenerations;

  /**
   * @param sessions the Spark session for a manifest (the job's own builds one from the profile)
   * @param ledgers opens the ledger the profile names
   */
  BatchJob(Clock clock, PrintStream out, PrintStream err, Function<BatchManifest, SparkSession> sessions,
      Function<LedgerSettings, Ledger> ledgers) {
    this(clock, out, err, sessions, ledgers, LiveGenerations.byScheme());
  }

  /** @param liveGenerations where the job asks which generation of an object is live */
  BatchJob(Clock clock, PrintStream out, PrintStream err, Function<BatchManifest, SparkSession> sessions,
      Function<LedgerSettings, Ledger> ledgers, LiveGenerations liveGenerations) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.out = Objects.requireNonNull(out, "out");
    this.err = Objects.requireNonNull(err, "err");
    this.sessions = Objects.requireNonNull(sessions, "sessions");
    this.ledgers = Objects.requireNonNull(ledgers, "ledgers");
    this.liveGenerations = Objects.requireNonNull(liveGenerations, "liveGenerations");
  }

  /** A job with the real clock, stdout, stderr, ledgers and a session of its own. */
  public BatchJob() {
    this(Clock.systemUTC(), System.out, System.err, BatchJob::newSession,
        settings -> Ledgers.open(settings, Clock.systemUTC()));
  }

  /**
   * A job with the real clock, stdout, stderr and ledgers on the sessions given: a warm driver's,
   * which outlive the job.
   */
  public static BatchJob onSessions(Function<BatchManifest, SparkSession> sessions) {
    return new BatchJob(Clock.systemUTC(), System.out, System.err, sessions,
        settings -> Ledgers.open(settings, Clock.systemUTC()));
  }

  public static void main(String[] args) {
    JobLogging.configure();
    int code;
    try {
      code = new BatchJob().execute(args);
    } finally {
      SparkSession.getDefaultSession().foreach(session -> {
        session.stop();
        return null;
      });
    }
    System.exit(code);
  }

  /**
   * Runs the job as {@link #main} does and returns the exit code. With {@code --attempt N}, the
   * last thing it does is write its {@link AttemptResult} beside the manifest ({@link
   * AttemptResult#locationBeside}): the exit code, the report or the classified error, and the
   * times, so that what it did is recorded even when nobody watches its output any more (its
   * batcher died). A result that cannot be written is logged and changes nothing else: the
   * launcher then falls back on the exit code and the log.
   */
  public int execute(String[] args) {
    Instant started = clock.instant();
    Optional<Arguments> arguments = Arguments.parse(args);
    if (arguments.isEmpty()) {
      err.println(USAGE);
      return EXIT_INVALID_MANIFEST;
    }
    String manifestUri = arguments.get().manifest();
    Ended ended;
    try {
      ended = load(manifestUri);
    } finally {
      MDC.remove(LogLabels.MDC_TABLE);
      MDC.remove(LogLabels.MDC_BATCH_ID);
    }
    arguments.get().attempt().ifPresent(attempt -> writeResult(AttemptResult.locationBeside(manifestUri, attempt),
        new AttemptResult(ended.table(), ended.batchId().orElse(AttemptResult.batchIdOf(manifestUri)), attempt,
            ended.exit().code(), ended.exit(), ended.report(), ended.error(), ended.cause(),
            ProcessHandle.current().pid(), started,
            clock.instant())));
    return ended.exit().code();
  }

  /** How {@link #load} ended: what the result file and the exit code say. */
  private record Ended(JobExit exit, String table, Optional<String> batchId, Optional<BatchLoadReport> report,
      Optional<String> error, Optional<FailureCause> cause) {
    Ended(JobExit exit, String table, Optional<String> batchId, Optional<BatchLoadReport> report,
        Optional<String> error) {
      this(exit, table, batchId, report, error, Optional.empty());
    }
  }

  /** Loads the batch of the manifest; prints the classified error line on stderr when it does not. */
  private Ended load(String manifestUri) {
    BatchManifest manifest;
    try {
      manifest = BatchManifestCodec.fromJson(readManifest(manifestUri), manifestUri);
    } catch (InvalidManifestException e) {
      return failed(JobExit.INVALID_MANIFEST, "", Optional.empty(), Optional.empty(), e.getMessage());
    } catch (IOException | RuntimeException e) {
      return failed(JobExit.INVALID_MANIFEST, "", Optional.empty(), Optional.empty(),
          "cannot read manifest " + manifestUri + ": " + e.getMessage());
    }
    String table = manifest.table();
    Optional<String> batchId = Optional.of(manifest.batchId());
    // The driver's lines about the batch carry its table and id (labels of the JSON logs).
    MDC.put(LogLabels.MDC_TABLE, table);
    MDC.put(LogLabels.MDC_BATCH_ID, manifest.batchId());
    Optional<Ledger> ledger = Optional.empty();
    try {
      SparkSession spark = sessions.apply(manifest);
      if (manifest.saveCheckpoint()) {
        ledger = Optional.of(ledgers.apply(manifest.deployment().ledger()));
      }
      BatchLoadReport report = run(spark, manifest, ledger);
      if (report.checkpoint() == BatchLoadReport.Checkpoint.FAILED) {
        return failed(JobExit.CHECKPOINT_FAILED, table, batchId, Optional.of(report), "table " + table + " batch "
            + manifest.batchId() + " is committed to Iceberg as snapshot " + report.snapshotId()
            + " but its ledger checkpoint failed: " + report.checkpointError().orElse("unknown error"));
      }
      return new Ended(JobExit.LOADED, table, batchId, Optional.of(report), Optional.empty());
    } catch (InvalidManifestException e) {
      return failed(JobExit.INVALID_MANIFEST, table, batchId, Optional.empty(), e.getMessage());
    } catch (Exception e) {
      // Exception, not RuntimeException: Spark's SparkException and AnalysisException are checked
      // exceptions that Scala throws undeclared. An Error (out of memory) is left to the caller.
      ClassifiedFailure classified = ClassifiedFailure.of(e, manifest.files());
      if (classified.isDeterministic()) {
        // Bad input or a change the table cannot take: the same batch fails the same way again.
        LOG.error("Table {} batch {} cannot be loaded as it is ({})", table, manifest.batchId(),
            classified.cause().describe(), e);
        return failed(JobExit.REJECTED, table, batchId, Optional.empty(), Optional.of(classified.cause()),
            "table " + table + " batch " + manifest.batchId() + " rejected: " + oneLine(e));
      }
      LOG.error("Table {} batch {} failed ({})", table, manifest.batchId(), classified.cause().describe(), e);
      return failed(JobExit.FAILED, table, batchId, Optional.empty(), Optional.of(classified.cause()),
          "table " + table + " batch " + manifest.batchId() + " failed: " + oneLine(e));
    } finally {
      ledger.ifPresent(Ledger::close);
    }
  }

  /** Prints the job's one classified line, {@code files2iceberg: <what>}, and keeps it for the result. */
  private Ended failed(JobExit exit, String table, Optional<String> batchId, Optional<BatchLoadReport> report,
      String what) {
    return failed(exit, table, batchId, report, Optional.empty(), what);
  }

  private Ended failed(JobExit exit, String table, Optional<String> batchId, Optional<BatchLoadReport> report,
      Optional<FailureCause> cause, String what) {
    String line = JOB_LINE_PREFIX + what;
    err.println(line);
    err.flush();
    return new Ended(exit, table, batchId, report, Optional.of(line), cause);
  }

  private void writeResult(String location, AttemptResult result) {
    try {
      AttemptResultFile.write(location, result);
      LOG.info("Table {} batch {} attempt {}: result {} written to {}", result.table(), result.batchId(),
          result.attempt(), result.exit(), location);
    } catch (IOException | RuntimeException e) {
      LOG.error("Table {} batch {} attempt {}: cannot write the result to {}; the launcher reads the exit code and"
          + " the log instead", result.table(), result.batchId(), result.attempt(), location, e);
    }
  }

  /**
   * Loads the batch into its table; the seam under {@link #main}, for a caller that has a session
   * and a ledger already.
   *
   * @param ledger where quarantined files and the checkpoint go; empty when the manifest says not
   *     to write a checkpoint
   * @throws BatchFailedException when the batch cannot be loaded as it is (nothing is committed)
   * @throws InvalidManifestException when the manifest does not match the ledger's batch
   */
  public BatchLoadReport run(SparkSession spark, BatchManifest manifest, Optional<Ledger> ledger) {
    LOG.info("Table {} batch {}: {} file(s), mode {}", manifest.table(), manifest.batchId(), manifest.files().size(),
        manifest.mode().code());
    ledger.ifPresent(l -> JobLedger.requireBatch(l, manifest));
    // Catalog lookups outside SQL (Spark3Util, DataFrameWriterV2) resolve against the thread's
    // active session.
    SparkSession.setActiveSession(spark);
    try (BatchScope scope = new BatchScope(spark)) {
      LoadBatch batch = new LoadBatch(spark, manifest, clock.instant(), scope,
          PartitionContent.loadedBefore(manifest, ledger));
      GenerationCheck generations = new GenerationCheck(liveGenerations,
          (file, reason) -> ledger.ifPresent(l -> l.supersedeFile(file.fileId(), reason)));
      IcebergLoad icebergLoad = new IcebergLoad(generations);
      BatchLoadMetricsPublisher metricsPublisher = new BatchLoadMetricsPublisher(ledger, clock, out);

      // The table, not the ledger, is the record of what is committed: check it before reading.
      Optional<Long> committed = icebergLoad.committedSnapshot(spark, manifest.table(), manifest.batchId());
      if (committed.isPresent()) {
        LOG.info("Table {} batch {}: already committed in snapshot {}; finalizing the ledger only",
            manifest.table(), manifest.batchId(), committed.get());
        return metricsPublisher.publishAlreadyCommitted(batch, committed.get());
      }

      List<QuarantinedFile> setAside = new ArrayList<>();
      while (true) {
        Stage<LoadBatch, Loaded> job = new FilesExtract(
                file -> ledger.ifPresent(l -> JobLedger.quarantine(l, manifest, file)), generations,
                new IgnoredOverwrites(manifest.profile().extract().onOverwrite(), ledger), setAside)
            .then(new CommonTransformations())
            .then(MultiLoad.of(new RejectedRowsLoad(), icebergLoad, metricsPublisher));
        try {
          return job.apply(batch).get(BatchLoadReport.class);
        } catch (Exception e) {
          Optional<QuarantinedFile> corrupt = FileByFileRead.corruptBatchFile(spark, batch, e, setAside);
          if (corrupt.isEmpty()) {
            throw e;
          }
          // Nothing was committed (the failed action wrote nothing): read the batch again without it.
          ledger.ifPresent(l -> JobLedger.quarantine(l, manifest, corrupt.get()));
          setAside.add(corrupt.get());
          LOG.warn("Table {} batch {}: file {} cannot be read ({}); quarantined, reading the other files again",
              manifest.table(), manifest.batchId(), corrupt.get().uri(), corrupt.get().reason());
        }
      }
    }
  }

  /** The session of a job run on its own: the profile's catalog and Spark properties. */
  static SparkSession newSession(BatchManifest manifest) {
    // The job may be the first to use the catalog (its first batch creates the table); maintain
    // and sql, which share the session below, must find it where the profile says.
    CatalogConf.createSqliteFolder(manifest.profile().catalog());
    return newSession(manifest.profile(), manifest.deployment().job(), "files2iceberg " + manifest.table() + " " + manifest.batchId());
  }

  /**
   * A session on the profile's catalog with the deployment's Spark properties, as the job has; the
   * master is spark-submit's or {@code -Dspark.master=...} (the local launcher), else the deployment's.
   */
  public static SparkSession newSession(TableProfile profile, JobSettings job, String appName) {
    SparkSession.Builder builder = SparkSession.builder().appName(appName);
    if (!new SparkConf().contains("spark.master")) {
      builder.master(job.master());
    }
    CatalogConf.sessionProperties(profile, job).forEach(builder::config);
    return builder.getOrCreate();
  }

  /** The manifest's text, from a local path or any file system Hadoop knows (gs:// on Dataproc). */
  static String readManifest(String uri) throws IOException {
    Path path = new Path(uri);
    FileSystem fs = path.getFileSystem(JobHadoopConf.current());
    try (InputStream in = fs.open(path)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /**
   * The error as one bounded line: the messages along its cause chain (a wrapper such as Iceberg's
   * "Unknown failure" says nothing without its cause); Spark's "Driver stacktrace:" tail is left to the log.
   */
  private static String oneLine(Throwable error) {
    String message = Causes.chain(error);
    return message.length() <= MAX_ERROR_LENGTH ? message : message.substring(0, MAX_ERROR_LENGTH) + "...";
  }

}
