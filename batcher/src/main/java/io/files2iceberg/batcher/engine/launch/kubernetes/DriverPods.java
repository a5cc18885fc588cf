package io.files2iceberg.batcher.engine.launch.kubernetes;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.files2iceberg.batcher.engine.launch.SparkMainRun;
import io.files2iceberg.batcher.engine.launch.dataproc.DataprocLauncher;
import io.files2iceberg.batcher.engine.launch.dataproc.DataprocNames;
import io.files2iceberg.core.Sha256;
import io.files2iceberg.core.manifest.BatchManifest;
import io.files2iceberg.core.profile.JobSettings;
import io.files2iceberg.core.profile.KubernetesSettings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The driver pods of {@link KubernetesLauncher}, from the deployment's {@code job.*} settings: the
 * pod of one attempt, {@code f2i-<batch id>-a<attempt>} (the Dataproc batch id of the same attempt,
 * {@link DataprocNames#batchId}, which is a DNS-1123 label too), or of another main class of the
 * job's jar, each labelled with its table and batch.
 *
 * <p>This is what Spark's own cluster-mode submission does: a driver pod whose container runs
 * {@code spark-submit --deploy-mode client} against the cluster's API server, so that the driver,
 * inside the cluster, creates the executor pods from {@code job.kubernetes.image} and the {@code
 * spark.kubernetes.*} properties, each owned by the driver pod ({@code
 * spark.kubernetes.driver.pod.name}) and deleted with it. The executors reach the driver at the
 * pod's IP, which the downward API gives the container as {@value #POD_IP_ENV}.
 */
final class DriverPods {

  /** The driver's container, named as Spark names it in cluster mode. */
  static final String CONTAINER = "spark-kubernetes-driver";

  /** The container's environment variable holding the pod's IP ({@code status.podIP}). */
  static final String POD_IP_ENV = "SPARK_DRIVER_POD_IP";

  static final String SPARK_SUBMIT = "/opt/spark/bin/spark-submit";

  /** The longest {@code spark.kubernetes.executor.podNamePrefix} Spark 3.5 accepts. */
  static final int MAX_EXECUTOR_PREFIX = 47;

  /** Labels every driver pod carries besides the table and the batch. */
  static final Map<String, String> FIXED_LABELS =
      Map.of("app.kubernetes.io/managed-by", "files2iceberg", "spark-role", "driver");

  private static final Pattern SPARK_SIZE = Pattern.compile("(\\d+)\\s*([kmgtp]?)b?");
  private static final int HASH_LENGTH = 8;

  private final KubernetesSettings settings;
  private final Map<String, String> sparkProperties;

  /** @throws IllegalArgumentException naming the key when the settings cannot work */
  DriverPods(JobSettings job) {
    this.settings = job.kubernetes().orElseThrow(() ->
        new IllegalArgumentException("job.kubernetes.namespace: required for the Kubernetes launcher"));
    this.sparkProperties = new TreeMap<>(job.sparkProperties());
    // Checked now, so that a bad size is a configuration error rather than a failed launch.
    resources();
  }

  /** {@code job.kubernetes.namespace}. */
  String namespace() {
    return settings.namespace();
  }

  /** The pod that runs one attempt of a batch. */
  Pod forAttempt(BatchManifest manifest, String manifestUri, int attempt) {
    return pod(manifest.table(), manifest.batchId(), DataprocNames.batchId(manifest.batchId(), attempt),
        DataprocLauncher.MAIN_CLASS, List.of("--manifest", manifestUri, "--attempt", String.valueOf(attempt)));
  }

  /** The pod that runs a {@link SparkMainRun}. */
  Pod forMain(SparkMainRun run) {
    return pod(run.table(), run.runId(), DataprocNames.batchId(run.runId(), 1), run.mainClass(), run.args());
  }

  /** The value of {@link DataprocLauncher#BATCH_LABEL} on the pods of this batch or run. */
  static String batchLabel(String batchId) {
    return labelValue(batchId);
  }

  private Pod pod(String table, String batchId, String podName, String mainClass, List<String> args) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(DataprocLauncher.TABLE_LABEL, labelValue(table));
    labels.put(DataprocLauncher.BATCH_LABEL, labelValue(batchId));
    labels.putAll(new TreeMap<>(FIXED_LABELS));
    EnvVar podIp = new EnvVarBuilder().withName(POD_IP_ENV)
        .withNewValueFrom().withNewFieldRef().withApiVersion("v1").withFieldPath("status.podIP").endFieldRef()
        .endValueFrom()
        .build();
    return new PodBuilder()
        .withNewMetadata().withName(podName).withNamespace(settings.namespace()).withLabels(labels).endMetadata()
        .withNewSpec()
            .withServiceAccountName(settings.serviceAccount())
            .withRestartPolicy("Never")
            .addNewContainer()
                .withName(CONTAINER)
                .withImage(settings.image())
                .withArgs(submit(podName, mainClass, args, labels))
                .withEnv(podIp)
                .withResources(resources())
            .endContainer()
        .endSpec()
        .build();
  }

  /**
   * The container's command line, run by the image's entry point: {@code spark-submit} in client
   * mode with the job's Spark properties, then the launcher's own, which win over the job's, then
   * the jar and the main class's arguments. Every value but the pod IP reference is escaped from
   * Kubernetes' {@code $(VAR)} expansion: it reaches Spark as written.
   */
  private List<String> submit(String podName, String mainClass, List<String> args, Map<String, String> labels) {
    List<String> command = new ArrayList<>(List.of(SPARK_SUBMIT,
        "--master", "k8s://" + settings.master(),
        "--deploy-mode", "client",
        "--name", podName,
        "--class", mainClass));
    Map<String, String> conf = new LinkedHashMap<>(sparkProperties);
    Map<String, String> ours = new LinkedHashMap<>();
    ours.put("spark.kubernetes.namespace", settings.namespace());
    ours.put("spark.kubernetes.container.image", settings.image());
    ours.put("spark.kubernetes.authenticate.driver.serviceAccountName", settings.serviceAccount());
    ours.put("spark.kubernetes.driver.pod.name", podName);
    ours.put("spark.kubernetes.executor.podNamePrefix", executorPrefix(podName));
    ours.put("spark.driver.bindAddress", "0.0.0.0");
    labels.forEach((key, value) -> {
      if (!key.equals("spark-role")) {
        ours.put("spark.kubernetes.executor.label." + key, value);
      }
    });
    ours.forEach(conf::remove);
    conf.putAll(ours);
    conf.forEach((key, value) -> command.addAll(List.of("--conf", escape(key + "=" + value))));
    // The one reference the kubelet expands: the pod's IP, from the downward API.
    command.addAll(List.of("--conf", "spark.driver.host=$(" + POD_IP_ENV + ")"));
    command.add(escape(settings.jar()));
    args.forEach(arg -> command.add(escape(arg)));
    return command;
  }

  /**
   * The executors' name prefix: the pod name when it is short enough, else its beginning and 8 hex
   * digits of its SHA-256, so that two long batch ids keep their executors apart.
   */
  static String executorPrefix(String podName) {
    if (podName.length() <= MAX_EXECUTOR_PREFIX) {
      return podName;
    }
    String kept = podName.substring(0, MAX_EXECUTOR_PREFIX - HASH_LENGTH - 1).replaceAll("-+$", "");
    return kept + "-" + Sha256.hex(podName).substring(0, HASH_LENGTH);
  }

  /**
   * A Kubernetes label value: {@link DataprocNames#labelValue}, whose characters Kubernetes
   * accepts, without the {@code _} or {@code -} it may start or end with (Kubernetes wants a letter
   * or digit at both ends).
   */
  static String labelValue(String value) {
    String label = DataprocNames.labelValue(value).replaceAll("^[-_]+|[-_]+$", "");
    return label.isEmpty() ? Sha256.hex(value).substring(0, HASH_LENGTH) : label;
  }

  /** {@code $(} in a value is written {@code $$(}: the kubelet expands {@code $(VAR)} in args otherwise. */
  private static String escape(String value) {
    return value.replace("$(", "$$(");
  }

  /**
   * The driver container's resources, as Spark's cluster mode sizes its driver pod: {@code
   * spark.driver.cores} CPUs requested (default 1), and {@code spark.driver.memory} (default 1g)
   * plus its overhead ({@code spark.driver.memoryOverhead}, default 10% and at least 384 MiB) as
   * request and limit.
   */
  ResourceRequirements resources() {
    String cores = sparkProperties.getOrDefault("spark.driver.cores", "1");
    long memory = mebibytes("spark.driver.memory", sparkProperties.getOrDefault("spark.driver.memory", "1g"));
    String overheadSetting = sparkProperties.get("spark.driver.memoryOverhead");
    long overhead = overheadSetting != null ? mebibytes("spark.driver.memoryOverhead", overheadSetting)
        : Math.max(384, memory / 10);
    Quantity total = new Quantity((memory + overhead) + "Mi");
    Quantity cpu;
    try {
      cpu = new Quantity(String.valueOf(Integer.parseInt(cores.strip())));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("job.spark-properties.spark.driver.cores: not a whole number of cores: \""
          + cores + "\"");
    }
    return new ResourceRequirementsBuilder()
        .addToRequests("cpu", cpu)
        .addToRequests("memory", total)
        .addToLimits("memory", total)
        .build();
  }

  /** A Spark size ({@code 512m}, {@code 4g}, {@code 2048}: MiB without a unit) in MiB. */
  private static long mebibytes(String key, String size) {
    Matcher m = SPARK_SIZE.matcher(size.strip().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException("job.spark-properties." + key + ": not a size such as 4g or 512m: \"" + size
          + "\"");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "k" -> Math.max(1, n / 1024);
      case "", "m" -> n;
      case "g" -> n * 1024;
      case "t" -> n * 1024 * 1024;
      default -> n * 1024 * 1024 * 1024;
    };
  }
}
