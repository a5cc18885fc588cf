package io.files2iceberg.deploy;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Runs the terraform binary (on {@code PATH}, or {@code $TERRAFORM}). Its absence fails the test
 * that needs it with what to install: a check that cannot run must never pass.
 */
final class Terraform {

  /** What one run printed and its exit code. */
  record Result(int exitCode, String stdout, String stderr) {
    String output() {
      return stdout + stderr;
    }
  }

  private Terraform() {}

  static Path binary() {
    return binary(System.getenv());
  }

  /** The binary {@code $TERRAFORM} names, else the first {@code terraform} on {@code $PATH}. */
  static Path binary(Map<String, String> env) {
    String configured = env.get("TERRAFORM");
    if (configured != null && !configured.isBlank()) {
      Path path = Path.of(configured);
      if (Files.isExecutable(path)) {
        return path;
      }
      throw new AssertionError("TERRAFORM=" + configured + " is not an executable file");
    }
    return onPath(env.get("PATH"))
        .orElseThrow(
            () ->
                new AssertionError(
                    "terraform is not installed: the deploy checks run `terraform fmt` and"
                        + " evaluate terraform/modules/settings with it. Install Terraform 1.5 or"
                        + " newer on PATH (or set TERRAFORM=/path/to/terraform)."));
  }

  private static Optional<Path> onPath(String path) {
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir, "terraform");
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /** Runs {@code terraform <args>} in {@code dir}, without input or colour, for at most 2 minutes. */
  static Result run(Path dir, String... args) {
    List<String> command = new ArrayList<>();
    command.add(binary().toString());
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
    builder.environment().put("TF_IN_AUTOMATION", "1");
    builder.environment().put("TF_INPUT", "0");
    builder.environment().put("NO_COLOR", "1");
    builder.environment().put("CHECKPOINT_DISABLE", "1");
    // No user CLI configuration: a machine without ~/.terraformrc gets the same output.
    builder.environment().put("TF_CLI_CONFIG_FILE", "/dev/null");
    try {
      Path stderr = Files.createTempFile("terraform-stderr", ".txt");
      builder.redirectError(stderr.toFile());
      Process process = builder.start();
      byte[] stdout = process.getInputStream().readAllBytes();
      if (!process.waitFor(2, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new AssertionError("terraform " + String.join(" ", args) + " did not end in 2 minutes");
      }
      String errors = Files.readString(stderr, StandardCharsets.UTF_8);
      Files.delete(stderr);
      return new Result(process.exitValue(), new String(stdout, StandardCharsets.UTF_8), errors);
    } catch (IOException e) {
      throw new AssertionError("cannot run " + command + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted running " + command, e);
    }
  }

  /** Runs and fails with terraform's output unless it exits 0; returns its stdout. */
  static String succeed(Path dir, String... args) {
    Result result = run(dir, args);
    if (result.exitCode() != 0) {
      throw new AssertionError(
          "terraform " + String.join(" ", args) + " exited " + result.exitCode() + " in " + dir
              + ":\n" + result.output());
    }
    return result.stdout();
  }
}
