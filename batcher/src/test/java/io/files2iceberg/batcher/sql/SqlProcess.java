package io.files2iceberg.batcher.sql;

import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code files2iceberg sql} run as a user runs it: the CLI in a process of its own (its Spark child
 * JVM writes to the terminal the CLI inherited), stdout and stderr kept apart.
 */
final class SqlProcess {
  private SqlProcess() {}

  record Run(int code, String out, String err) {
    @Override
    public String toString() {
      return "exit " + code + "\n" + out + "\n" + err;
    }
  }

  static Run sql(Path workDir, Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
        "-D" + LocalSparkLauncher.SPARK_JOB_DIR_PROPERTY + "="
            + LocalSparkLauncher.locateSparkJobTarget(System.getenv(), Path.of("")),
        "-cp", System.getProperty("java.class.path"),
        "io.files2iceberg.batcher.cli.Files2Iceberg", "sql"));
    command.addAll(List.of(args));
    Path out = Files.createTempFile(workDir, "sql", ".out");
    Path err = Files.createTempFile(workDir, "sql", ".err");
    ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
    builder.environment().putAll(env);
    Process process = builder.start();
    try {
      if (!process.waitFor(4, TimeUnit.MINUTES)) {
        throw new AssertionError("sql did not end in 4 minutes:\n" + Files.readString(out) + Files.readString(err));
      }
    } finally {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
    return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
  }
}
