package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.DeploymentKeys.JOB_DATAPROC_REGION;
import static io.files2iceberg.core.profile.DeploymentKeys.JOB_JAR_URI;
import static io.files2iceberg.core.profile.DeploymentKeys.JOB_KUBERNETES_IMAGE;
import static io.files2iceberg.core.profile.DeploymentKeys.JOB_KUBERNETES_JAR;
import static io.files2iceberg.core.profile.DeploymentKeys.JOB_KUBERNETES_MASTER;
import static io.files2iceberg.core.profile.DeploymentKeys.JOB_KUBERNETES_NAMESPACE;
import static io.files2iceberg.core.profile.DeploymentKeys.JOB_KUBERNETES_SERVICE_ACCOUNT;
import static io.files2iceberg.core.profile.DeploymentKeys.JOB_LEASE_TIMEOUT;
import static io.files2iceberg.core.profile.DeploymentKeys.JOB_MASTER;
import static io.files2iceberg.core.profile.DeploymentKeys.JOB_MAX_ATTEMPTS;
import static io.files2iceberg.core.profile.DeploymentKeys.JOB_MODE;
import static io.files2iceberg.core.profile.DeploymentKeys.JOB_DATAPROC_CLUSTER;
import static io.files2iceberg.core.profile.DeploymentKeys.JOB_WARM_DATAPROC;
import static io.files2iceberg.core.profile.DeploymentKeys.JOB_WARM_FOLDER;
import static io.files2iceberg.core.profile.DeploymentKeys.JOB_WARM_IDLE_TIMEOUT;
import static io.files2iceberg.core.profile.DeploymentKeys.JOB_WARM_TTL;
import static io.files2iceberg.core.profile.DeploymentKeys.JOB_RUNTIME_VERSION;
import static io.files2iceberg.core.profile.DeploymentKeys.JOB_SERVICE_ACCOUNT;
import static io.files2iceberg.core.profile.DeploymentKeys.JOB_SPARK_PROPERTIES;
import static io.files2iceberg.core.profile.DeploymentKeys.JOB_SUBNETWORK;
import static io.files2iceberg.core.profile.DeploymentKeys.LEDGER_COLLECTION_PREFIX;
import static io.files2iceberg.core.profile.DeploymentKeys.LEDGER_DEADLINE;
import static io.files2iceberg.core.profile.DeploymentKeys.LEDGER_FIRESTORE_DATABASE;
import static io.files2iceberg.core.profile.DeploymentKeys.LEDGER_FIRESTORE_PROJECT;
import static io.files2iceberg.core.profile.DeploymentKeys.LEDGER_PROPERTIES;
import static io.files2iceberg.core.profile.DeploymentKeys.LEDGER_SQLITE_PATH;
import static io.files2iceberg.core.profile.DeploymentKeys.LEDGER_TYPE;
import static io.files2iceberg.core.profile.DeploymentKeys.LISTENER_HOST;
import static io.files2iceberg.core.profile.DeploymentKeys.LISTENER_LIST_PREFIX_ON_MARKER;
import static io.files2iceberg.core.profile.DeploymentKeys.LISTENER_OIDC_AUDIENCE;
import static io.files2iceberg.core.profile.DeploymentKeys.LISTENER_OIDC_SERVICE_ACCOUNT;
import static io.files2iceberg.core.profile.DeploymentKeys.LISTENER_PORT;
import static io.files2iceberg.core.profile.DeploymentKeys.LISTENER_PUSH_ENABLED;
import static io.files2iceberg.core.profile.DeploymentKeys.LISTENER_PUSH_PATH;
import static io.files2iceberg.core.profile.DeploymentKeys.EVENTS_PUBSUB_TOPIC;
import static io.files2iceberg.core.profile.DeploymentKeys.STORAGE_CREDENTIALS;
import static io.files2iceberg.core.profile.DeploymentKeys.STORAGE_ENDPOINT;

import io.files2iceberg.core.ledger.LedgerProvider;
import io.files2iceberg.core.ledger.Ledgers;
import io.files2iceberg.core.storage.GcsUri;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Reads the deployment file, HOCON ({@code deployment.conf}) or YAML ({@code deployment.yaml},
 * {@code deployment.yml}), into a validated {@link Deployment} with every default filled in. Its
 * keys are listed in docs/deployment-file.md. The ledger's type names a {@link
 * LedgerProvider} on the classpath, which checks the ledger's settings.
 */
public final class DeploymentLoader {

  /** The deployment's top-level sections, which profiles of old carried. */
  public static final List<String> SECTIONS = DeploymentKeys.SECTIONS;

  /** The names the deployment file may have beside the profiles, in the order they are looked for. */
  public static final List<String> FILE_NAMES =
      List.of("deployment.conf", "deployment.yaml", "deployment.yml");

  static final String DEFAULT_MASTER = "local[*]";
  static final String DEFAULT_RUNTIME_VERSION = "2.3";
  static final Duration DEFAULT_LEASE_TIMEOUT = Duration.ofMinutes(30);
  static final int DEFAULT_MAX_ATTEMPTS = 3;
  static final int DEFAULT_PORT = 8080;
  static final String DEFAULT_PUSH_PATH = "/pubsub/push";
  static final String DEFAULT_FIRESTORE_DATABASE = "(default)";

  private DeploymentLoader() {}

  /**
   * Reads and validates a deployment file.
   *
   * @throws ProfileException listing every problem in the file
   */
  public static Deployment load(Path file, Home home) throws ProfileException {
    return ProfileException.unlessAny(errors -> read(file, home, errors));
  }

  /**
   * Parses and validates a deployment from HOCON text (JSON, such as {@link #render} writes, is
   * HOCON), as {@link #load} reads a {@code .conf} file; {@code source} names it in the problems.
   *
   * @throws ProfileException listing every problem in the text
   */
  public static Deployment parse(String text, Path source, Home home) throws ProfileException {
    return ProfileException.unlessAny(source,
        problems -> ProfileTree.readHocon(text, source, problems).map(tree -> fromFile(tree, home, problems)));
  }

  /** The deployment of a file that sets nothing: the embedded one, its ledger under the home. */
  public static Deployment defaults(Home home) {
    Problems problems = new Problems(home.root());
    Deployment deployment = fromFile(Map.of(), home, problems);
    if (!problems.isEmpty()) {
      throw new IllegalStateException("the default deployment is invalid: " + problems.errors());
    }
    return deployment;
  }

  /**
   * The deployment files beside table profiles: in the folder, or in the folder of a single
   * profile file. More than one is an error of the registry.
   */
  public static List<Path> beside(Path profilesFileOrDir) {
    Path folder = Files.isDirectory(profilesFileOrDir)
        ? profilesFileOrDir
        : profilesFileOrDir.toAbsolutePath().getParent();
    if (folder == null) {
      return List.of();
    }
    return FILE_NAMES.stream().map(folder::resolve).filter(Files::isRegularFile).toList();
  }

  /** Whether a file in a profile folder is a deployment file rather than a table profile. */
  public static boolean isDeploymentFile(Path file) {
    return FILE_NAMES.contains(file.getFileName().toString().toLowerCase(Locale.ROOT));
  }

  /**
   * The deployment as the text of a deployment file: pretty-printed JSON (which HOCON reads), every
   * default filled in, under the keys the file uses. {@link #parse} reads it back into an equal
   * deployment.
   */
  public static String render(Deployment deployment) {
    return ProfileJson.deployment(deployment);
  }

  /** Reads one deployment file, adding its problems to {@code errors}; empty when there are any. */
  static Optional<Deployment> read(Path file, Home home, List<ProfileError> errors) {
    Problems problems = new Problems(file);
    Optional<Deployment> deployment =
        ProfileTree.read(file, problems).map(tree -> fromFile(tree, home, problems));
    errors.addAll(problems.errors());
    return problems.isEmpty() ? deployment : Optional.empty();
  }

  private static Deployment fromFile(Map<String, Object> tree, Home home, Problems problems) {
    Map<String, Object> deploymentOnly = new LinkedHashMap<>(tree);
    for (String section : tree.keySet()) {
      if (ProfileKeys.paths().isSection(section) && !DeploymentKeys.SECTIONS.contains(section)) {
        problems.add(section, "is a section of a table profile; the deployment file holds "
            + String.join(", ", DeploymentKeys.SECTIONS) + " only");
        deploymentOnly.remove(section);
      }
    }
    ProfileValues values = new ProfileValues(deploymentOnly, problems, DeploymentKeys.paths());
    values.rejectUnknownKeys();
    return build(values, home);
  }

  /**
   * The deployment a tree's {@code ledger}, {@code listener} and {@code job} sections give, a
   * deployment file's or a table profile's of old; problems are recorded in the values' problems.
   */
  static Deployment build(ProfileValues v, Home home) {
    StorageSettings storage = storage(v);
    return new Deployment(ledger(v, home), listener(v), job(v, storage), storage,
        new EventSettings(v.optional(EVENTS_PUBSUB_TOPIC, EventSettings::problem)));
  }

  /** Whether a table profile's tree carries any of the deployment's sections. */
  static boolean carriesDeployment(ProfileValues v) {
    return DeploymentKeys.SECTIONS.stream().anyMatch(v::hasSection);
  }

  private static LedgerSettings ledger(ProfileValues v, Home home) {
    String type = v.get(LEDGER_TYPE, LedgerSettings.SQLITE).trim().toLowerCase(Locale.ROOT);
    LedgerSettings settings = new LedgerSettings(
        type,
        v.get(LEDGER_SQLITE_PATH, home.ledgerDb().toString()),
        v.optional(LEDGER_FIRESTORE_PROJECT),
        v.get(LEDGER_FIRESTORE_DATABASE, DEFAULT_FIRESTORE_DATABASE),
        v.get(LEDGER_COLLECTION_PREFIX, ""),
        v.get(LEDGER_DEADLINE, LedgerSettings.DEFAULT_DEADLINE),
        v.get(LEDGER_PROPERTIES, Map.of()));
    if (v.isValid(LEDGER_TYPE)) {
      // The provider of the type decides what its settings need; core knows only the type names.
      Optional<LedgerProvider> provider = Ledgers.provider(type);
      if (provider.isEmpty()) {
        v.reject(LEDGER_TYPE, Ledgers.noProvider(type));
      } else {
        provider.get().problems(settings).forEach(problem -> v.reject(problem.key(), problem.reason()));
      }
    }
    return settings;
  }

  /** The shortest and longest {@code executionConfig.ttl} Dataproc Serverless accepts. */
  static final Duration MIN_WARM_TTL = Duration.ofMinutes(10);
  static final Duration MAX_WARM_TTL = Duration.ofDays(14);

  private static StorageSettings storage(ProfileValues v) {
    return new StorageSettings(
        v.optional(STORAGE_ENDPOINT, StorageSettings::problem).map(DeploymentLoader::withoutSlash),
        v.choice(STORAGE_CREDENTIALS, StorageSettings.Credentials.APPLICATION_DEFAULT, StorageSettings.Credentials::code)
            .orElse(StorageSettings.Credentials.APPLICATION_DEFAULT));
  }

  private static String withoutSlash(String endpoint) {
    return endpoint.endsWith("/") ? endpoint.substring(0, endpoint.length() - 1) : endpoint;
  }

  /**
   * The job's settings; its Spark properties start from the connector settings {@code storage}
   * implies ({@link StorageSettings#connectorSparkProperties}), which {@code job.spark-properties}
   * may override key by key, so that a warm driver's settings and every launcher carry them.
   */
  private static JobSettings job(ProfileValues v, StorageSettings storage) {
    Map<String, String> sparkProperties = new LinkedHashMap<>(storage.connectorSparkProperties());
    sparkProperties.putAll(v.get(JOB_SPARK_PROPERTIES, Map.of()));
    JobSettings.WarmPlace place =
        v.choice(JOB_WARM_DATAPROC, JobSettings.WarmPlace.SERVERLESS, JobSettings.WarmPlace::code)
            .orElse(JobSettings.WarmPlace.SERVERLESS);
    Optional<String> cluster =
        place == JobSettings.WarmPlace.CLUSTER && v.isValid(JOB_WARM_DATAPROC)
            ? v.requiredWhen(JOB_DATAPROC_CLUSTER, "job.warm.dataproc = cluster")
            : v.optional(JOB_DATAPROC_CLUSTER);
    return new JobSettings(
        Map.copyOf(sparkProperties),
        v.get(JOB_MASTER, DEFAULT_MASTER),
        v.optional(JOB_DATAPROC_REGION),
        v.get(JOB_RUNTIME_VERSION, DEFAULT_RUNTIME_VERSION),
        v.optional(JOB_SERVICE_ACCOUNT),
        v.optional(JOB_SUBNETWORK),
        v.optional(JOB_JAR_URI),
        v.get(JOB_LEASE_TIMEOUT, DEFAULT_LEASE_TIMEOUT),
        v.number(JOB_MAX_ATTEMPTS, DEFAULT_MAX_ATTEMPTS, 1, Integer.MAX_VALUE),
        v.isSet(JOB_MODE)
            ? v.choice(JOB_MODE, JobSettings.JobMode.WARM, JobSettings.JobMode::code)
            : Optional.empty(),
        v.get(JOB_WARM_IDLE_TIMEOUT, JobSettings.DEFAULT_WARM_IDLE_TIMEOUT),
        place,
        cluster,
        v.get(
            JOB_WARM_TTL,
            JobSettings.DEFAULT_WARM_TTL,
            ttl ->
                ttl.compareTo(MIN_WARM_TTL) < 0 || ttl.compareTo(MAX_WARM_TTL) > 0
                    ? Optional.of("must be from 10m to 14d (Dataproc Serverless' bounds), got " + ttl)
                    : Optional.empty()),
        v.optional(
            JOB_WARM_FOLDER,
            folder -> isGcsFolder(folder) ? Optional.empty()
                : Optional.of("must be a gs:// folder, got \"" + folder + "\"")),
        kubernetes(v));
  }

  /** A DNS-1123 label: what Kubernetes accepts as a namespace name. */
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  /** A DNS-1123 subdomain: what Kubernetes accepts as a service account name. */
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  /**
   * {@code job.kubernetes.*}: present when the namespace is set, which selects the Kubernetes
   * launcher; then the image and the service account are required. Jobs on Kubernetes run per batch
   * only (no warm driver there). That they cannot run on Kubernetes and on Dataproc at once is the
   * launchers' check, as a profile's launcher is theirs to choose.
   */
  private static Optional<KubernetesSettings> kubernetes(ProfileValues v) {
    List<DeploymentKeys.Key<String>> others =
        List.of(JOB_KUBERNETES_IMAGE, JOB_KUBERNETES_SERVICE_ACCOUNT, JOB_KUBERNETES_MASTER, JOB_KUBERNETES_JAR);
    if (!v.isSet(JOB_KUBERNETES_NAMESPACE)) {
      others.stream().filter(v::isSet).forEach(key ->
          v.reject(key, "is set but job.kubernetes.namespace is not: set the namespace to run the jobs on Kubernetes"));
      return Optional.empty();
    }
    if (v.optional(JOB_MODE).filter(JobSettings.JobMode.WARM.code()::equalsIgnoreCase).isPresent()) {
      v.reject(JOB_MODE, "warm is not supported with job.kubernetes.namespace: every batch runs in a driver pod of its"
          + " own; remove job.mode or set it to per-batch");
    }
    String condition = "job.kubernetes.namespace is set";
    Optional<String> namespace = v.optional(JOB_KUBERNETES_NAMESPACE, ns -> DNS_LABEL.matcher(ns).matches()
        ? Optional.empty()
        : Optional.of("must be a Kubernetes namespace name (lower-case letters, digits and '-', at most 63), got \""
            + ns + "\""));
    Optional<String> image = v.requiredWhen(JOB_KUBERNETES_IMAGE, condition);
    Optional<String> account = v.requiredWhen(JOB_KUBERNETES_SERVICE_ACCOUNT, condition,
        sa -> DNS_SUBDOMAIN.matcher(sa).matches() ? Optional.empty()
            : Optional.of("must be a Kubernetes service account name (the one bound through Workload Identity), got \""
                + sa + "\""));
    String master = v.get(JOB_KUBERNETES_MASTER, KubernetesSettings.DEFAULT_MASTER,
        url -> url.startsWith("https://") || url.startsWith("http://") ? Optional.empty()
            : Optional.of("must be the API server's http(s) URL, without k8s://, got \"" + url + "\""));
    String jar = v.get(JOB_KUBERNETES_JAR, KubernetesSettings.DEFAULT_JAR,
        uri -> uri.startsWith("local:///") || uri.startsWith("gs://") ? Optional.empty()
            : Optional.of("must be a local:/// path in the job's image or a gs:// URI, got \"" + uri + "\""));
    if (namespace.isEmpty() || image.isEmpty() || account.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new KubernetesSettings(namespace.get(), image.get(), account.get(), master, jar));
  }

  private static boolean isGcsFolder(String uri) {
    try {
      GcsUri.parse(uri);
      return true;
    } catch (IllegalArgumentException notOne) {
      return false;
    }
  }

  private static ListenerSettings listener(ProfileValues v) {
    return new ListenerSettings(
        v.number(LISTENER_PORT, DEFAULT_PORT, 1, 65535),
        v.optional(LISTENER_HOST),
        v.get(LISTENER_PUSH_PATH, DEFAULT_PUSH_PATH, ProfileRules::httpPath),
        v.optional(LISTENER_PUSH_ENABLED),
        v.get(LISTENER_LIST_PREFIX_ON_MARKER, true),
        v.optional(LISTENER_OIDC_AUDIENCE),
        v.optional(LISTENER_OIDC_SERVICE_ACCOUNT));
  }
}
