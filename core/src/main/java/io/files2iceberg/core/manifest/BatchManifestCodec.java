package io.files2iceberg.core.manifest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.core.profile.BatchFile.IngestionType;
import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.DeploymentLoader;
import io.files2iceberg.core.profile.Home;
import io.files2iceberg.core.profile.ProfileError;
import io.files2iceberg.core.profile.ProfileException;
import io.files2iceberg.core.profile.ProfileJson;
import io.files2iceberg.core.profile.ProfileLoader;
import io.files2iceberg.core.profile.TableProfile;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The manifest's JSON form, version {@value BatchManifest#CURRENT_VERSION}: the one place that
 * writes and reads it. Reading validates everything and names the origin and the field at fault.
 * It also reads version {@value BatchManifest#PROFILE_DEPLOYMENT_VERSION}, whose profile carried
 * the deployment's {@code ledger}, {@code listener} and {@code job} sections (a batch launched by
 * the build before the deployment file, run or recovered by this one).
 *
 * <pre>{@code
 * {
 *   "format": "files2iceberg-batch-manifest",
 *   "version": 2,
 *   "batchId": "20261130T120000-1a2b3c4d",
 *   "table": "local.demo.clicks",
 *   "mode": "incremental",
 *   "saveCheckpoint": true,
 *   "createdAt": "2026-11-30T12:00:00Z",
 *   "profile": { ...the resolved profile, as `validate` prints it... },
 *   "deployment": { ...the resolved deployment file: ledger, listener, job... },
 *   "files": [
 *     {"fileId": "9f2c...", "uri": "gs://bucket/raw/clicks/dt=2026-11-29/part-0.parquet",
 *      "partition": "2026-11-29", "generation": 1764460800123456, "size": 1048576,
 *      "eventId": "1234567890", "eventTime": "2026-11-29T23:59:01Z"},
 *     {"fileId": "4ab1...", "uri": "gs://bucket/raw/clicks/dt=2026-10-01/part-0.parquet", ...,
 *      "archive": {"uri": "gs://archive/raw/clicks/dt=2026-10-01/part-0.parquet",
 *                  "generation": 1764460900654321}}
 *   ]
 * }
 * }</pre>
 *
 * <p>A file's {@code archive} is where landing cleanup moved its object ({@link
 * ManifestFile#archive}): the job reads that copy at that generation, while {@code uri} stays what
 * its rows name as their source. It is absent for a file where it landed, and in manifests written
 * before cleanup existed, which read as such.
 */
public final class BatchManifestCodec {

  public static final String FORMAT = "files2iceberg-batch-manifest";

  private static final ObjectMapper JSON = new ObjectMapper();

  private BatchManifestCodec() {}

  public static String toJson(BatchManifest manifest) {
    ObjectNode root = JSON.createObjectNode();
    root.put("format", FORMAT);
    root.put("version", manifest.version());
    root.put("batchId", manifest.batchId());
    root.put("table", manifest.table());
    root.put("mode", manifest.mode().code());
    root.put("saveCheckpoint", manifest.saveCheckpoint());
    root.put("createdAt", manifest.createdAt().toString());
    root.set("profile", parse(ProfileJson.toJson(manifest.profile()), "the rendered profile"));
    root.set("deployment", parse(DeploymentLoader.render(manifest.deployment()), "the rendered deployment"));
    ArrayNode files = root.putArray("files");
    for (ManifestFile file : manifest.files()) {
      ObjectNode node = files.addObject();
      node.put("fileId", file.fileId());
      node.put("uri", file.uri());
      node.put("partition", file.partition());
      node.put("generation", file.generation());
      node.put("size", file.size());
      node.put("eventId", file.eventId());
      node.put("eventTime", file.eventTime().toString());
      file.archive().ifPresent(archive -> {
        ObjectNode copy = node.putObject("archive");
        copy.put("uri", archive.uri());
        copy.put("generation", archive.generation());
      });
    }
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write the manifest of batch " + manifest.batchId(), e);
    }
  }

  /**
   * Reads and validates a manifest.
   *
   * @param origin where the text came from (a path or URI), named in every error
   * @throws InvalidManifestException naming the origin and the field at fault
   */
  public static BatchManifest fromJson(String json, String origin) {
    Reader reader = new Reader(parse(json, origin), origin);
    String format = reader.text(reader.root, "format");
    if (!FORMAT.equals(format)) {
      throw reader.invalid("format", "expected \"" + FORMAT + "\", got \"" + format + "\"");
    }
    int version = (int) reader.number(reader.root, "version");
    if (version < BatchManifest.PROFILE_DEPLOYMENT_VERSION || version > BatchManifest.CURRENT_VERSION) {
      throw reader.invalid(
          "version",
          "this build reads versions "
              + BatchManifest.PROFILE_DEPLOYMENT_VERSION
              + " to "
              + BatchManifest.CURRENT_VERSION
              + ", the manifest is version "
              + version
              + (version > BatchManifest.CURRENT_VERSION ? " (written by a newer files2iceberg)" : ""));
    }
    if (version == BatchManifest.PROFILE_DEPLOYMENT_VERSION) {
      reader.deploymentFromProfile();
    }
    String batchId = reader.text(reader.root, "batchId");
    String table = reader.text(reader.root, "table");
    IngestionType mode = reader.mode();
    boolean saveCheckpoint = reader.bool(reader.root, "saveCheckpoint");
    Instant createdAt = reader.instant(reader.root, "createdAt");
    TableProfile profile = reader.profile();
    if (!profile.table().equals(table)) {
      throw reader.invalid(
          "table", "is \"" + table + "\" but the profile loads \"" + profile.table() + "\"");
    }
    Deployment deployment = reader.deployment();
    List<ManifestFile> files = reader.files();
    return new BatchManifest(
        BatchManifest.CURRENT_VERSION, batchId, profile, deployment, mode, saveCheckpoint, createdAt, files);
  }

  private static JsonNode parse(String json, String origin) {
    try {
      return JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new InvalidManifestException(
          "Invalid manifest " + origin + ": not JSON: " + e.getOriginalMessage(), e);
    }
  }

  /** Typed reads of one manifest; every error names the origin and the field path. */
  private static final class Reader {
    private final JsonNode root;
    private final String origin;

    Reader(JsonNode root, String origin) {
      if (root == null || !root.isObject()) {
        throw new InvalidManifestException("Invalid manifest " + origin + ": expected a JSON object");
      }
      this.root = root;
      this.origin = origin;
    }

    InvalidManifestException invalid(String field, String reason) {
      return new InvalidManifestException("Invalid manifest " + origin + ": " + field + ": " + reason);
    }

    private JsonNode field(JsonNode node, String path, String name) {
      JsonNode value = node.get(name);
      if (value == null || value.isNull()) {
        throw invalid(path, "is missing");
      }
      return value;
    }

    /** The field, when it is what {@code is} accepts; else an error saying what was {@code expected}. */
    private JsonNode field(JsonNode node, String path, String name, Predicate<JsonNode> is, String expected) {
      JsonNode value = field(node, path, name);
      if (!is.test(value)) {
        throw invalid(path, "expected " + expected + ", got " + value);
      }
      return value;
    }

    String text(JsonNode node, String name) {
      return text(node, name, name);
    }

    String text(JsonNode node, String path, String name) {
      return field(node, path, name, value -> value.isTextual() && !value.asText().isBlank(), "a non-empty string")
          .asText();
    }

    long number(JsonNode node, String name) {
      return number(node, name, name);
    }

    long number(JsonNode node, String path, String name) {
      return field(node, path, name, JsonNode::isIntegralNumber, "a whole number").asLong();
    }

    boolean bool(JsonNode node, String name) {
      return field(node, name, name, JsonNode::isBoolean, "true or false").asBoolean();
    }

    Instant instant(JsonNode node, String name) {
      return instant(node, name, name);
    }

    Instant instant(JsonNode node, String path, String name) {
      String text = text(node, path, name);
      try {
        return Instant.parse(text);
      } catch (DateTimeParseException e) {
        throw invalid(path, "expected an ISO-8601 instant such as 2026-11-30T12:00:00Z, got \"" + text + "\"");
      }
    }

    IngestionType mode() {
      String code = text(root, "mode");
      return IngestionType.ofCode(code).orElseThrow(() -> invalid(
          "mode",
          "expected one of "
              + java.util.Arrays.stream(IngestionType.values())
                  .map(IngestionType::code)
                  .collect(Collectors.joining(", "))
              + ", got \""
              + code
              + "\""));
    }

    TableProfile profile() {
      JsonNode profile = field(root, "profile", "profile", JsonNode::isObject, "an object");
      // The profile keeps the path it was first loaded from, for messages that name it.
      Path source =
          Optional.ofNullable(profile.get("source"))
              .filter(JsonNode::isTextual)
              .map(node -> Path.of(node.asText()))
              .orElseGet(
                  () ->
                      Path.of(
                          Optional.ofNullable(profile.get("name"))
                                  .map(JsonNode::asText)
                                  .orElse("profile")
                              + ".conf"));
      try {
        // Every value of a manifest's profile is resolved, so the home's defaults are never used.
        return ProfileLoader.parse(
            profile.toString(), source, Home.resolve(Optional.empty(), Map.of()));
      } catch (ProfileException e) {
        throw invalid(
            "profile",
            e.errors().stream()
                .map(ProfileError::toString)
                .collect(Collectors.joining("; ")));
      }
    }

    /**
     * A version-1 manifest (written before the deployment file): the profile carries the
     * deployment's sections; they move to the {@code deployment} field, as version 2 writes it.
     */
    void deploymentFromProfile() {
      JsonNode profile = field(root, "profile", "profile", JsonNode::isObject, "an object");
      ObjectNode deployment = ((ObjectNode) root).putObject("deployment");
      for (String section : DeploymentLoader.SECTIONS) {
        JsonNode value = ((ObjectNode) profile).remove(section);
        if (value != null) {
          deployment.set(section, value);
        }
      }
    }

    Deployment deployment() {
      JsonNode deployment = field(root, "deployment", "deployment", JsonNode::isObject, "an object");
      try {
        // Every value is resolved, so the home's defaults are never used.
        return DeploymentLoader.parse(
            deployment.toString(), Path.of("deployment.conf"), Home.resolve(Optional.empty(), Map.of()));
      } catch (ProfileException e) {
        throw invalid(
            "deployment",
            e.errors().stream().map(ProfileError::toString).collect(Collectors.joining("; ")));
      }
    }

    List<ManifestFile> files() {
      JsonNode files =
          field(root, "files", "files", value -> value.isArray() && !value.isEmpty(), "a non-empty list of files");
      List<ManifestFile> result = new ArrayList<>();
      Set<String> seen = new HashSet<>();
      for (int i = 0; i < files.size(); i++) {
        JsonNode file = files.get(i);
        String at = "files[" + i + "]";
        if (!file.isObject()) {
          throw invalid(at, "expected an object, got " + file);
        }
        ManifestFile parsed =
            new ManifestFile(
                text(file, at + ".fileId", "fileId"),
                text(file, at + ".uri", "uri"),
                textAllowingEmpty(file, at + ".partition", "partition"),
                number(file, at + ".generation", "generation"),
                number(file, at + ".size", "size"),
                text(file, at + ".eventId", "eventId"),
                instant(file, at + ".eventTime", "eventTime"),
                archive(file, at + ".archive"));
        if (!seen.add(parsed.fileId())) {
          throw invalid(at + ".fileId", "file " + parsed.fileId() + " (" + parsed.uri() + ") is listed twice");
        }
        result.add(parsed);
      }
      return result;
    }

    /** A file's archived copy; empty when the field is absent (or null). */
    private Optional<ManifestFile.Archive> archive(JsonNode file, String at) {
      JsonNode archive = file.get("archive");
      if (archive == null || archive.isNull()) {
        return Optional.empty();
      }
      if (!archive.isObject()) {
        throw invalid(at, "expected an object with uri and generation, got " + archive);
      }
      return Optional.of(new ManifestFile.Archive(text(archive, at + ".uri", "uri"),
          number(archive, at + ".generation", "generation")));
    }

    /** The partition token of a file directly below the glob's prefix is the empty string. */
    private String textAllowingEmpty(JsonNode node, String path, String name) {
      return field(node, path, name, JsonNode::isTextual, "a string").asText();
    }
  }
}
