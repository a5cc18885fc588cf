# The listener's image (Cloud Run service). Build from the repository root:
#   docker build -f deploy/docker/listener.Dockerfile -t REGION-docker.pkg.dev/PROJECT/files2iceberg/listener:TAG .
# or: gcloud builds submit --config deploy/docker/cloudbuild.yaml --substitutions=_IMAGE_PREFIX=...,_TAG=...
# It runs io.files2iceberg.listener.ListenerApplication with no arguments: the profiles folder is
# FILES2ICEBERG_CONFIG and the port PORT (both set by Cloud Run / Terraform).

FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
# -DskipTests, not -Dmaven.test.skip: the modules use core's test-jar, built here.
RUN mvn -B -q -DskipTests -Dfiles2iceberg.shade.phase=none package -pl listener -am

FROM eclipse-temurin:17-jre
WORKDIR /app
COPY --from=build /src/listener/target/classes /app/classes
COPY --from=build /src/listener/target/lib /app/lib
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError" \
    FILES2ICEBERG_HOME=/tmp/files2iceberg
EXPOSE 8080
ENTRYPOINT ["java", "-cp", "/app/classes:/app/lib/*", "io.files2iceberg.listener.ListenerApplication"]
