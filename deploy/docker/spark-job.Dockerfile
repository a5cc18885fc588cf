# The Spark job's image for Kubernetes (GKE): job.kubernetes.image. The Kubernetes launcher runs
# its driver pod from it (spark-submit in client mode), and Spark its executor pods. Build from the
# repository root:
#   docker build -f deploy/docker/spark-job.Dockerfile -t REGION-docker.pkg.dev/PROJECT/files2iceberg/spark-job:TAG .
# or: gcloud builds submit --config deploy/docker/cloudbuild.yaml --substitutions=_IMAGE_PREFIX=...,_TAG=...
# On Dataproc Serverless this image is not used: the batch runs the uploaded -all.jar.

FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
# -DskipTests, not -Dmaven.test.skip: the modules use core's test-jar, built here. The shaded
# files2iceberg-spark-job-<version>-all.jar is the job with Iceberg and the ledger inside it.
RUN mvn -B -q -DskipTests package -pl spark-job -am \
 && cp spark-job/target/files2iceberg-spark-job-*-all.jar /tmp/files2iceberg-spark-job-all.jar
# The GCS connector, which Dataproc supplies but a plain Spark image does not: gs:// for Spark's
# readers and the job's manifests. The shaded jar carries its dependencies relocated.
RUN mvn -B -q dependency:copy -Dartifact=com.google.cloud.bigdataoss:gcs-connector:4.0.4:jar:shaded \
      -DoutputDirectory=/tmp/connector

# Spark 3.5.6 for Scala 2.13 on Java 17, as the job is built (spark.version, scala.binary.version);
# apache/spark publishes it as 3.5.6-scala2.13-java17-ubuntu (apache/spark-docker, 3.5.6/).
FROM apache/spark:3.5.6-scala2.13-java17-ubuntu
# Spark's jars folder: on the driver's and the executors' classpath from the start; Hadoop finds
# the gs:// file system in it, which authenticates as the pod's Kubernetes service account
# (Workload Identity).
COPY --from=build /tmp/connector/gcs-connector-4.0.4-shaded.jar /opt/spark/jars/gcs-connector-4.0.4-shaded.jar
# job.kubernetes.jar's default: local:///opt/files2iceberg/files2iceberg-spark-job-all.jar
COPY --from=build /tmp/files2iceberg-spark-job-all.jar /opt/files2iceberg/files2iceberg-spark-job-all.jar
# The image's entry point (/opt/entrypoint.sh) runs the driver pod's args as they are.
