package io.files2iceberg.listener.pull;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The pull properties as Micronaut binds them, and a listener refusing to start on bad ones. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PullConfigurationTest {
  private static final String SUBSCRIPTION = "projects/files2iceberg-test/subscriptions/landing-pull";

  private TestDeployment deployment;

  @BeforeAll
  void createDeployment() {
    deployment = TestDeployment.create("");
  }

  @AfterAll
  void deleteDeployment() {
    deployment.close();
  }

  @Test
  void defaultsAreTheDocumentedOnes() {
    try (ApplicationContext context = context(Map.of(PullConfiguration.PREFIX + ".subscription", SUBSCRIPTION))) {
      PullConfiguration configuration = context.getBean(PullConfiguration.class);

      assertThat(configuration.subscription()).isEqualTo(SUBSCRIPTION);
      assertThat(configuration.maxOutstandingMessages()).isEqualTo(100);
      assertThat(configuration.maxOutstandingBytes()).isEqualTo(100L * 1024 * 1024);
      assertThat(configuration.parallelPullCount()).isEqualTo(1);
      assertThat(configuration.shutdownTimeout()).isEqualTo(Duration.ofSeconds(20));
      assertThat(configuration.unreachableTimeout()).isEqualTo(Duration.ofSeconds(60));
    }
  }

  @Test
  void bytesTakeAUnitOrAPlainNumber() {
    try (ApplicationContext context =
        context(
            Map.of(
                PullConfiguration.PREFIX + ".subscription", SUBSCRIPTION,
                PullConfiguration.PREFIX + ".max-outstanding-bytes", "8MB"))) {
      assertThat(context.getBean(PullConfiguration.class).maxOutstandingBytes()).isEqualTo(8L * 1024 * 1024);
    }
    try (ApplicationContext context =
        context(
            Map.of(
                PullConfiguration.PREFIX + ".subscription", SUBSCRIPTION,
                PullConfiguration.PREFIX + ".max-outstanding-bytes", "5000"))) {
      assertThat(context.getBean(PullConfiguration.class).maxOutstandingBytes()).isEqualTo(5000);
    }
  }

  @Test
  void emulatorHostPropertyWinsAndBlankIsNone() {
    PullConfiguration configured =
        new PullConfiguration(SUBSCRIPTION, 100, 100, 1, "127.0.0.1:8085", Duration.ofSeconds(30), Duration.ofSeconds(60));
    assertThat(configured.resolvedEmulatorHost()).contains("127.0.0.1:8085");
    if (System.getenv(PullConfiguration.EMULATOR_HOST_VARIABLE) == null) {
      PullConfiguration blank = new PullConfiguration(SUBSCRIPTION, 100, 100, 1, " ", Duration.ofSeconds(30), Duration.ofSeconds(60));
      assertThat(blank.resolvedEmulatorHost()).isEmpty();
    }
  }

  @Test
  void zeroParallelPullsIsRejectedNamingTheProperty() {
    assertThatThrownBy(
            () ->
                server(
                    Map.of(
                        PullConfiguration.PREFIX + ".subscription", SUBSCRIPTION,
                        PullConfiguration.PREFIX + ".parallel-pull-count", "0")))
        .rootCause()
        .hasMessage("files2iceberg.listener.pull.parallel-pull-count: must be at least 1, is 0");
  }

  @Test
  void subscriptionThatIsNotAFullNameStopsTheStart() {
    assertThatThrownBy(() -> server(Map.of(PullConfiguration.PREFIX + ".subscription", "landing-pull")))
        .rootCause()
        .hasMessage(
            "files2iceberg.listener.pull.subscription: \"landing-pull\" is not a full subscription"
                + " name, projects/<project>/subscriptions/<subscription>");
  }

  @Test
  void withoutSubscriptionThereIsNoPullMode() {
    try (ApplicationContext context = context(Map.of())) {
      assertThat(context.containsBean(PullSubscriber.class)).isFalse();
      assertThat(context.containsBean(PullHealthIndicator.class)).isFalse();
    }
  }

  @Test
  void everyPropertyHasARowInTheListenerPage() throws Exception {
    String readme = Files.readString(Path.of("..", "docs", "listener.md"));
    for (RecordComponent component : PullConfiguration.class.getRecordComponents()) {
      String property = PullConfiguration.PREFIX + "." + kebab(component.getName());
      assertThat(readme).as(property).contains("| `" + property + "` |");
    }
  }

  static String kebab(String camel) {
    return camel.replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
  }

  /** Starts the listener, and stops it at once if it started. */
  private void server(Map<String, Object> pull) {
    Map<String, Object> properties = new HashMap<>(deployment.properties());
    properties.put("micronaut.server.port", -1);
    properties.putAll(pull);
    ApplicationContext.run(EmbeddedServer.class, properties).getApplicationContext().close();
  }

  private ApplicationContext context(Map<String, Object> pull) {
    Map<String, Object> properties = new HashMap<>(deployment.properties());
    properties.putAll(pull);
    return ApplicationContext.run(properties);
  }
}
