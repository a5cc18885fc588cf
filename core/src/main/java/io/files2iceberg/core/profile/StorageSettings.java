package io.files2iceberg.core.profile;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Where every component reaches Cloud Storage: the {@code storage} section of the deployment file.
 * One endpoint for the listener's marker listing and generation reads, the batcher's manifests,
 * warm folder and results, and the job's own reads (the Hadoop GCS connector) and writes (an
 * Iceberg {@code GCSFileIO}); unset, Google's.
 *
 * @param endpoint the Cloud Storage JSON API's root, {@code http[s]://host[:port]} without a
 *     trailing slash; empty: Google's endpoint (or {@code STORAGE_EMULATOR_HOST} for the Java
 *     clients, see {@link io.files2iceberg.core.storage.StorageClients})
 * @param credentials how the clients authenticate
 */
public record StorageSettings(Optional<String> endpoint, Credentials credentials) {

  /** The GCS connector's key for the JSON API's root URL (a Hadoop property). */
  public static final String CONNECTOR_ROOT_URL = "fs.gs.storage.root.url";
  /** The GCS connector's authentication type (a Hadoop property). */
  public static final String CONNECTOR_AUTH_TYPE = "fs.gs.auth.type";
  /** Iceberg's {@code GCSFileIO} endpoint (a catalog property). */
  public static final String FILE_IO_HOST = "gcs.service.host";
  /** Iceberg's {@code GCSFileIO} without credentials (a catalog property). */
  public static final String FILE_IO_NO_AUTH = "gcs.no-auth";

  /** How the Storage clients authenticate: {@code storage.credentials}. */
  public enum Credentials {
    /** Google's application default credentials: the service account on Cloud Run and Dataproc. */
    APPLICATION_DEFAULT("application-default"),
    /** None: an emulator or a stand-in on loopback. */
    NONE("none");

    private final String code;

    Credentials(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }
  }

  /** Google's endpoint with the application default credentials. */
  public static final StorageSettings GOOGLE = new StorageSettings(Optional.empty(), Credentials.APPLICATION_DEFAULT);

  public StorageSettings {
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(credentials, "credentials");
    endpoint.ifPresent(url -> problem(url).ifPresent(p -> {
      throw new IllegalArgumentException("storage.endpoint " + p);
    }));
  }

  /**
   * What is wrong with an endpoint, empty when nothing: it must be an absolute {@code http} or
   * {@code https} URL with a host and nothing after the port.
   */
  static Optional<String> problem(String endpoint) {
    Optional<String> refused = Optional.of(
        "must be an http(s) URL with a host and no path, such as http://127.0.0.1:9023, got \"" + endpoint + "\"");
    URI uri;
    try {
      uri = new URI(endpoint);
    } catch (URISyntaxException e) {
      return refused;
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    boolean bare = uri.getPath() == null || uri.getPath().isEmpty() || uri.getPath().equals("/");
    if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null || !bare
        || uri.getQuery() != null || uri.getFragment() != null || uri.getUserInfo() != null) {
      return refused;
    }
    return Optional.empty();
  }

  /**
   * The Spark properties that point the job's GCS connector where the Java clients go: the root
   * URL (with its trailing slash, as the connector wants it) and, without credentials, {@code
   * UNAUTHENTICATED}. Empty for Google's endpoint with the default credentials (Dataproc's own
   * connector settings stand).
   */
  public Map<String, String> connectorSparkProperties() {
    Map<String, String> properties = new LinkedHashMap<>();
    endpoint.ifPresent(url -> properties.put("spark.hadoop." + CONNECTOR_ROOT_URL, url + "/"));
    if (credentials == Credentials.NONE) {
      properties.put("spark.hadoop." + CONNECTOR_AUTH_TYPE, "UNAUTHENTICATED");
    }
    return properties;
  }

  /**
   * The settings the job's GCS connector runs with ({@link #connectorSparkProperties}, or the
   * connector keys a user set), from a Hadoop configuration's {@code get}: the job's own Java
   * Storage clients then go exactly where its connector reads.
   */
  public static StorageSettings ofConnector(Function<String, String> hadoopConf) {
    Optional<String> root = Optional.ofNullable(hadoopConf.apply(CONNECTOR_ROOT_URL))
        .map(String::strip)
        .map(url -> url.endsWith("/") ? url.substring(0, url.length() - 1) : url)
        .filter(url -> problem(url).isEmpty());
    boolean anonymous = "UNAUTHENTICATED".equalsIgnoreCase(
        Optional.ofNullable(hadoopConf.apply(CONNECTOR_AUTH_TYPE)).orElse("").strip());
    return new StorageSettings(root, anonymous ? Credentials.NONE : Credentials.APPLICATION_DEFAULT);
  }

  /**
   * The properties of an Iceberg catalog whose {@code GCSFileIO} must reach this endpoint, without
   * the catalog's prefix.
   */
  public Map<String, String> fileIoProperties() {
    Map<String, String> properties = new LinkedHashMap<>();
    endpoint.ifPresent(url -> properties.put(FILE_IO_HOST, url));
    if (credentials == Credentials.NONE) {
      properties.put(FILE_IO_NO_AUTH, "true");
    }
    return properties;
  }
}
