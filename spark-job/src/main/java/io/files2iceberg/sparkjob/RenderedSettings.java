package io.files2iceberg.sparkjob;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.DeploymentLoader;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileException;
import io.files2iceberg.core.profile.ProfileLoader;
import io.files2iceberg.core.profile.TableProfile;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.fs.FileSystem;

/**
 * What the batcher hands a command-line main besides the batch job (maintain, changes): the table's
 * profile and the deployment as they render them ({@code --profile}, {@code --deployment}), and
 * the result line the main also writes to {@code --result}, since a Dataproc driver's stdout does
 * not come back to the caller.
 */
public final class RenderedSettings {
  private RenderedSettings() {}

  /**
   * The {@code --profile} value: a rendered profile, which names its file (its name is the
   * file's) and is resolved, so the home's defaults are never used.
   *
   * @throws IllegalArgumentException naming {@code --profile} and what is wrong
   */
  public static TableProfile profile(String json) {
    try {
      JsonNode source = new ObjectMapper().readTree(json).path("source");
      if (!source.isTextual()) {
        throw new IllegalArgumentException("--profile: not a rendered profile (no \"source\")");
      }
      return ProfileLoader.parse(json, Path.of(source.asText()), Home.resolve(Optional.empty(), Map.of()));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("--profile: not JSON: " + e.getOriginalMessage(), e);
    } catch (ProfileException e) {
      throw new IllegalArgumentException("--profile: " + e.getMessage(), e);
    }
  }

  /** The {@code --deployment} value, or the defaults when it was not given ({@code null}). */
  public static Deployment deployment(String json) {
    Home home = Home.resolve(Optional.empty(), Map.of());
    if (json == null) {
      return DeploymentLoader.defaults(home);
    }
    try {
      return DeploymentLoader.parse(json, Path.of("deployment.conf"), home);
    } catch (ProfileException e) {
      throw new IllegalArgumentException("--deployment: " + e.getMessage(), e);
    }
  }

  /** Writes the result line to {@code --result}, replacing what is there. */
  public static void writeResult(String uri, String line) throws IOException {
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(uri);
    FileSystem fs = path.getFileSystem(JobHadoopConf.current());
    try (OutputStream stream = fs.create(path, true)) {
      stream.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    }
  }
}
