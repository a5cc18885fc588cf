package io.files2iceberg.batcher.undo;

import com.fasterxml.jackson.databind.JsonNode;
import io.files2iceberg.batcher.engine.launch.Launcher;
import io.files2iceberg.batcher.engine.launch.JobResult;
import io.files2iceberg.batcher.engine.launch.MainRuns;
import io.files2iceberg.batcher.engine.launch.SparkMainRun;
import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.DeploymentLoader;
import io.files2iceberg.core.profile.ProfileJson;
import io.files2iceberg.core.profile.TableProfile;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The table side of {@code rollback} and {@code drop-partition}: the job build's undo mains, launched
 * where the table's jobs run ({@link MainRuns}: a child JVM, a Dataproc batch), each writing one
 * result line {@code {"files2iceberg-rollback":{...}}} to {@code <metadata.path>/undo/<run id>.json}.
 * Each main changes nothing it finds done already (a rollback whose table is at its target, a drop
 * whose change id is in the ancestry), so the commands can run them again after a kill.
 */
final class TableUndo {
  static final String ROLLBACK_MAIN = "io.files2iceberg.sparkjob.undo.RollbackMain";
  static final String DROP_PARTITION_MAIN = "io.files2iceberg.sparkjob.undo.DropPartitionMain";

  /** Outcomes every undo main may report. */
  static final String REFUSED = "refused";
  static final String FAILED = "failed";
  static final String PLANNED = "planned";

  private TableUndo() {}

  /**
   * The main's result: the body of its line, whose {@code outcome} says how it ended ({@code
   * refused} with {@code reason}, {@code failed} with {@code error}, or what it did).
   *
   * @param body the line's one object
   */
  record Result(JsonNode body) {
    String outcome() {
      return body.path("outcome").asText();
    }

    /** The reason it refused, or the error it failed with. */
    String why() {
      return body.hasNonNull("reason") ? body.path("reason").asText() : body.path("error").asText();
    }
  }

  /**
   * Runs the main and reads its result.
   *
   * @param kind {@code rollback} or {@code drop-partition}: the result line's key is {@code files2iceberg-<kind>}
   * @throws MainRuns.MainFailedException when it ended without a result line (a crash, a kill, a
   *     timeout), naming the table and its log
   */
  static Result run(Launcher launcher, TableProfile profile, Deployment deployment, String kind, String mainClass,
      String runId, List<String> options, Duration timeout, PrintWriter progress) throws InterruptedException {
    String resultUri = MainRuns.resultUri(profile, "undo", runId);
    List<String> args = new ArrayList<>(List.of("--profile", ProfileJson.toJson(profile),
        "--deployment", DeploymentLoader.render(deployment), "--table", profile.table()));
    args.addAll(options);
    args.addAll(List.of("--result", resultUri));
    JobResult ended = MainRuns.run(launcher, new SparkMainRun(profile.table(), runId, mainClass, args), kind, kind,
        timeout, progress, MainRuns.MainFailedException::new);
    // The main's exit says less than its result (a Dataproc batch reports any failure alike): the result decides.
    String key = "files2iceberg-" + kind;
    JsonNode body = MainRuns.lastResult(MainRuns.readResult(resultUri, deployment.storage(), kind,
        MainRuns.MainFailedException::new), key).orElseThrow(() -> new MainRuns.MainFailedException("table "
            + profile.table() + ": " + kind + " ended without a result (" + ended.describe() + ")"));
    return new Result(body);
  }
}
