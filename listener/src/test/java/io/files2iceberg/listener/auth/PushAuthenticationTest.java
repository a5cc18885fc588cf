package io.files2iceberg.listener.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.listener.handle.ListenerMeterNames;
import io.files2iceberg.listener.pull.TestDeployment;
import io.files2iceberg.listener.pull.TestDeployment.DataFile;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The push endpoint with {@code listener.oidc-audience} and {@code listener.oidc-service-account}
 * set: real HTTP to the running server, tokens signed by a key the test serves as the JWKS, the
 * real SQLite ledger behind it.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PushAuthenticationTest implements TestPropertyProvider {
  static final String AUDIENCE = "https://listener.files2iceberg.test/pubsub/push";
  static final String PUSH_ACCOUNT = "pubsub-push@files2iceberg-test.iam.gserviceaccount.com";
  static final String PUSH_PATH = "/pubsub/push";

  private JwksServer keys;
  private TestDeployment deployment;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Inject EmbeddedServer server;
  @Inject Ledger ledger;
  @Inject MeterRegistry meters;

  @Override
  public Map<String, String> getProperties() {
    keys = JwksServer.start();
    deployment =
        TestDeployment.create(
            "oidc-audience = \"" + AUDIENCE + "\"\noidc-service-account = \"" + PUSH_ACCOUNT + "\"");
    Map<String, String> properties = new HashMap<>();
    deployment.properties().forEach((key, value) -> properties.put(key, value.toString()));
    properties.put("files2iceberg.listener.oidc.jwks-uri", keys.jwksUri());
    return properties;
  }

  @AfterAll
  void stopKeys() {
    keys.close();
    deployment.close();
  }

  @Test
  void validTokenLetsTheEnvelopeThroughAndRecordsTheFile() throws Exception {
    DataFile file = TestDeployment.dataFile("2024-05-01");
    String messageId = newMessageId();

    HttpResponse<String> response =
        push(file.pushEnvelope(messageId), Optional.of("Bearer " + keys.sign(claims())));

    assertThat(response.statusCode()).isEqualTo(204);
    Optional<FileRecord> recorded = ledger.file(file.fileId());
    assertThat(recorded).isPresent();
    assertThat(recorded.get().eventId()).isEqualTo(messageId);
    assertThat(recorded.get().uri()).isEqualTo(file.uri());
  }

  @Test
  void issuerWithoutSchemeIsAcceptedAsGoogleWritesBoth() throws Exception {
    DataFile file = TestDeployment.dataFile("2024-05-01");
    Map<String, Object> claims = claims();
    claims.put("iss", "accounts.google.com");

    HttpResponse<String> response =
        push(file.pushEnvelope(newMessageId()), Optional.of("Bearer " + keys.sign(claims)));

    assertThat(response.statusCode()).isEqualTo(204);
    assertThat(ledger.file(file.fileId())).isPresent();
  }

  @Test
  void missingAuthorizationIsRejectedWith401AndNothingIsRecorded() throws Exception {
    assertRejected(Optional.empty(), 401, "missing-token");
  }

  @Test
  void authorizationThatIsNotABearerJwtIsRejectedWith401() throws Exception {
    assertRejected(Optional.of("Basic cHVzaDpwdXNo"), 401, "malformed-token");
    assertRejected(Optional.of("Bearer not-a-jwt"), 401, "malformed-token");
  }

  @Test
  void tokenForAnotherAudienceIsRejectedWith401() throws Exception {
    Map<String, Object> claims = claims();
    claims.put("aud", "https://another-service.example/push");
    assertRejected(Optional.of("Bearer " + keys.sign(claims)), 401, "wrong-audience");
  }

  @Test
  void expiredTokenIsRejectedWith401() throws Exception {
    Map<String, Object> claims = claims();
    long hourAgo = Instant.now().minusSeconds(3600).getEpochSecond();
    claims.put("iat", hourAgo - 3600);
    claims.put("exp", hourAgo);
    assertRejected(Optional.of("Bearer " + keys.sign(claims)), 401, "expired");
  }

  @Test
  void tokenSignedByAnotherKeyIsRejectedWith401() throws Exception {
    assertRejected(Optional.of("Bearer " + keys.signWithAnotherKey(claims())), 401, "bad-signature");
  }

  @Test
  void tokenFromAnotherIssuerIsRejectedWith401() throws Exception {
    Map<String, Object> claims = claims();
    claims.put("iss", "https://issuer.example");
    assertRejected(Optional.of("Bearer " + keys.sign(claims)), 401, "wrong-issuer");
  }

  @Test
  void tokenOfAnotherServiceAccountIsRejectedWith403() throws Exception {
    Map<String, Object> claims = claims();
    claims.put("email", "someone-else@files2iceberg-test.iam.gserviceaccount.com");
    assertRejected(Optional.of("Bearer " + keys.sign(claims)), 403, "wrong-service-account");
  }

  @Test
  void tokenWithUnverifiedEmailIsRejectedWith403() throws Exception {
    Map<String, Object> claims = claims();
    claims.put("email_verified", false);
    assertRejected(Optional.of("Bearer " + keys.sign(claims)), 403, "email-not-verified");
  }

  @Test
  void pushPathWithTrailingSlashStillNeedsAToken() throws Exception {
    // The router sends POST /pubsub/push/ to the push endpoint too.
    DataFile file = TestDeployment.dataFile("2024-05-02");
    HttpResponse<String> response = post(PUSH_PATH + "/", file.pushEnvelope(newMessageId()), Optional.empty());
    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(ledger.file(file.fileId())).isEmpty();

    for (String path : new String[] {"/" + PUSH_PATH, "/pubsub//push"}) {
      DataFile other = TestDeployment.dataFile("2024-05-02");
      assertThat(post(path, other.pushEnvelope(newMessageId()), Optional.empty()).statusCode())
          .as(path)
          .isIn(401, 404);
      assertThat(ledger.file(other.fileId())).as(path).isEmpty();
    }
  }

  @Test
  void healthAndMetricsNeedNoToken() throws Exception {
    HttpResponse<String> health = get("/health");
    assertThat(health.statusCode()).isEqualTo(200);

    assertRejected(Optional.empty(), 401, "missing-token");
    HttpResponse<String> metrics = get("/prometheus");
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.body()).contains("files2iceberg_listener_auth_rejected_total{reason=\"missing-token\"");
    assertThat(ListenerMeterNames.scraped(metrics.body()))
        .as("every meter of the listener's own is in the metrics reference (ListenerMeter)")
        .isSubsetOf(ListenerMeterNames.documented());
  }

  private void assertRejected(Optional<String> authorization, int status, String reason)
      throws Exception {
    DataFile file = TestDeployment.dataFile("2024-05-01");
    double before = rejections(reason);

    HttpResponse<String> response = push(file.pushEnvelope(newMessageId()), authorization);

    assertThat(response.statusCode()).isEqualTo(status);
    assertThat(response.body()).isEqualTo("push request rejected: " + reason + "\n");
    if (status == 401) {
      assertThat(response.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(
          value -> assertThat(value).startsWith("Bearer"));
    }
    assertThat(ledger.file(file.fileId())).isEmpty();
    assertThat(ledger.quarantinedMessages()).isEmpty();
    assertThat(rejections(reason)).isEqualTo(before + 1);
  }

  private double rejections(String reason) {
    Counter counter =
        meters.find(PushAuthenticationFilter.REJECTED_METER).tag("reason", reason).counter();
    return counter == null ? 0 : counter.count();
  }

  private static Map<String, Object> claims() {
    return JwksServer.pushClaims(AUDIENCE, PUSH_ACCOUNT);
  }

  private static String newMessageId() {
    return UUID.randomUUID().toString();
  }

  private HttpResponse<String> push(String body, Optional<String> authorization)
      throws IOException, InterruptedException {
    return post(PUSH_PATH, body, authorization);
  }

  private HttpResponse<String> post(String path, String body, Optional<String> authorization)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri(path))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    authorization.ifPresent(value -> request.header("Authorization", value));
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(30)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.getPort() + path);
  }
}
