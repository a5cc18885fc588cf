package io.files2iceberg.batcher.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * {@code GET /prometheus} over the JDK's HTTP server: the text a {@link Supplier} gives (the
 * registry's scrape), for Prometheus or the Managed Service for Prometheus sidecar; and {@code GET
 * /health}: {@code {"status":"UP"}} with 200, or {@code {"status":"DOWN"}} with 503, as a {@link
 * BooleanSupplier} says, for a liveness probe. Health has no details (they are in the log). Every
 * other path is 404, every other method 405.
 */
public final class MetricsEndpoint implements AutoCloseable {
  /** The path scraped. */
  public static final String PATH = "/prometheus";
  /** The health path. */
  public static final String HEALTH_PATH = "/health";
  static final String HEALTH_CONTENT_TYPE = "application/json";
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final HttpServer server;

  private MetricsEndpoint(HttpServer server) {
    this.server = server;
  }

  /**
   * Starts serving on {@code address} (port 0: any free port).
   *
   * @throws IOException when the address cannot be bound, naming it
   */
  public static MetricsEndpoint start(InetSocketAddress address, Supplier<String> scrape, BooleanSupplier healthy)
      throws IOException {
    HttpServer server;
    try {
      server = HttpServer.create(address, 0);
    } catch (IOException e) {
      throw new IOException("Cannot serve " + PATH + " on " + address.getHostString() + ":" + address.getPort()
          + ": " + e.getMessage(), e);
    }
    server.createContext("/", exchange -> answer(exchange, scrape, healthy));
    server.start();
    return new MetricsEndpoint(server);
  }

  /** Where the metrics are, with the port actually bound. */
  public URI uri() {
    InetSocketAddress bound = server.getAddress();
    String host = bound.getAddress().isAnyLocalAddress() ? "localhost" : bound.getHostString();
    return URI.create("http://" + host + ":" + bound.getPort() + PATH);
  }

  private static void answer(HttpExchange exchange, Supplier<String> scrape, BooleanSupplier healthy)
      throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      if (!PATH.equals(path) && !HEALTH_PATH.equals(path)) {
        send(exchange, 404, "text/plain; charset=utf-8",
            "Not found; the metrics are at " + PATH + ", the health at " + HEALTH_PATH + "\n");
      } else if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
        send(exchange, 405, "text/plain; charset=utf-8", "Only GET\n");
      } else if (HEALTH_PATH.equals(path)) {
        boolean up = healthy.getAsBoolean();
        send(exchange, up ? 200 : 503, HEALTH_CONTENT_TYPE, up ? "{\"status\":\"UP\"}" : "{\"status\":\"DOWN\"}");
      } else {
        send(exchange, 200, CONTENT_TYPE, scrape.get());
      }
    }
  }

  private static void send(HttpExchange exchange, int status, String contentType, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", contentType);
    boolean head = "HEAD".equals(exchange.getRequestMethod());
    exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
    if (!head) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
