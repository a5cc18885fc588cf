# The batcher's image (Cloud Run job). Build from the repository root:
#   docker build -f deploy/docker/batcher.Dockerfile -t REGION-docker.pkg.dev/PROJECT/files2iceberg/batcher:TAG .
# or: gcloud builds submit --config deploy/docker/cloudbuild.yaml --substitutions=_IMAGE_PREFIX=...,_TAG=...
# Its entry point is the files2iceberg CLI (io.files2iceberg.batcher.cli.Files2Iceberg); the
# Cloud Run job passes `batch run-once --config /etc/files2iceberg/profiles ...`. The Spark job
# itself runs on Dataproc Serverless from the uploaded -all.jar, not in this image.

FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
# -DskipTests, not -Dmaven.test.skip: the modules use core's test-jar, built here.
RUN mvn -B -q -DskipTests -Dfiles2iceberg.shade.phase=none package -pl batcher -am

FROM eclipse-temurin:17-jre
WORKDIR /app
COPY --from=build /src/batcher/target/classes /app/classes
COPY --from=build /src/batcher/target/lib /app/lib
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError" \
    FILES2ICEBERG_HOME=/tmp/files2iceberg
ENTRYPOINT ["java", "-cp", "/app/classes:/app/lib/*", "io.files2iceberg.batcher.cli.Files2Iceberg"]
CMD ["--help"]
