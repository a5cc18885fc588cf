package io.files2iceberg.core.profile;

import static io.files2iceberg.core.profile.ProfileFixtures.EVERY_DEPLOYMENT_KEY_HOCON;
import static io.files2iceberg.core.profile.ProfileFixtures.EVERY_DEPLOYMENT_KEY_YAML;
import static io.files2iceberg.core.profile.ProfileFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.files2iceberg.core.ledger.Ledgers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeploymentLoaderTest {

  @TempDir Path dir;

  private Home home() {
    return new Home(dir.resolve("home"));
  }

  private List<String> errors(String fileName, String text) {
    Path file = write(dir, fileName, text);
    ProfileException failure =
        catchThrowableOfType(ProfileException.class, () -> DeploymentLoader.load(file, home()));
    assertThat(failure).as("loading %s fails", file).isNotNull();
    return failure.errors().stream().map(ProfileError::toString).toList();
  }

  @Test
  void everyKeyParsesToItsRecordField() throws Exception {
    Deployment deployment =
        DeploymentLoader.load(write(dir, "deployment.conf", EVERY_DEPLOYMENT_KEY_HOCON), home());

    assertThat(deployment.ledger())
        .isEqualTo(
            new LedgerSettings(
                "test-sqlite",
                "/var/lib/files2iceberg/ledger.db",
                Optional.of("sales-project"),
                "ingest",
                "staging_",
                Duration.ofSeconds(3),
                Map.of("file", "/var/lib/files2iceberg/test.db")));
    assertThat(deployment.job())
        .isEqualTo(
            new JobSettings(
                Map.of("spark.executor.memory", "4g", "spark.sql.shuffle.partitions", "8",
                    "spark.hadoop.fs.gs.storage.root.url", "https://storage.example.com:8443/",
                    "spark.hadoop.fs.gs.auth.type", "UNAUTHENTICATED"),
                "local[2]",
                Optional.of("europe-west1"),
                "2.10",
                Optional.of("job@sales-project.iam.gserviceaccount.com"),
                Optional.of("projects/sales-project/regions/europe-west1/subnetworks/default"),
                Optional.of("gs://sales-bucket/jars/spark-job.jar"),
                Duration.ofSeconds(90),
                5,
                Optional.of(JobSettings.JobMode.PER_BATCH),
                Duration.ofSeconds(45),
                JobSettings.WarmPlace.CLUSTER,
                Optional.of("ingest-cluster"),
                Duration.ofHours(6),
                Optional.of("gs://sales-bucket/files2iceberg/warm"),
                Optional.of(new KubernetesSettings("lake",
                    "europe-docker.pkg.dev/sales-project/files2iceberg/spark-job:0.1.0", "files2iceberg-job",
                    "https://10.0.0.1:443", "gs://sales-bucket/jars/spark-job.jar"))));
    assertThat(deployment.listener())
        .isEqualTo(
            new ListenerSettings(
                9090,
                Optional.of("0.0.0.0"),
                "/push",
                Optional.of(false),
                false,
                Optional.of("https://listener.example.com"),
                Optional.of("push@sales-project.iam.gserviceaccount.com")));
    assertThat(deployment.storage())
        .isEqualTo(new StorageSettings(Optional.of("https://storage.example.com:8443"), StorageSettings.Credentials.NONE));
  }

  @Test
  void aStorageEndpointPointsTheJobsConnectorThereUnlessSparkPropertiesSayOtherwise() throws Exception {
    Deployment deployment = DeploymentLoader.load(write(dir, "deployment.conf", """
        storage.endpoint = "http://127.0.0.1:9023"
        job.spark-properties { "spark.hadoop.fs.gs.auth.type" = SERVICE_ACCOUNT_JSON_KEYFILE }
        """), home());

    assertThat(deployment.storage())
        .isEqualTo(new StorageSettings(Optional.of("http://127.0.0.1:9023"), StorageSettings.Credentials.APPLICATION_DEFAULT));
    assertThat(deployment.job().sparkProperties()).isEqualTo(Map.of(
        "spark.hadoop.fs.gs.storage.root.url", "http://127.0.0.1:9023/",
        "spark.hadoop.fs.gs.auth.type", "SERVICE_ACCOUNT_JSON_KEYFILE"));
    assertThat(DeploymentLoader.parse(DeploymentLoader.render(deployment), dir.resolve("r.conf"), home()))
        .isEqualTo(deployment);
  }

  @Test
  void aStorageEndpointThatIsNoHttpRootIsRefusedNamingTheKey() {
    assertThat(errors("deployment.conf", """
        storage { endpoint = "127.0.0.1:9023", credentials = anonymous }
        """)).satisfiesExactlyInAnyOrder(
            e -> assertThat(e).endsWith("deployment.conf: storage.endpoint: must be an http(s) URL with a host and no"
                + " path, such as http://127.0.0.1:9023, got \"127.0.0.1:9023\""),
            e -> assertThat(e).endsWith("deployment.conf: storage.credentials: expected one of application-default,"
                + " none, got \"anonymous\""));
    assertThat(errors("deployment.conf", "storage.endpoint = \"http://127.0.0.1:9023/storage/v1\"\n"))
        .singleElement().asString().contains("storage.endpoint: must be an http(s) URL with a host and no path");
  }

  @Test
  void aPubSubTopicForChangeEventsIsATopicsFullNameAndRoundTrips() throws Exception {
    Deployment deployment = DeploymentLoader.load(write(dir, "deployment.conf", """
        events.pubsub-topic = "projects/p/topics/lake-changes"
        """), home());

    assertThat(deployment.events().pubsubTopic()).contains("projects/p/topics/lake-changes");
    assertThat(DeploymentLoader.parse(DeploymentLoader.render(deployment), dir.resolve("r.conf"), home()))
        .isEqualTo(deployment);
    assertThat(DeploymentLoader.load(write(dir, "empty.conf", ""), home()).events()).isEqualTo(EventSettings.HOME_FILE);
    assertThat(errors("deployment.conf", "events.pubsub-topic = lake-changes\n")).singleElement().asString()
        .endsWith("deployment.conf: events.pubsub-topic: must be a topic's full name, projects/<project>/topics/<topic>,"
            + " got \"lake-changes\"");
  }

  @Test
  void withoutAStorageSectionTheJobKeepsDataprocsOwnConnectorSettings() throws Exception {
    Deployment deployment = DeploymentLoader.load(write(dir, "deployment.conf", ""), home());

    assertThat(deployment.storage()).isEqualTo(StorageSettings.GOOGLE);
    assertThat(deployment.job().sparkProperties()).isEmpty();
  }

  @Test
  void everyKeyFixtureSetsEveryDeploymentKey() {
    Problems problems = new Problems(dir);
    ProfileValues values =
        ProfileTree.read(write(dir, "deployment.conf", EVERY_DEPLOYMENT_KEY_HOCON), problems)
            .map(tree -> new ProfileValues(tree, problems, DeploymentKeys.paths()))
            .orElseThrow();

    assertThat(DeploymentKeys.keys())
        .allSatisfy(key -> assertThat(values.isSet(key)).as(key.path()).isTrue());
  }

  @Test
  void yamlGivesTheSameDeploymentAsHocon() throws Exception {
    Deployment hocon =
        DeploymentLoader.load(write(dir, "deployment.conf", EVERY_DEPLOYMENT_KEY_HOCON), home());

    Deployment yaml =
        DeploymentLoader.load(write(dir, "deployment.yaml", EVERY_DEPLOYMENT_KEY_YAML), home());

    assertThat(yaml).isEqualTo(hocon);
  }

  @Test
  void anEmptyFileIsTheEmbeddedDeployment() throws Exception {
    Path home = dir.resolve("home").toAbsolutePath();

    Deployment deployment = DeploymentLoader.load(write(dir, "deployment.conf", ""), home());

    assertThat(deployment).isEqualTo(DeploymentLoader.defaults(home()));
    assertThat(deployment.ledger())
        .isEqualTo(
            new LedgerSettings(
                "sqlite",
                home.resolve("ledger.db").toString(),
                Optional.empty(),
                "(default)",
                "",
                LedgerSettings.DEFAULT_DEADLINE));
    assertThat(deployment.job())
        .isEqualTo(
            new JobSettings(
                Map.of(),
                "local[*]",
                Optional.empty(),
                "2.3",
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Duration.ofMinutes(30),
                3));
    assertThat(deployment.listener())
        .isEqualTo(
            new ListenerSettings(
                8080, Optional.empty(), "/pubsub/push", Optional.empty(), true, Optional.empty(), Optional.empty()));
  }

  @Test
  void renderedDeploymentParsesBackIntoTheSameSettings() throws Exception {
    Deployment deployment =
        DeploymentLoader.load(write(dir, "deployment.conf", EVERY_DEPLOYMENT_KEY_HOCON), home());

    String text = DeploymentLoader.render(deployment);

    assertThat(DeploymentLoader.parse(text, dir.resolve("deployment.conf"), new Home(dir.resolve("other"))))
        .isEqualTo(deployment);
    assertThat(DeploymentLoader.load(write(dir.resolve("again"), "deployment.conf", text), home()))
        .isEqualTo(deployment);
  }

  @Test
  void jobModeIsEachLaunchersDefaultUnlessSetAndAnUnknownModeNamesTheModes() throws Exception {
    JobSettings unset = DeploymentLoader.load(write(dir, "deployment.conf", ""), home()).job();
    JobSettings warm =
        DeploymentLoader.load(write(dir.resolve("warm"), "deployment.conf", "job.mode = WARM\n"), home()).job();

    assertThat(unset.mode()).isEmpty();
    assertThat(unset.modeOnLocal()).isEqualTo(JobSettings.JobMode.WARM);
    assertThat(unset.modeOnDataproc()).isEqualTo(JobSettings.JobMode.PER_BATCH);
    assertThat(unset.warmIdleTimeout()).isEqualTo(Duration.ofMinutes(2));
    assertThat(warm.modeOnDataproc()).isEqualTo(JobSettings.JobMode.WARM);
    assertThat(errors("deployment.conf", "job.mode = lukewarm\njob.warm.idle-timeout = 0s\n"))
        .hasSize(2)
        .anySatisfy(error -> assertThat(error).contains("job.mode: ").contains("\"lukewarm\"").contains("warm")
            .contains("per-batch"))
        .anySatisfy(error -> assertThat(error).contains("job.warm.idle-timeout: "));
  }

  @Test
  void aWarmDriverOnDataprocIsServerlessForFourHoursUnlessSet() throws Exception {
    JobSettings unset = DeploymentLoader.load(write(dir, "deployment.conf", ""), home()).job();

    assertThat(unset.warmDataproc()).isEqualTo(JobSettings.WarmPlace.SERVERLESS);
    assertThat(unset.warmTtl()).isEqualTo(Duration.ofHours(4));
    assertThat(unset.dataprocCluster()).isEmpty();
    assertThat(unset.warmFolder()).isEmpty();
  }

  @Test
  void aWarmDriverOnAClusterWithoutTheClusterIsAnErrorNamingTheKey() {
    assertThat(errors("deployment.conf", "job.warm.dataproc = cluster\n"))
        .containsExactly(dir.resolve("deployment.conf") + ": job.dataproc-cluster: is required when"
            + " job.warm.dataproc = cluster");
  }

  @Test
  void aWarmFolderWithoutABucketIsRefused() {
    assertThat(errors("deployment.conf", "job.warm.folder = \"gs:///warm\"\n"))
        .singleElement().asString().contains("job.warm.folder: must be a gs:// folder, got \"gs:///warm\"");
  }

  @Test
  void badWarmDataprocSettingsAreErrorsNamingTheirKeys() {
    assertThat(errors("deployment.conf",
            "job.warm.dataproc = kubernetes\njob.warm.ttl = 5m\njob.warm.folder = \"/tmp/warm\"\n"))
        .hasSize(3)
        .anySatisfy(error -> assertThat(error).contains("job.warm.dataproc: ").contains("\"kubernetes\"")
            .contains("serverless").contains("cluster"))
        .anySatisfy(error -> assertThat(error).contains("job.warm.ttl: must be from 10m to 14d"))
        .anySatisfy(error -> assertThat(error).contains("job.warm.folder: must be a gs:// folder, got \"/tmp/warm\""));
  }

  @Test
  void aKubernetesNamespaceSelectsKubernetesWithTheDefaultMasterAndJar() throws Exception {
    Deployment deployment = DeploymentLoader.load(write(dir, "deployment.conf",
        "job.kubernetes { namespace = lake, image = \"europe-docker.pkg.dev/p/f2i/spark-job:1\","
            + " service-account = files2iceberg-job }\n"), home());

    assertThat(deployment.job().kubernetes()).contains(new KubernetesSettings("lake",
        "europe-docker.pkg.dev/p/f2i/spark-job:1", "files2iceberg-job", "https://kubernetes.default.svc",
        "local:///opt/files2iceberg/files2iceberg-spark-job-all.jar"));
    assertThat(DeploymentLoader.defaults(home()).job().kubernetes()).isEmpty();
  }

  @Test
  void aKubernetesNamespaceWithoutImageOrServiceAccountIsAnErrorNamingBothKeys() {
    assertThat(errors("deployment.conf", "job.kubernetes.namespace = lake\n"))
        .containsExactlyInAnyOrder(
            dir.resolve("deployment.conf") + ": job.kubernetes.image: is required when job.kubernetes.namespace is set",
            dir.resolve("deployment.conf") + ": job.kubernetes.service-account: is required when"
                + " job.kubernetes.namespace is set");
  }

  @Test
  void badKubernetesSettingsAreErrorsNamingTheirKeys() {
    assertThat(errors("deployment.conf", """
            job.mode = warm
            job.kubernetes { namespace = Lake_1, image = "spark-job:1", service-account = "Job SA",
              master = "k8s://https://10.0.0.1", jar = "/opt/job.jar" }
            """))
        .hasSize(5)
        .anySatisfy(error -> assertThat(error).contains("job.mode: warm is not supported with job.kubernetes.namespace"))
        .anySatisfy(error -> assertThat(error).contains("job.kubernetes.namespace: must be a Kubernetes namespace name")
            .contains("\"Lake_1\""))
        .anySatisfy(error -> assertThat(error).contains("job.kubernetes.service-account: must be a Kubernetes service"
            + " account name").contains("\"Job SA\""))
        .anySatisfy(error -> assertThat(error).contains("job.kubernetes.master: must be the API server's http(s) URL,"
            + " without k8s://, got \"k8s://https://10.0.0.1\""))
        .anySatisfy(error -> assertThat(error).contains("job.kubernetes.jar: must be a local:/// path in the job's image"
            + " or a gs:// URI, got \"/opt/job.jar\""));
  }

  @Test
  void kubernetesKeysWithoutTheNamespaceAreErrorsNamingThem() {
    assertThat(errors("deployment.conf", "job.kubernetes.image = \"spark-job:1\"\n"))
        .containsExactly(dir.resolve("deployment.conf") + ": job.kubernetes.image: is set but job.kubernetes.namespace"
            + " is not: set the namespace to run the jobs on Kubernetes");
  }

  @Test
  void unknownLedgerTypeIsRejectedNamingTheTypesOnTheClasspath() {
    assertThat(errors("deployment.conf", "ledger.type = cassandra\n"))
        .containsExactly(
            dir.resolve("deployment.conf")
                + ": ledger.type: no ledger provider of type \"cassandra\" on the classpath; found: sqlite,"
                + " test-sqlite (a type of its own module needs that module, such as"
                + " files2iceberg-ledger-cassandra)");
    assertThat(Ledgers.types()).containsExactly("sqlite", "test-sqlite");
  }

  @Test
  void theLedgerProviderChecksItsOwnSettings() {
    assertThat(errors("deployment.conf", "ledger.type = test-sqlite\n"))
        .containsExactly(
            dir.resolve("deployment.conf")
                + ": ledger.properties.file: is required when ledger.type = test-sqlite");
  }

  @Test
  void tableKeysAndUnknownKeysAreRejectedInTheDeploymentFile() {
    assertThat(errors("deployment.conf", "load.iceberg.table = a.b.c\nlistener.prot = 9090\n"))
        .containsExactly(
            dir.resolve("deployment.conf")
                + ": load: is a section of a table profile; the deployment file holds ledger, listener, job, storage, events only",
            dir.resolve("deployment.conf") + ": listener.prot: unknown key; did you mean 'port'?");
  }

  @Test
  void hoconSubstitutionsResolveAgainstTheFileAndTheEnvironment() throws Exception {
    Path file =
        write(
            dir,
            "deployment.conf",
            """
            ledger.collection-prefix = dev_
            job.jar-uri = ${?NO_SUCH_VARIABLE_FOR_FILES2ICEBERG}
            job.subnetwork = ${?PATH}
            job.spark-properties { "spark.app.name" = ${ledger.collection-prefix} }
            """);

    JobSettings job = DeploymentLoader.load(file, home()).job();

    assertThat(job.jarUri()).isEmpty();
    assertThat(job.subnetwork()).isEqualTo(Optional.ofNullable(System.getenv("PATH")));
    assertThat(job.sparkProperties()).containsEntry("spark.app.name", "dev_");
  }

  @Test
  void yamlKeysInsideFreeFormMapsStayLiteral() throws Exception {
    Path file =
        write(
            dir,
            "deployment.yaml",
            """
            job:
              spark-properties.spark.sql.shuffle.partitions: 4
              spark-properties:
                spark.executor.memory: 4g
            """);

    assertThat(DeploymentLoader.load(file, home()).job().sparkProperties())
        .isEqualTo(Map.of("spark.sql.shuffle.partitions", "4", "spark.executor.memory", "4g"));
  }
}
