package io.files2iceberg.listener.auth;

import com.google.api.client.json.JsonFactory;
import com.google.api.client.json.gson.GsonFactory;
import com.google.api.client.json.webtoken.JsonWebSignature;
import com.google.api.client.json.webtoken.JsonWebToken;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.interfaces.RSAPublicKey;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;

/**
 * Stands in for Google's token signing: an RSA key pair, a JSON Web Key Set of its public key
 * served on 127.0.0.1 (as {@code https://www.googleapis.com/oauth2/v3/certs} serves Google's), and
 * tokens signed with google-http-client's {@link JsonWebSignature}.
 */
final class JwksServer implements AutoCloseable {
  static final String KEY_ID = "test-key-1";
  private static final JsonFactory JSON = GsonFactory.getDefaultInstance();

  private final KeyPair signingKey;
  private final HttpServer server;

  private JwksServer(KeyPair signingKey, HttpServer server) {
    this.signingKey = signingKey;
    this.server = server;
  }

  static JwksServer start() {
    KeyPair key = newRsaKey();
    RSAPublicKey publicKey = (RSAPublicKey) key.getPublic();
    String jwks =
        "{\"keys\":[{\"kty\":\"RSA\",\"alg\":\"RS256\",\"use\":\"sig\",\"kid\":\"" + KEY_ID
            + "\",\"n\":\"" + base64Url(publicKey.getModulus().toByteArray())
            + "\",\"e\":\"" + base64Url(publicKey.getPublicExponent().toByteArray()) + "\"}]}";
    try {
      HttpServer server =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.createContext(
          "/oauth2/v3/certs",
          exchange -> {
            byte[] body = jwks.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json; charset=UTF-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(body);
            }
          });
      server.start();
      return new JwksServer(key, server);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  String jwksUri() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/oauth2/v3/certs";
  }

  /** A token signed by the served key. */
  String sign(Map<String, Object> claims) {
    return sign(claims, signingKey);
  }

  /** A token with the served key's id but signed by another key: its signature cannot hold. */
  String signWithAnotherKey(Map<String, Object> claims) {
    return sign(claims, newRsaKey());
  }

  /** The claims Pub/Sub puts in a push token, valid for an hour. */
  static Map<String, Object> pushClaims(String audience, String email) {
    long now = Instant.now().getEpochSecond();
    return new java.util.LinkedHashMap<>(
        Map.of(
            "iss", "https://accounts.google.com",
            "aud", audience,
            "azp", "110000000000000000001",
            "sub", "110000000000000000001",
            "email", email,
            "email_verified", true,
            "iat", now,
            "exp", now + 3600));
  }

  private static String sign(Map<String, Object> claims, KeyPair key) {
    JsonWebSignature.Header header = new JsonWebSignature.Header();
    header.setAlgorithm("RS256");
    header.setType("JWT");
    header.setKeyId(KEY_ID);
    JsonWebToken.Payload payload = new JsonWebToken.Payload();
    claims.forEach(payload::set);
    try {
      return JsonWebSignature.signUsingRsaSha256(key.getPrivate(), JSON, header, payload);
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static KeyPair newRsaKey() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(2048);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String base64Url(byte[] unsigned) {
    // BigInteger.toByteArray() may lead with a sign byte; JWK integers have none.
    int start = unsigned.length > 1 && unsigned[0] == 0 ? 1 : 0;
    byte[] bytes = java.util.Arrays.copyOfRange(unsigned, start, unsigned.length);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
