package io.files2iceberg.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The listener, started as its image starts it (target/classes plus target/lib, {@code
 * ListenerApplication}, {@code FILES2ICEBERG_CONFIG} and {@code PORT}), on the profiles Terraform
 * renders: Pub/Sub's pushes reach it on Terraform's push path, and it checks the audience
 * Terraform gives the subscription. Firestore points at a closed port: a rejected push never
 * reaches the ledger, so none is needed.
 */
class ListenerOnRenderedProfilesTest {

  private static final String PUSH_PATH = "/pubsub/from-terraform";
  private static final Map<String, Object> INPUTS = SettingsModule.exampleInputs();
  private static final String AUDIENCE = (String) INPUTS.get("oidc_audience");
  private static final String PUSH_ACCOUNT = (String) INPUTS.get("oidc_service_account");
  private static final Path LISTENER = Repository.ROOT.resolve("listener/target");

  @TempDir static Path work;

  private static Process listener;
  private static Path log;
  private static URI base;
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void startListener() throws Exception {
    if (!Files.isDirectory(LISTENER.resolve("lib")) || !Files.isDirectory(LISTENER.resolve("classes"))) {
      throw new AssertionError(
          "the listener is not packaged (no listener/target/lib): `mvn -B verify` packages it"
              + " before this module; alone, run `mvn -B -pl listener -am package -DskipTests` first");
    }
    INPUTS.put("push_path", PUSH_PATH);
    Path profiles =
        SettingsModule.writeProfiles(
            SettingsModule.evaluate(INPUTS, work.resolve("terraform")), work.resolve("profiles"));

    int port = freePort();
    base = URI.create("http://127.0.0.1:" + port);
    log = Repository.ROOT.resolve("deploy/target/listener-on-rendered-profiles.log");
    Files.createDirectories(log.getParent());
    ProcessBuilder builder =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                LISTENER.resolve("classes") + ":" + LISTENER.resolve("lib") + "/*",
                "io.files2iceberg.listener.ListenerApplication")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    Map<String, String> env = builder.environment();
    env.put("FILES2ICEBERG_CONFIG", profiles.toString());
    env.put("FILES2ICEBERG_HOME", work.resolve("home").toString());
    env.put("PORT", Integer.toString(port));
    env.put("FIRESTORE_EMULATOR_HOST", "127.0.0.1:" + freePort());
    env.put("FILES2ICEBERG_LISTENER_OIDC_JWKS_URI", "http://127.0.0.1:" + freePort() + "/certs");
    env.put("FILES2ICEBERG_LOG_FORMAT", "TEXT");
    listener = builder.start();
    awaitServing();
  }

  @AfterAll
  static void stopListener() throws InterruptedException {
    if (listener != null) {
      listener.destroy();
      listener.waitFor();
    }
  }

  @Test
  void aPushWithoutATokenIsRejectedOnTerraformsPushPath() throws Exception {
    HttpResponse<String> response = push(PUSH_PATH, List.of());

    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(response.body()).contains("missing-token");
  }

  @Test
  void aTokenForAnotherAudienceIsRejected() throws Exception {
    HttpResponse<String> response =
        push(PUSH_PATH, List.of("Authorization", "Bearer " + token("https://some-other-service")));

    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(response.body()).contains("wrong-audience");
  }

  @Test
  void aTokenForTheSubscriptionsAudiencePassesTheAudienceCheck() throws Exception {
    HttpResponse<String> response =
        push(PUSH_PATH, List.of("Authorization", "Bearer " + token(AUDIENCE)));

    // Issuer and audience pass; the signature is next, and Google's keys are out of reach here.
    assertThat(response.body()).doesNotContain("wrong-audience").contains("keys-unavailable");
    assertThat(response.statusCode()).isEqualTo(503);
  }

  @Test
  void theListenersDefaultPathIsNotServed() throws Exception {
    assertThat(push("/pubsub/push", List.of()).statusCode()).isEqualTo(404);
  }

  /** An unsigned Google-shaped ID token: enough for every check before the signature. */
  private static String token(String audience) throws IOException {
    ObjectMapper json = new ObjectMapper();
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    String header = json.writeValueAsString(Map.of("alg", "RS256", "kid", "test", "typ", "JWT"));
    String claims =
        json.writeValueAsString(
            Map.of(
                "iss", "https://accounts.google.com",
                "aud", audience,
                "email", PUSH_ACCOUNT,
                "email_verified", true,
                "iat", Instant.now().getEpochSecond(),
                "exp", Instant.now().plusSeconds(3600).getEpochSecond()));
    return b64.encodeToString(header.getBytes(StandardCharsets.UTF_8)) + "."
        + b64.encodeToString(claims.getBytes(StandardCharsets.UTF_8)) + "."
        + b64.encodeToString("not-a-signature".getBytes(StandardCharsets.UTF_8));
  }

  private static HttpResponse<String> push(String path, List<String> headers) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"message\": {}}"));
    for (int i = 0; i < headers.size(); i += 2) {
      request.header(headers.get(i), headers.get(i + 1));
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static void awaitServing() throws Exception {
    Instant deadline = Instant.now().plusSeconds(90);
    while (Instant.now().isBefore(deadline)) {
      if (!listener.isAlive()) {
        throw new AssertionError(
            "the listener exited " + listener.exitValue() + " on the rendered profiles:\n"
                + Files.readString(log));
      }
      try {
        push(PUSH_PATH, List.of());
        return;
      } catch (ConnectException notYet) {
        Thread.sleep(250);
      }
    }
    throw new AssertionError("the listener did not serve within 90 s:\n" + Files.readString(log));
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
