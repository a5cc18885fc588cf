package io.files2iceberg.listener.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.files2iceberg.listener.auth.Rejection.Reason;
import io.files2iceberg.listener.pull.TestDeployment;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.runtime.server.EmbeddedServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The verifier on its own, and the filter's start. */
class PushTokenVerifierTest {
  private static final String AUDIENCE = "https://listener.files2iceberg.test/pubsub/push";
  private static final String ACCOUNT = "pubsub-push@files2iceberg-test.iam.gserviceaccount.com";

  @Test
  void unreachableKeySetIsKeysUnavailableNotTheSendersFault() throws IOException {
    URI closed;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = URI.create("http://127.0.0.1:" + socket.getLocalPort() + "/certs");
    }
    try (JwksServer keys = JwksServer.start()) {
      PushTokenVerifier verifier = verifier(closed, Optional.of(ACCOUNT));

      Optional<Rejection> rejection =
          verifier.verify(Optional.of("Bearer " + keys.sign(JwksServer.pushClaims(AUDIENCE, ACCOUNT))));

      assertThat(rejection).map(Rejection::reason).contains(Reason.KEYS_UNAVAILABLE);
      assertThat(rejection.get().reason().status().getCode()).isEqualTo(503);
      assertThat(rejection.get().detail()).contains(closed.toString());
    }
  }

  @Test
  void withoutServiceAccountAnyEmailOfAValidTokenPasses() {
    try (JwksServer keys = JwksServer.start()) {
      PushTokenVerifier verifier = verifier(URI.create(keys.jwksUri()), Optional.empty());

      String token = keys.sign(JwksServer.pushClaims(AUDIENCE, "any-account@example.iam.gserviceaccount.com"));

      assertThat(verifier.verify(Optional.of("Bearer " + token))).isEmpty();
      assertThat(verifier.verify(Optional.of("bearer " + token))).isEmpty();
    }
  }

  @Test
  void rejectionDetailNeverQuotesTheToken() {
    try (JwksServer keys = JwksServer.start()) {
      PushTokenVerifier verifier = verifier(URI.create(keys.jwksUri()), Optional.of(ACCOUNT));
      String token = keys.signWithAnotherKey(JwksServer.pushClaims(AUDIENCE, ACCOUNT));

      Optional<Rejection> rejection = verifier.verify(Optional.of("Bearer " + token));

      assertThat(rejection).map(Rejection::reason).contains(Reason.BAD_SIGNATURE);
      assertThat(rejection.get().detail())
          .contains(JwksServer.KEY_ID)
          .doesNotContain(token.substring(token.lastIndexOf('.') + 1));
    }
  }

  @Test
  void serviceAccountWithoutAudienceStopsTheStart() {
    try (TestDeployment deployment = TestDeployment.create("oidc-service-account = \"" + ACCOUNT + "\"")) {
      Map<String, Object> properties = new HashMap<>(deployment.properties());
      properties.put("micronaut.server.port", -1);

      assertThatThrownBy(() -> ApplicationContext.run(EmbeddedServer.class, properties).close())
          .rootCause()
          .isInstanceOf(ConfigurationException.class)
          .hasMessage(
              "listener.oidc-service-account is \"" + ACCOUNT + "\" but listener.oidc-audience is"
                  + " not set: set the push subscription's audience too");
    }
  }

  @Test
  void everyPropertyHasARowInTheListenerPage() throws IOException {
    String readme = Files.readString(Path.of("..", "docs", "listener.md"));
    for (RecordComponent component : OidcConfiguration.class.getRecordComponents()) {
      String property =
          OidcConfiguration.PREFIX + "."
              + component.getName().replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
      assertThat(readme).as(property).contains("| `" + property + "` |");
    }
  }

  @Test
  void pushPathIsComparedAsTheRouterSeesIt() {
    assertThat(PushAuthenticationFilter.normalized("/pubsub/push/")).isEqualTo("/pubsub/push");
    assertThat(PushAuthenticationFilter.normalized("//pubsub//push")).isEqualTo("/pubsub/push");
    assertThat(PushAuthenticationFilter.normalized("/")).isEqualTo("/");
  }

  private static PushTokenVerifier verifier(URI jwks, Optional<String> account) {
    return new PushTokenVerifier(
        AUDIENCE,
        account,
        new OidcConfiguration(jwks, List.of("https://accounts.google.com", "accounts.google.com")),
        Clock.systemUTC());
  }
}
