package io.files2iceberg.core.profile;

import java.util.Objects;

/**
 * Where the Spark job runs on Kubernetes: the {@code job.kubernetes} section of the deployment file.
 * Present when {@code job.kubernetes.namespace} is set, which selects the Kubernetes launcher.
 *
 * @param namespace the namespace the driver pod, and the executor pods it creates, run in
 * @param image the job's image (deploy/docker/spark-job.Dockerfile): Spark, the job's {@code -all.jar}
 *     and the GCS connector; the driver's and the executors'
 * @param serviceAccount the Kubernetes service account of the driver pod (bound to a Google service
 *     account through Workload Identity); it creates the executor pods
 * @param master the Kubernetes API server as the driver reaches it, without {@code k8s://}
 * @param jar the job's {@code -all.jar} as the driver's {@code spark-submit} reads it: {@code
 *     local://} for a file in the image, or {@code gs://}
 */
public record KubernetesSettings(String namespace, String image, String serviceAccount, String master, String jar) {

  /** The API server inside the cluster, unless {@code job.kubernetes.master} says. */
  public static final String DEFAULT_MASTER = "https://kubernetes.default.svc";

  /** Where the job's image keeps the job's jar, unless {@code job.kubernetes.jar} says. */
  public static final String DEFAULT_JAR = "local:///opt/files2iceberg/files2iceberg-spark-job-all.jar";

  public KubernetesSettings {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(image, "image");
    Objects.requireNonNull(serviceAccount, "serviceAccount");
    Objects.requireNonNull(master, "master");
    Objects.requireNonNull(jar, "jar");
  }

  /** Settings with the default master and jar. */
  public KubernetesSettings(String namespace, String image, String serviceAccount) {
    this(namespace, image, serviceAccount, DEFAULT_MASTER, DEFAULT_JAR);
  }
}
