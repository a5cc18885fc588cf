package io.files2iceberg.batcher.cli;

import io.files2iceberg.batcher.reconcile.ReconcileCommand;
import io.files2iceberg.batcher.status.StatusCommand;
import io.files2iceberg.core.manifest.JobExit;

/** docs/reference/exit-codes.md: the codes the commands and the Spark job exit with. */
final class ExitCodesReference {

  private ExitCodesReference() {}

  /** The exit codes of the commands and of the Spark job. */
  static String page() {
    StringBuilder page = ReferencePages.begin("Exit codes").append("## `bin/files2iceberg`\n\n")
        .append("| code | meaning |\n|---|---|\n")
        .append("| `0` | done: nothing failed (`reconcile`: no drift, or `--fix` recorded all of it; `status`: no"
            + " partition FAILED, no table STOPPED; `batch run-once`: also when there was nothing to do) |\n")
        .append(row(ExitCode.FAILED, "failed while running: the message on stderr names the table,"
            + " partition, batch or file at fault (`batch run-once`: a batch failed; `local --until-idle`: a"
            + " partition ran out of attempts)"))
        .append(row(ExitCode.INVALID, "invalid configuration or usage: every problem is listed, each"
            + " with the file, the key path or the option and the reason; nothing was changed"))
        .append(row(ExitCode.DRIFT, "`reconcile` left drift: found without `--fix`, or drift `--fix`"
            + " never fixes (files gone from the bucket, partitions stuck READY), so a scheduled run can alert"))
        .append(row(ExitCode.ATTENTION, "`status`: attention, a partition FAILED (out of attempts,"
            + " retried only by an operator), a table STOPPED (a file that misses its strict pattern) or a table"
            + " waiting for an unfinished `rollback` or `drop-partition` (run the same command again); the"
            + " report is printed as usual and stderr names them. `--exit-zero` keeps 0"))
        .append("| `130` | `demo` interrupted (Ctrl-C): it stopped the listener; the next run finishes the work |\n")
        .append("\n## The Spark job\n\n")
        .append("What a run of the job exits with, and what the batcher does with it (see\n")
        .append("[The batcher](../batcher.md#planning)); the job also writes it to its result file beside the\n")
        .append("manifest. A code the job does not use (a crash, a kill) counts as `1`.\n\n")
        .append("| code | exit | retryable | meaning |\n|---|---|---|---|\n");
    for (JobExit exit : JobExit.values()) {
      page.append("| `").append(exit.code()).append("` | `").append(exit.name()).append("` | ")
          .append(exit.isRetryable() ? "yes" : "no").append(" | ").append(meaning(exit)).append(" |\n");
    }
    return page.toString();
  }

  private static String meaning(JobExit exit) {
    return switch (exit) {
      case LOADED -> "loaded, or already committed (the table's snapshots hold the batch id); stdout's only"
          + " line is the metrics line";
      case FAILED -> "the batch failed and nothing was committed (Spark, the catalog or the storage failed);"
          + " running it again may succeed";
      case INVALID_MANIFEST -> "the manifest cannot be read, is invalid, or does not match the ledger's batch";
      case CHECKPOINT_FAILED -> "the rows are committed to Iceberg but the ledger checkpoint failed; running"
          + " the same manifest again finalizes the ledger from the snapshot summary";
      case REJECTED -> "the batch cannot be loaded as it is (an unreadable file without"
          + " `quarantine-bad-files`, a bad record with `on-bad-record = fail`, a schema change the table"
          + " cannot take); nothing was committed, and running it again fails the same way until the input"
          + " or the profile is fixed";
    };
  }

  private static String row(int code, String meaning) {
    return "| `" + code + "` | " + meaning + " |\n";
  }

}
