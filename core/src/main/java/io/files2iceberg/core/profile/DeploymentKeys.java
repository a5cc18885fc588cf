package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ValueType.BOOLEAN;
import static io.files2iceberg.core.profile.ValueType.DURATION;
import static io.files2iceberg.core.profile.ValueType.MAP;
import static io.files2iceberg.core.profile.ValueType.NON_BLANK;
import static io.files2iceberg.core.profile.ValueType.STRING;
import static io.files2iceberg.core.profile.ValueType.WHOLE_NUMBER;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Every key the deployment file may set ({@code ledger}, {@code listener}, {@code job}, {@code
 * storage}, {@code events}): its dotted
 * path, its value type and where the resolved value lives in a {@link Deployment}. The one list that
 * the deployment loader, its rendering and the documentation test read.
 */
final class DeploymentKeys {

  /**
   * One leaf key.
   *
   * @param resolved the resolved value in a deployment, as the key spells it (null for none)
   */
  record Key<T>(String path, ValueType<T> type, Function<Deployment, T> resolved)
      implements SettingKey<T> {}

  /** The sections of the deployment file, which table profiles of old carried too. */
  static final List<String> SECTIONS = List.of("ledger", "listener", "job", "storage", "events");

  private static final KeyList<Key<?>> ALL = new KeyList<>();

  static final Key<String> LEDGER_TYPE = key("ledger.type", NON_BLANK, d -> d.ledger().type());
  static final Key<String> LEDGER_SQLITE_PATH =
      key("ledger.sqlite-path", NON_BLANK, d -> d.ledger().sqlitePath());
  static final Key<String> LEDGER_FIRESTORE_PROJECT =
      key("ledger.firestore-project", NON_BLANK, d -> d.ledger().firestoreProject().orElse(null));
  static final Key<String> LEDGER_FIRESTORE_DATABASE =
      key("ledger.firestore-database", NON_BLANK, d -> d.ledger().firestoreDatabase());
  static final Key<String> LEDGER_COLLECTION_PREFIX =
      key("ledger.collection-prefix", STRING, d -> d.ledger().collectionPrefix());
  static final Key<Duration> LEDGER_DEADLINE =
      key("ledger.deadline", DURATION, d -> d.ledger().deadline());
  static final Key<Map<String, String>> LEDGER_PROPERTIES =
      key("ledger.properties", MAP, d -> d.ledger().properties());

  static final Key<Map<String, String>> JOB_SPARK_PROPERTIES =
      key("job.spark-properties", MAP, d -> d.job().sparkProperties());
  static final Key<String> JOB_MASTER = key("job.master", NON_BLANK, d -> d.job().master());
  static final Key<String> JOB_DATAPROC_REGION =
      key("job.dataproc-region", NON_BLANK, d -> d.job().dataprocRegion().orElse(null));
  static final Key<String> JOB_RUNTIME_VERSION =
      key("job.runtime-version", NON_BLANK, d -> d.job().runtimeVersion());
  static final Key<String> JOB_SERVICE_ACCOUNT =
      key("job.service-account", NON_BLANK, d -> d.job().serviceAccount().orElse(null));
  static final Key<String> JOB_SUBNETWORK =
      key("job.subnetwork", NON_BLANK, d -> d.job().subnetwork().orElse(null));
  static final Key<String> JOB_JAR_URI =
      key("job.jar-uri", NON_BLANK, d -> d.job().jarUri().orElse(null));
  static final Key<Duration> JOB_LEASE_TIMEOUT =
      key("job.lease-timeout", DURATION, d -> d.job().leaseTimeout());
  static final Key<Integer> JOB_MAX_ATTEMPTS =
      key("job.max-attempts", WHOLE_NUMBER, d -> d.job().maxAttempts());
  static final Key<String> JOB_MODE =
      key("job.mode", NON_BLANK, d -> d.job().mode().map(JobSettings.JobMode::code).orElse(null));
  static final Key<Duration> JOB_WARM_IDLE_TIMEOUT =
      key("job.warm.idle-timeout", DURATION, d -> d.job().warmIdleTimeout());
  static final Key<String> JOB_WARM_DATAPROC =
      key("job.warm.dataproc", NON_BLANK, d -> d.job().warmDataproc().code());
  static final Key<String> JOB_DATAPROC_CLUSTER =
      key("job.dataproc-cluster", NON_BLANK, d -> d.job().dataprocCluster().orElse(null));
  static final Key<Duration> JOB_WARM_TTL = key("job.warm.ttl", DURATION, d -> d.job().warmTtl());
  static final Key<String> JOB_WARM_FOLDER =
      key("job.warm.folder", NON_BLANK, d -> d.job().warmFolder().orElse(null));
  static final Key<String> JOB_KUBERNETES_NAMESPACE =
      key("job.kubernetes.namespace", NON_BLANK, d -> d.job().kubernetes().map(KubernetesSettings::namespace).orElse(null));
  static final Key<String> JOB_KUBERNETES_IMAGE =
      key("job.kubernetes.image", NON_BLANK, d -> d.job().kubernetes().map(KubernetesSettings::image).orElse(null));
  static final Key<String> JOB_KUBERNETES_SERVICE_ACCOUNT = key("job.kubernetes.service-account", NON_BLANK,
      d -> d.job().kubernetes().map(KubernetesSettings::serviceAccount).orElse(null));
  static final Key<String> JOB_KUBERNETES_MASTER =
      key("job.kubernetes.master", NON_BLANK, d -> d.job().kubernetes().map(KubernetesSettings::master).orElse(null));
  static final Key<String> JOB_KUBERNETES_JAR =
      key("job.kubernetes.jar", NON_BLANK, d -> d.job().kubernetes().map(KubernetesSettings::jar).orElse(null));

  static final Key<Integer> LISTENER_PORT =
      key("listener.port", WHOLE_NUMBER, d -> d.listener().port());
  static final Key<String> LISTENER_HOST =
      key("listener.host", NON_BLANK, d -> d.listener().host().orElse(null));
  static final Key<String> LISTENER_PUSH_PATH =
      key("listener.push-path", NON_BLANK, d -> d.listener().pushPath());
  static final Key<Boolean> LISTENER_PUSH_ENABLED =
      key("listener.push-enabled", BOOLEAN, d -> d.listener().pushEnabled().orElse(null));
  static final Key<Boolean> LISTENER_LIST_PREFIX_ON_MARKER =
      key("listener.list-prefix-on-marker", BOOLEAN, d -> d.listener().listPrefixOnMarker());
  static final Key<String> LISTENER_OIDC_AUDIENCE =
      key("listener.oidc-audience", NON_BLANK, d -> d.listener().oidcAudience().orElse(null));
  static final Key<String> LISTENER_OIDC_SERVICE_ACCOUNT =
      key(
          "listener.oidc-service-account",
          NON_BLANK,
          d -> d.listener().oidcServiceAccount().orElse(null));

  static final Key<String> STORAGE_ENDPOINT =
      key("storage.endpoint", NON_BLANK, d -> d.storage().endpoint().orElse(null));
  static final Key<String> STORAGE_CREDENTIALS =
      key("storage.credentials", NON_BLANK, d -> d.storage().credentials().code());

  static final Key<String> EVENTS_PUBSUB_TOPIC =
      key("events.pubsub-topic", NON_BLANK, d -> d.events().pubsubTopic().orElse(null));

  private DeploymentKeys() {}

  private static <T> Key<T> key(String path, ValueType<T> type, Function<Deployment, T> resolved) {
    return ALL.add(new Key<>(path, type, resolved));
  }

  static List<String> all() {
    return ALL.paths();
  }

  static List<Key<?>> keys() {
    return ALL.keys();
  }

  static KeyPaths paths() {
    return ALL.keyPaths();
  }
}
