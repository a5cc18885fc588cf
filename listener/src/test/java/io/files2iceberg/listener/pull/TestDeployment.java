package io.files2iceberg.listener.pull;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.files2iceberg.core.ledger.LedgerSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * One listener deployment for a test: a profile folder with one table fed from {@code
 * gs://landing-bucket/raw/clicks/dt=*}{@code /*.parquet}, and an embedded home whose SQLite ledger
 * the listener opens. Also builds the GCS notifications (attributes and JSON_API_V1 data) and
 * push envelopes of that table's files.
 */
public final class TestDeployment implements AutoCloseable {
  public static final String BUCKET = "landing-bucket";
  public static final String TABLE = "local.demo.clicks";

  private static final ObjectMapper JSON = new ObjectMapper();
  // Distinct generations across every test of a run, so no two tests share a ledger file.
  private static final AtomicLong GENERATIONS = new AtomicLong(1_714_521_600_000_000L);

  private final Path root;

  private TestDeployment(Path root) {
    this.root = root;
  }

  /**
   * @param listenerKeys HOCON lines under {@code listener { }}, such as {@code oidc-audience =
   *     "..."}; may be empty
   */
  public static TestDeployment create(String listenerKeys) {
    try {
      Path root = Files.createTempDirectory("files2iceberg-listener-test");
      Files.createDirectories(root.resolve("profiles"));
      Files.createDirectories(root.resolve("home"));
      String profile =
          """
          extract {
            path = "gs://%s/raw/clicks/dt=*/*.parquet"
            batch-file {
              partition-type = date
              pattern = ".+/dt=(\\\\d{4}-\\\\d{2}-\\\\d{2})/.+"
              date-format = yyyy-MM-dd
            }
          }
          load.iceberg.table = "%s"
          """
              .formatted(BUCKET, TABLE);
      Files.writeString(root.resolve("profiles/clicks.conf"), profile);
      // The deployment's settings, in the deployment file beside the profiles.
      Files.writeString(root.resolve("profiles/deployment.conf"), "listener {\n" + listenerKeys + "\n}\n");
      return new TestDeployment(root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The Micronaut properties that point the listener at this deployment. */
  public Map<String, Object> properties() {
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put("files2iceberg.config", root.resolve("profiles").toString());
    properties.put("files2iceberg.home", root.resolve("home").toString());
    return properties;
  }

  /** The SQLite ledger the listener opens: {@code <home>/ledger.db}. */
  public Path ledgerFile() {
    return root.resolve("home/ledger.db");
  }

  /** A new data file of the table, in partition {@code dt=<date>}, with a generation of its own. */
  public static DataFile dataFile(String date) {
    long generation = GENERATIONS.incrementAndGet();
    return new DataFile("raw/clicks/dt=" + date + "/part-" + generation + ".parquet", generation, 2048);
  }

  @Override
  public void close() {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A data file as GCS describes it in an OBJECT_FINALIZE notification. */
  public record DataFile(String name, long generation, long size) {

    public String fileId() {
      return LedgerSchema.fileId(BUCKET, name, generation);
    }

    public String uri() {
      return "gs://" + BUCKET + "/" + name;
    }

    /** The notification's attributes, as GCS sets them. */
    public Map<String, String> attributes() {
      Map<String, String> attributes = new LinkedHashMap<>();
      attributes.put("notificationConfig", "projects/_/buckets/" + BUCKET + "/notificationConfigs/1");
      attributes.put("eventType", "OBJECT_FINALIZE");
      attributes.put("payloadFormat", "JSON_API_V1");
      attributes.put("bucketId", BUCKET);
      attributes.put("objectId", name);
      attributes.put("objectGeneration", Long.toString(generation));
      attributes.put("eventTime", "2024-05-01T10:00:00.123Z");
      return attributes;
    }

    /** The notification's data: the object resource (JSON API v1). */
    public byte[] data() {
      Map<String, Object> resource = new LinkedHashMap<>();
      resource.put("kind", "storage#object");
      resource.put("id", BUCKET + "/" + name + "/" + generation);
      resource.put("name", name);
      resource.put("bucket", BUCKET);
      resource.put("generation", Long.toString(generation));
      resource.put("metageneration", "1");
      resource.put("contentType", "application/octet-stream");
      resource.put("timeCreated", "2024-05-01T10:00:00.123Z");
      resource.put("updated", "2024-05-01T10:00:00.123Z");
      resource.put("size", Long.toString(size));
      return json(resource).getBytes(StandardCharsets.UTF_8);
    }

    /** The body Pub/Sub posts to a push endpoint for this notification. */
    public String pushEnvelope(String messageId) {
      Map<String, Object> message = new LinkedHashMap<>();
      message.put("attributes", attributes());
      message.put("data", Base64.getEncoder().encodeToString(data()));
      message.put("messageId", messageId);
      message.put("message_id", messageId);
      message.put("publishTime", "2024-05-01T10:00:01.456Z");
      message.put("publish_time", "2024-05-01T10:00:01.456Z");
      Map<String, Object> envelope = new LinkedHashMap<>();
      envelope.put("message", message);
      envelope.put("subscription", "projects/files2iceberg-test/subscriptions/landing-push");
      return json(envelope);
    }
  }

  private static String json(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
