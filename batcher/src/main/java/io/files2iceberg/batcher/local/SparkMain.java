package io.files2iceberg.batcher.local;

import io.files2iceberg.batcher.engine.launch.LocalSparkLauncher;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Runs a main class of the Spark job's build in a child JVM, exactly as the local launcher runs the
 * job ({@link LocalSparkLauncher#commandFor}): the demo's data writer ({@value #WRITE_DEMO_LANDING}),
 * the SQL runner ({@value #SQL}) and {@code validate}'s check of expectations ({@value
 * #EXPECTATION_CHECKS}).
 */
public final class SparkMain {
  public static final String WRITE_DEMO_LANDING = "io.files2iceberg.sparkjob.demo.WriteDemoLanding";
  public static final String SQL = "io.files2iceberg.sparkjob.sql.SqlMain";
  public static final String EXPECTATION_CHECKS = "io.files2iceberg.sparkjob.validate.ExpectationCheckMain";

  /**
   * These mains are short-lived and read little: the client compiler alone starts them about twice
   * as fast, and a smaller heap leaves room for the jobs running beside them.
   */
  static final List<String> JVM_OPTIONS = List.of("-Xmx1g", "-XX:TieredStopAtLevel=1");

  private final LocalSparkLauncher launcher;

  public SparkMain(LocalSparkLauncher launcher) {
    this.launcher = Objects.requireNonNull(launcher, "launcher");
  }

  /**
   * The job's build as {@link LocalSparkLauncher#locateSparkJobTarget} finds it (the system property
   * {@value LocalSparkLauncher#SPARK_JOB_DIR_PROPERTY}, which {@code bin/files2iceberg} sets, else
   * the checkout around the working directory).
   */
  public static SparkMain locate(Map<String, String> env, Path home) {
    Path target = LocalSparkLauncher.locateSparkJobTarget(env, Path.of(""));
    return new SparkMain(new LocalSparkLauncher(target, home.resolve("logs"), JVM_OPTIONS));
  }

  /** What a finished run printed. */
  public record Result(int exitCode, String stdout, String stderr) {
    public boolean isSuccess() {
      return exitCode == 0;
    }
  }

  /**
   * Runs the main to its end, keeping what it prints.
   *
   * @throws IllegalStateException when it does not end within {@code timeout} (it is killed)
   */
  public Result run(String mainClass, List<String> args, Duration timeout) throws InterruptedException {
    Process process = start(mainClass, args, false);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Thread outPump = pump(process.getInputStream(), out);
    Thread errPump = pump(process.getErrorStream(), err);
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      kill(process);
      throw new IllegalStateException(mainClass + " did not end within " + timeout.toSeconds() + "s; killed");
    }
    outPump.join();
    errPump.join();
    return new Result(process.exitValue(), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** Runs the main with this JVM's stdin, stdout and stderr, and returns its exit code. */
  public int runInheritingOutput(String mainClass, List<String> args) throws InterruptedException {
    Process process = start(mainClass, args, true);
    try {
      return process.waitFor();
    } catch (InterruptedException e) {
      kill(process);
      throw e;
    }
  }

  private Process start(String mainClass, List<String> args, boolean inheritOutput) {
    List<String> command = new ArrayList<>(launcher.commandFor(mainClass));
    command.addAll(args);
    try {
      return launcher.startJvm(command, builder -> {
        if (inheritOutput) {
          builder.inheritIO();
        } else {
          builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start " + mainClass + ": " + e.getMessage(), e);
    }
  }

  private static Thread pump(InputStream in, OutputStream out) {
    Thread thread = new Thread(() -> {
      try (in) {
        in.transferTo(out);
      } catch (IOException e) {
        // The child is gone; what arrived is kept.
      }
    });
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  private static void kill(Process process) {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }
}
