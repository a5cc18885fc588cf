package io.files2iceberg.listener;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A Cloud Storage JSON API endpoint on loopback that fails as GCS fails: it answers every request
 * with the reply the test set: a status with GCS's JSON error body, a TCP reset, or a response cut
 * off mid-body (the client's I/O errors, a {@code StorageException} with code 0). It records each
 * request line, so a test can check what the listener asked for.
 */
final class FailingGcsServer implements AutoCloseable {
  /** What the next requests get. */
  sealed interface Reply {}

  /** The connection is reset before any response byte. */
  record ConnectionReset() implements Reply {}

  /**
   * A 200 whose body stops short of its {@code Content-Length}: the connection drops in the middle
   * of the listing page, and the client reads "Premature EOF" (an {@code IOException}).
   */
  record DroppedMidResponse() implements Reply {}

  /** An HTTP response with a JSON body. */
  record Json(int status, String body) implements Reply {}

  private final ServerSocket socket;
  private final Thread acceptor;
  private final List<String> requestLines = new CopyOnWriteArrayList<>();
  private volatile Reply reply = new ConnectionReset();

  FailingGcsServer() throws IOException {
    socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    acceptor = new Thread(this::accept, "failing-gcs-server");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** The host for {@code StorageOptions.setHost}. */
  String host() {
    return "http://127.0.0.1:" + socket.getLocalPort();
  }

  void reply(Reply next) {
    reply = next;
  }

  /** A GCS error response: {@code {"error": {"code", "message", "errors": [{reason}]}}}. */
  static Json error(int status, String reason, String message) {
    return new Json(
        status,
        """
        {"error":{"code":%d,"message":"%s","errors":[{"message":"%s","domain":"global","reason":"%s"}]}}"""
            .formatted(status, message, message, reason));
  }

  /** The request lines received so far ({@code GET /storage/v1/b/... HTTP/1.1}). */
  List<String> requestLines() {
    return List.copyOf(requestLines);
  }

  private void accept() {
    while (!socket.isClosed()) {
      try (Socket connection = socket.accept()) {
        answer(connection);
      } catch (IOException e) {
        // closed, or the client went away: the next connection is answered anew
      }
    }
  }

  private void answer(Socket connection) throws IOException {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(connection.getInputStream(), StandardCharsets.ISO_8859_1));
    String requestLine = in.readLine();
    if (requestLine == null) {
      return;
    }
    requestLines.add(requestLine);
    for (String header = in.readLine(); header != null && !header.isEmpty(); header = in.readLine()) {
      // a listing is a GET: no body to read
    }
    Reply current = reply;
    if (current instanceof DroppedMidResponse) {
      OutputStream out = connection.getOutputStream();
      out.write(
          ("HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=UTF-8\r\nContent-Length: 4096\r\n\r\n"
                  + "{\"kind\":\"storage#objects\",\"items\":[{\"kind\":")
              .getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
    } else if (current instanceof Json json) {
      byte[] body = json.body().getBytes(StandardCharsets.UTF_8);
      OutputStream out = connection.getOutputStream();
      out.write(
          ("HTTP/1.1 " + json.status() + " X\r\nContent-Type: application/json; charset=UTF-8\r\n"
                  + "Content-Length: " + body.length + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.ISO_8859_1));
      out.write(body);
      out.flush();
    } else {
      // SO_LINGER 0: close sends a RST, which the client reads as "Connection reset".
      connection.setSoLinger(true, 0);
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
