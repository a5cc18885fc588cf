package io.files2iceberg.core.storage;

import com.google.cloud.NoCredentials;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import io.files2iceberg.core.profile.StorageSettings;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one place Cloud Storage clients are made, for every component: the listener's marker
 * listing, the batcher's manifests, warm folders and results, the operator commands, and the job's
 * generation checks and warm folder. Each goes where {@code storage.endpoint} of the deployment
 * says, else where {@value #EMULATOR_HOST} says (an emulator or a stand-in, without credentials),
 * else to Google with the application default credentials.
 */
public final class StorageClients {
  /** The environment variable Google's emulators and other clients use for a Cloud Storage emulator. */
  public static final String EMULATOR_HOST = "STORAGE_EMULATOR_HOST";
  /** The project a client without credentials names (an emulator or stand-in ignores it). */
  static final String ANONYMOUS_PROJECT = "files2iceberg-local";

  /** One client per settings in a process: clients are thread-safe and hold connection pools. */
  private static final Map<StorageSettings, Storage> SHARED = new ConcurrentHashMap<>();

  private StorageClients() {}

  /**
   * This process's client for these settings, made on first use: a component that reads only
   * local paths never needs Google's credentials.
   */
  public static Storage shared(StorageSettings settings) {
    return SHARED.computeIfAbsent(settings, StorageClients::create);
  }

  /** A client for these settings, with this process's environment. */
  public static Storage create(StorageSettings settings) {
    return create(settings, System.getenv());
  }

  /** A client for these settings, {@value #EMULATOR_HOST} read from {@code env}. */
  public static Storage create(StorageSettings settings, Map<String, String> env) {
    return options(settings, env).getService();
  }

  /** The options {@link #create} builds its client from. */
  static StorageOptions options(StorageSettings settings, Map<String, String> env) {
    Optional<String> emulator = settings.endpoint().isPresent() ? Optional.empty() : emulatorHost(env);
    Optional<String> endpoint = settings.endpoint().or(() -> emulator);
    if (endpoint.isEmpty() && settings.credentials() == StorageSettings.Credentials.APPLICATION_DEFAULT) {
      return StorageOptions.getDefaultInstance();
    }
    StorageOptions.Builder builder = StorageOptions.newBuilder();
    endpoint.ifPresent(builder::setHost);
    if (emulator.isPresent() || settings.credentials() == StorageSettings.Credentials.NONE) {
      // No credentials means no project lookup either (it would ask the metadata server).
      builder.setCredentials(NoCredentials.getInstance())
          .setProjectId(Optional.ofNullable(env.get("GOOGLE_CLOUD_PROJECT")).orElse(ANONYMOUS_PROJECT));
    }
    return builder.build();
  }

  /** {@value #EMULATOR_HOST} as a URL: {@code host:port} gets {@code http://}, as other clients read it. */
  static Optional<String> emulatorHost(Map<String, String> env) {
    String value = env.get(EMULATOR_HOST);
    if (value == null || value.isBlank()) {
      return Optional.empty();
    }
    String url = value.strip();
    url = url.contains("://") ? url : "http://" + url;
    return Optional.of(url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
  }
}
