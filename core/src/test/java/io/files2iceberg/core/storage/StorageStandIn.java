package io.files2iceberg.core.storage;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import java.util.zip.GZIPInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loopback server of the Cloud Storage JSON API subset that the product's clients call (the Java
 * Storage client, the Hadoop GCS connector, Iceberg's {@code GCSFileIO}), over a real folder: each
 * live object's bytes are a file under {@code root/<bucket>/<name>} (see {@link #file}), its
 * metadata is held in memory. Uploads in progress, and objects whose names cannot be such a path
 * ({@code a} beside {@code a/b}, {@code dir/}, {@code x//y}, a {@code .} segment), are kept under
 * {@code root/.stand-in}.
 *
 * <p>It serves object metadata ({@code fields=}, {@code generation=}), media downloads (also under
 * {@code /download}, with {@code Range}), lists ({@code prefix}, {@code delimiter}, {@code
 * pageToken}, {@code maxResults}, {@code includeTrailingDelimiter}, {@code startOffset}, {@code
 * endOffset}), media, multipart and resumable uploads, deletes, bucket metadata and bucket inserts,
 * and the preconditions {@code ifGenerationMatch} ({@code 0}: must not exist), {@code
 * ifGenerationNotMatch}, {@code ifMetagenerationMatch}, {@code ifMetagenerationNotMatch}: 412 on a
 * write or delete, 304 for a {@code NotMatch} on a read. Errors carry GCS's JSON error body.
 *
 * <p>Invariants: every finalize gives the object a new generation, larger than any before (GCS's
 * microsecond-like numbers); an overwrite replaces the live generation (no versioning), and a read
 * pinned to a replaced or deleted generation is a 404. One lock orders finalizes and deletes; a read
 * opens its file under the same lock, so its bytes are always those of the generation it reports.
 * The finalize listeners run after the object is live, on the finalizing thread, before an upload's
 * response is sent.
 *
 * <p>The batch endpoint serves object metadata GETs and DELETEs (the Java client's {@code
 * delete(Iterable)}, which Iceberg's {@code GCSFileIO.deleteFiles} uses).
 *
 * <p>Rewrites ({@code storage.copy}) are served whole in one call ({@code done: true}): the
 * source's live generation (or the one {@code sourceGeneration} pins) with {@code
 * ifSourceGenerationMatch} and {@code ifSourceGenerationNotMatch}, the destination with the write
 * preconditions; the copy is a new generation of the destination and is finalized as an upload is.
 *
 * <p>Not served: compose, other batched calls, object PATCH/ACLs, versioned listings,
 * {@code matchGlob}, soft delete, decompressive transcoding, managed folders (so {@code
 * includeFoldersAsPrefixes} changes nothing). An unknown route answers 501 with its method and path.
 */
public final class StorageStandIn implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StorageStandIn.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter RFC3339 = DateTimeFormatter.ISO_INSTANT;
  private static final Comparator<String> BY_UTF8_BYTES = StorageStandIn::compareCodePoints;
  /** The query parameters served, or accepted because they change nothing here. */
  private static final Set<String> KNOWN_PARAMETERS = Set.of("alt", "fields", "projection", "prettyPrint",
      "userProject", "project", "generation", "prefix", "delimiter", "pageToken", "maxResults",
      "includeTrailingDelimiter", "includeFoldersAsPrefixes", "versions", "startOffset", "endOffset", "matchGlob",
      "softDeleted", "uploadType", "name", "upload_id", "ifGenerationMatch", "ifGenerationNotMatch",
      "ifMetagenerationMatch", "ifMetagenerationNotMatch", "predefinedAcl", "sourceGeneration",
      "ifSourceGenerationMatch", "ifSourceGenerationNotMatch", "rewriteToken", "maxBytesRewrittenPerCall",
      "destinationPredefinedAcl");
  private static final Set<String> READ_PRECONDITIONS =
      Set.of("ifGenerationMatch", "ifGenerationNotMatch", "ifMetagenerationMatch", "ifMetagenerationNotMatch");

  /**
   * An object that became live: its bucket, name, generation and the object resource exactly as a
   * metadata GET returns it (the {@code JSON_API_V1} payload of a GCS notification).
   */
  public record FinalizedObject(String bucket, String name, long generation, String resourceJson) {
    /**
     * The attributes GCS sets on an {@code OBJECT_FINALIZE} notification (without {@code
     * notificationConfig}, which names a notification config the stand-in does not have).
     */
    public Map<String, String> notificationAttributes() {
      Map<String, String> attributes = new LinkedHashMap<>();
      attributes.put("eventType", "OBJECT_FINALIZE");
      attributes.put("payloadFormat", "JSON_API_V1");
      attributes.put("bucketId", bucket);
      attributes.put("objectId", name);
      attributes.put("objectGeneration", Long.toString(generation));
      try {
        attributes.put("eventTime", JSON.readTree(resourceJson).path("updated").asText());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return attributes;
    }
  }

  /** A live object: its file and its metadata. Immutable; an overwrite replaces the whole record. */
  private record StoredObject(
      String bucket, String name, long generation, long metageneration, long size, String md5, String crc32c,
      String contentType, Instant created, Instant updated, Map<String, String> userMetadata,
      Map<String, String> headerFields, Path file) {}

  private record Bucket(String name, Instant created, Path folder, NavigableMap<String, StoredObject> objects) {}

  /** A resumable upload session: the bytes persisted so far in a temp file. Guarded by itself. */
  private static final class Session {
    final String bucket;
    final ObjectNode resource;
    final Map<String, String> preconditions;
    final Path part;
    long persisted;
    StoredObject result;

    Session(String bucket, ObjectNode resource, Map<String, String> preconditions, Path part) {
      this.bucket = bucket;
      this.resource = resource;
      this.preconditions = preconditions;
      this.part = part;
    }
  }

  /** An error answered with GCS's JSON error body. */
  private static final class ApiError extends RuntimeException {
    final int status;
    final String reason;

    ApiError(int status, String reason, String message) {
      super(message);
      this.status = status;
      this.reason = reason;
    }
  }

  private final Path root;
  private final Path scratch;
  private final HttpServer server;
  private final ExecutorService executor;
  private final String endpoint;
  private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();
  private final Map<String, Session> sessions = new ConcurrentHashMap<>();
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private final List<Consumer<FinalizedObject>> finalizeListeners = new CopyOnWriteArrayList<>();
  private final ReadWriteLock lock = new ReentrantReadWriteLock();
  private final AtomicLong lastGeneration = new AtomicLong();
  private final AtomicLong overflowFiles = new AtomicLong();

  private StorageStandIn(Path root) throws IOException {
    this.root = root.toAbsolutePath();
    // Bucket names start with a letter or digit: a dot folder cannot be a bucket.
    this.scratch = Files.createDirectories(this.root.resolve(".stand-in"));
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    AtomicInteger threads = new AtomicInteger();
    this.executor = Executors.newCachedThreadPool(runnable -> {
      Thread thread = new Thread(runnable, "storage-stand-in-" + threads.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    });
    this.endpoint = "http://127.0.0.1:" + server.getAddress().getPort();
    server.createContext("/", this::handle);
    server.setExecutor(executor);
    server.start();
  }

  /** Starts a stand-in on a free loopback port, keeping object bytes under {@code root}. */
  public static StorageStandIn start(Path root) {
    try {
      StorageStandIn standIn = new StorageStandIn(root);
      LOG.info("storage stand-in serving {} over {}", standIn.endpoint, standIn.root);
      return standIn;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The root URL, {@code http://127.0.0.1:PORT}: the Java client's {@code setHost}, Iceberg's
   * {@code gcs.service.host}; the GCS connector's {@code fs.gs.storage.root.url} is this plus {@code /}.
   */
  public String endpoint() {
    return endpoint;
  }

  /** Creates a bucket (idempotent). */
  public void createBucket(String bucket) {
    lock.writeLock().lock();
    try {
      ensureBucket(bucket);
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Writes an object from the test's side, as gsutil would; returns its new generation. */
  public long put(String bucket, String name, byte[] content) {
    return put(bucket, name, content, "application/octet-stream");
  }

  /** Writes an object with this content type from the test's side; returns its new generation. */
  public long put(String bucket, String name, byte[] content, String contentType) {
    try {
      Bucket target = buckets.get(bucket);
      if (target == null) {
        throw new IllegalArgumentException("No such bucket: " + bucket + " (createBucket first)");
      }
      Path part = Files.createTempFile(scratch, "put-", ".part");
      Files.write(part, content);
      ObjectNode resource = JSON.createObjectNode().put("name", name).put("contentType", contentType);
      return finalizeObject(target, resource, Map.of(), part).generation();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Deletes the live object from the test's side; false when there was none. */
  public boolean delete(String bucket, String name) {
    lock.writeLock().lock();
    try {
      Bucket found = buckets.get(bucket);
      StoredObject removed = found == null ? null : found.objects().remove(name);
      if (removed != null) {
        deleteFile(found, removed.file());
      }
      return removed != null;
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** The live generation of an object, empty when there is none. */
  public OptionalLong generation(String bucket, String name) {
    return live(bucket, name).map(o -> OptionalLong.of(o.generation())).orElse(OptionalLong.empty());
  }

  /** The file that holds the live object's bytes (under the root folder). */
  public Path file(String bucket, String name) {
    return live(bucket, name).map(StoredObject::file)
        .orElseThrow(() -> new IllegalArgumentException("No such object: " + bucket + "/" + name));
  }

  /** Every request received so far, in arrival order: {@code METHOD /raw/path?rawQuery}. */
  public List<String> requests() {
    return List.copyOf(requests);
  }

  /** Called after every finalize (from {@link #put} or an upload), once the object is live. */
  public void onFinalize(Consumer<FinalizedObject> listener) {
    finalizeListeners.add(listener);
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  // ---- the HTTP edge ----

  private void handle(HttpExchange exchange) throws IOException {
    String method = exchange.getRequestMethod();
    String rawPath = exchange.getRequestURI().getRawPath();
    String rawQuery = exchange.getRequestURI().getRawQuery();
    String line = method + " " + rawPath + (rawQuery == null ? "" : "?" + rawQuery);
    requests.add(line);
    int status;
    try {
      Map<String, String> query = parseQuery(rawQuery);
      warnOfUnknownParameters(line, query);
      status = route(exchange, method, rawPath, query);
    } catch (ApiError e) {
      status = e.status;
      sendError(exchange, e);
    } catch (RuntimeException | IOException e) {
      LOG.warn("storage stand-in failed on {}", line, e);
      status = 500;
      sendError(exchange, new ApiError(500, "backendError", String.valueOf(e)));
    } finally {
      exchange.close();
    }
    String range = exchange.getRequestHeaders().getFirst("Range");
    String contentRange = exchange.getRequestHeaders().getFirst("Content-Range");
    LOG.info("storage stand-in: {}{}{} -> {}", line, range == null ? "" : " Range: " + range,
        contentRange == null ? "" : " Content-Range: " + contentRange, status);
  }

  /** A parameter the stand-in does not know is logged, so a test that relies on it can see it is ignored. */
  private static void warnOfUnknownParameters(String line, Map<String, String> query) {
    for (String key : query.keySet()) {
      if (!KNOWN_PARAMETERS.contains(key)) {
        LOG.warn("storage stand-in ignores the query parameter {} of {}", key, line);
      }
    }
  }

  private int route(HttpExchange exchange, String method, String rawPath, Map<String, String> query)
      throws IOException {
    if (rawPath.equals("/batch/storage/v1") && method.equals("POST")) {
      return batch(exchange);
    }
    if (rawPath.startsWith("/download/storage/v1/b/")) {
      ObjectPath path = ObjectPath.parse(rawPath.substring("/download/storage/v1/b/".length()));
      if (method.equals("GET") && path.name() != null) {
        return getMedia(exchange, path, query);
      }
    } else if (rawPath.startsWith("/upload/storage/v1/b/")) {
      ObjectPath path = ObjectPath.parse(rawPath.substring("/upload/storage/v1/b/".length()));
      if (path.isObjectCollection()) {
        String uploadId = query.get("upload_id");
        if (method.equals("POST") && uploadId == null) {
          return startUpload(exchange, path.bucket(), query);
        }
        if (method.equals("PUT") && uploadId != null) {
          return continueResumable(exchange, uploadId, query);
        }
        if (method.equals("DELETE") && uploadId != null) {
          Session cancelled = sessions.remove(uploadId);
          if (cancelled != null) {
            Files.deleteIfExists(cancelled.part);
          }
          exchange.sendResponseHeaders(499, -1);
          return 499;
        }
      }
    } else if (rawPath.equals("/storage/v1/b") || rawPath.equals("/storage/v1/b/")) {
      if (method.equals("POST")) {
        return insertBucket(exchange, query);
      }
    } else if (rawPath.startsWith("/storage/v1/b/") && rawPath.contains("/rewriteTo/b/") && method.equals("POST")) {
      return rewrite(exchange, rawPath, query);
    } else if (rawPath.startsWith("/storage/v1/b/")) {
      ObjectPath path = ObjectPath.parse(rawPath.substring("/storage/v1/b/".length()));
      if (path.isBucket() && method.equals("GET")) {
        return sendJson(exchange, 200, bucketResource(bucket(path.bucket())), query);
      }
      if (path.isObjectCollection() && method.equals("GET")) {
        return list(exchange, bucket(path.bucket()), query);
      }
      if (path.name() != null && method.equals("GET")) {
        if ("media".equals(query.get("alt"))) {
          return getMedia(exchange, path, query);
        }
        StoredObject object = readable(path, query);
        return sendJson(exchange, 200, resource(object), query);
      }
      if (path.name() != null && method.equals("DELETE")) {
        deleteObject(path, query);
        exchange.sendResponseHeaders(204, -1);
        return 204;
      }
    }
    throw new ApiError(501, "notImplemented",
        "StorageStandIn does not serve " + method + " " + rawPath);
  }

  /** The bucket and (URL-decoded, byte-exact) object name of a path after {@code /b/}. */
  private record ObjectPath(String bucket, boolean objects, String name) {
    static ObjectPath parse(String rest) {
      int slash = rest.indexOf('/');
      if (slash < 0) {
        return new ObjectPath(decode(rest, false), false, null);
      }
      String bucket = decode(rest.substring(0, slash), false);
      String tail = rest.substring(slash);
      if (tail.equals("/o") || tail.equals("/o/")) {
        return new ObjectPath(bucket, true, null);
      }
      if (tail.startsWith("/o/")) {
        // Everything after /o/ is the name: %2F and a literal / both stand for a slash in it.
        return new ObjectPath(bucket, true, decode(tail.substring(3), false));
      }
      throw new ApiError(501, "notImplemented", "StorageStandIn does not serve bucket path " + tail);
    }

    boolean isBucket() {
      return !objects;
    }

    boolean isObjectCollection() {
      return objects && name == null;
    }
  }

  // ---- the batch endpoint: object metadata GETs and DELETEs only ----

  /**
   * A {@code multipart/mixed} batch of object metadata GETs and DELETEs (the Java client's {@code
   * delete(Iterable)} and {@code get(Iterable)}), each answered in its own part, in order.
   */
  private int batch(HttpExchange exchange) throws IOException {
    String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
    List<byte[]> parts = multipart(contentType, readBody(exchange));
    String boundary = "batch_" + UUID.randomUUID().toString().replace("-", "");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      String text = new String(part, StandardCharsets.UTF_8);
      String contentId = null;
      for (String header : text.substring(0, Math.max(0, text.indexOf("\r\n\r\n"))).split("\r\n")) {
        if (header.toLowerCase(Locale.ROOT).startsWith("content-id:")) {
          contentId = header.substring("content-id:".length()).trim();
        }
      }
      String request = text.substring(text.indexOf("\r\n\r\n") + 4);
      String[] requestLine = request.substring(0, request.indexOf("\r\n")).split(" ");
      String method = requestLine[0];
      URI target = URI.create(requestLine[1]);
      String innerLine = method + " " + target.getRawPath() + (target.getRawQuery() == null ? "" : "?" + target.getRawQuery());
      requests.add(innerLine);
      int status;
      byte[] body;
      try {
        Map<String, String> query = parseQuery(target.getRawQuery());
        warnOfUnknownParameters(innerLine, query);
        if (!target.getRawPath().startsWith("/storage/v1/b/")) {
          throw new ApiError(501, "notImplemented", "StorageStandIn does not serve " + innerLine + " in a batch");
        }
        ObjectPath path = ObjectPath.parse(target.getRawPath().substring("/storage/v1/b/".length()));
        if (path.name() != null && method.equals("DELETE")) {
          deleteObject(path, query);
          status = 204;
          body = new byte[0];
        } else if (path.name() != null && method.equals("GET")) {
          status = 200;
          JsonNode resource = resource(readable(path, query));
          body = JSON.writeValueAsBytes(
              query.containsKey("fields") ? FieldMask.parse(query.get("fields")).apply(resource) : resource);
        } else {
          throw new ApiError(501, "notImplemented", "StorageStandIn does not serve " + innerLine + " in a batch");
        }
      } catch (ApiError e) {
        status = e.status;
        body = errorBody(e);
      }
      LOG.info("storage stand-in: (batch) {} -> {}", innerLine, status);
      out.write(("--" + boundary + "\r\nContent-Type: application/http\r\n"
          + (contentId == null ? "" : "Content-ID: " + contentId.replaceFirst("^<", "<response-") + "\r\n")
          + "\r\nHTTP/1.1 " + status + " " + reasonPhrase(status) + "\r\n"
          + (body.length == 0 ? "" : "Content-Type: application/json; charset=UTF-8\r\n")
          + "Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.UTF_8));
      out.write(body);
      out.write("\r\n".getBytes(StandardCharsets.UTF_8));
    }
    out.write(("--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
    byte[] bytes = out.toByteArray();
    exchange.getResponseHeaders().set("Content-Type", "multipart/mixed; boundary=" + boundary);
    exchange.sendResponseHeaders(200, bytes.length);
    try (OutputStream response = exchange.getResponseBody()) {
      response.write(bytes);
    }
    return 200;
  }

  private static String reasonPhrase(int status) {
    return switch (status) {
      case 200 -> "OK";
      case 204 -> "No Content";
      case 304 -> "Not Modified";
      case 404 -> "Not Found";
      case 412 -> "Precondition Failed";
      case 501 -> "Not Implemented";
      default -> "Status";
    };
  }

  // ---- reads ----

  private StoredObject readable(ObjectPath path, Map<String, String> query) {
    return live(path, query, true);
  }

  /**
   * The live object at the path, at the generation the query pins if it does, its preconditions
   * checked (for a read, a failed not-match is a 304); else a 404.
   */
  private StoredObject live(ObjectPath path, Map<String, String> query, boolean read) {
    Bucket bucket = bucket(path.bucket());
    StoredObject object = bucket.objects().get(path.name());
    String pinned = query.get("generation");
    if (object == null || (pinned != null && object.generation() != parseLong("generation", pinned))) {
      throw noSuchObject(path.bucket(), path.name());
    }
    checkPreconditions(object, query, read);
    return object;
  }

  private int getMedia(HttpExchange exchange, ObjectPath path, Map<String, String> query) throws IOException {
    StoredObject object;
    FileChannel channel;
    lock.readLock().lock();
    try {
      object = readable(path, query);
      channel = FileChannel.open(object.file(), StandardOpenOption.READ);
    } finally {
      lock.readLock().unlock();
    }
    try (channel) {
      long size = object.size();
      long start = 0;
      long end = size - 1;
      boolean partial = false;
      String range = exchange.getRequestHeaders().getFirst("Range");
      if (range != null && size > 0) {
        long[] bounds = parseRange(range, size);
        if (bounds != null) {
          if (bounds[0] >= size) {
            throw new ApiError(416, "requestedRangeNotSatisfiable", "The requested range cannot be satisfied.");
          }
          start = bounds[0];
          end = Math.min(bounds[1], size - 1);
          partial = true;
        }
      }
      Headers headers = exchange.getResponseHeaders();
      headers.set("Content-Type", object.contentType());
      headers.set("Accept-Ranges", "bytes");
      headers.set("ETag", etag(object));
      headers.set("x-goog-generation", Long.toString(object.generation()));
      headers.set("x-goog-metageneration", Long.toString(object.metageneration()));
      headers.set("x-goog-stored-content-length", Long.toString(size));
      headers.set("x-goog-stored-content-encoding", "identity");
      headers.set("x-goog-storage-class", "STANDARD");
      headers.add("x-goog-hash", "crc32c=" + object.crc32c());
      headers.add("x-goog-hash", "md5=" + object.md5());
      headers.set("Last-Modified", DateTimeFormatter.RFC_1123_DATE_TIME.format(
          object.updated().atZone(java.time.ZoneOffset.UTC)));
      long length = size == 0 ? 0 : end - start + 1;
      int status = partial ? 206 : 200;
      if (partial) {
        headers.set("Content-Range", "bytes " + start + "-" + end + "/" + size);
      }
      exchange.sendResponseHeaders(status, length == 0 ? -1 : length);
      if (length > 0) {
        try (OutputStream out = exchange.getResponseBody()) {
          copy(channel, start, length, out);
        } catch (IOException e) {
          // the client stopped reading (a reader that seeks elsewhere closes its stream)
          LOG.debug("storage stand-in: client went away during {}", path.name(), e);
        }
      }
      return status;
    }
  }

  /** {@code bytes=a-b}, {@code bytes=a-}, {@code bytes=-n}: [start, end], or null to serve it all. */
  private static long[] parseRange(String header, long size) {
    String spec = header.trim();
    if (!spec.startsWith("bytes=") || spec.contains(",")) {
      return null;
    }
    spec = spec.substring("bytes=".length()).trim();
    int dash = spec.indexOf('-');
    if (dash < 0) {
      return null;
    }
    try {
      if (dash == 0) {
        long suffix = Long.parseLong(spec.substring(1));
        return new long[] {Math.max(0, size - suffix), size - 1};
      }
      long start = Long.parseLong(spec.substring(0, dash));
      String last = spec.substring(dash + 1);
      long end = last.isEmpty() ? size - 1 : Long.parseLong(last);
      return end < start ? null : new long[] {start, end};
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static void copy(FileChannel channel, long start, long length, OutputStream out) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
    long position = start;
    long remaining = length;
    while (remaining > 0) {
      buffer.clear();
      buffer.limit((int) Math.min(buffer.capacity(), remaining));
      int read = channel.read(buffer, position);
      if (read < 0) {
        throw new IOException("file ended early");
      }
      out.write(buffer.array(), 0, read);
      position += read;
      remaining -= read;
    }
  }

  private int list(HttpExchange exchange, Bucket bucket, Map<String, String> query) throws IOException {
    for (String unsupported : List.of("matchGlob", "softDeleted")) {
      if (query.containsKey(unsupported) && !"false".equals(query.get(unsupported))) {
        throw new ApiError(501, "notImplemented", "StorageStandIn does not support " + unsupported);
      }
    }
    String prefix = query.getOrDefault("prefix", "");
    String delimiter = query.getOrDefault("delimiter", "");
    boolean trailing = Boolean.parseBoolean(query.getOrDefault("includeTrailingDelimiter", "false"));
    int maxResults = (int) Math.min(1000, parseLong("maxResults", query.getOrDefault("maxResults", "1000")));
    if (maxResults <= 0) {
      maxResults = 1000;
    }
    String startOffset = query.get("startOffset");
    String endOffset = query.get("endOffset");
    String token = query.get("pageToken");
    String after = null;
    boolean afterIsPrefix = false;
    if (token != null && !token.isEmpty()) {
      String decoded = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
      afterIsPrefix = decoded.startsWith("p:");
      after = decoded.substring(2);
    }
    ArrayNode items = JSON.createArrayNode();
    ArrayNode prefixes = JSON.createArrayNode();
    String next = null;
    lock.readLock().lock();
    try {
      int emitted = 0;
      String lastPrefix = null;
      String lastKey = null;
      for (StoredObject object : bucket.objects().tailMap(prefix, true).values()) {
        String name = object.name();
        if (!name.startsWith(prefix)) {
          break;
        }
        if (after != null && (BY_UTF8_BYTES.compare(name, after) <= 0 || (afterIsPrefix && name.startsWith(after)))) {
          continue;
        }
        if (startOffset != null && BY_UTF8_BYTES.compare(name, startOffset) < 0) {
          continue;
        }
        if (endOffset != null && BY_UTF8_BYTES.compare(name, endOffset) >= 0) {
          break;
        }
        int cut = delimiter.isEmpty() ? -1 : name.indexOf(delimiter, prefix.length());
        String entryPrefix = cut < 0 ? null : name.substring(0, cut + delimiter.length());
        if (entryPrefix != null && entryPrefix.equals(lastPrefix)) {
          continue;
        }
        if (emitted == maxResults) {
          // the page token resumes after the last entry: past every name under it when it was a prefix
          next = lastKey;
          break;
        }
        emitted++;
        if (entryPrefix != null) {
          prefixes.add(entryPrefix);
          lastPrefix = entryPrefix;
          lastKey = "p:" + entryPrefix;
          if (trailing && name.equals(entryPrefix)) {
            items.add(resource(object));
          }
        } else {
          items.add(resource(object));
          lastKey = "o:" + name;
        }
      }
    } finally {
      lock.readLock().unlock();
    }
    ObjectNode page = JSON.createObjectNode().put("kind", "storage#objects");
    if (next != null) {
      page.put("nextPageToken",
          Base64.getUrlEncoder().withoutPadding().encodeToString(next.getBytes(StandardCharsets.UTF_8)));
    }
    if (!prefixes.isEmpty()) {
      page.set("prefixes", prefixes);
    }
    if (!items.isEmpty()) {
      page.set("items", items);
    }
    return sendJson(exchange, 200, page, query);
  }

  // ---- writes ----

  private int startUpload(HttpExchange exchange, String bucketName, Map<String, String> query) throws IOException {
    Bucket bucket = bucket(bucketName);
    String type = query.getOrDefault("uploadType", "");
    Map<String, String> preconditions = preconditions(query);
    byte[] body = readBody(exchange);
    String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
    switch (type) {
      case "media" -> {
        ObjectNode resource = JSON.createObjectNode();
        if (contentType != null) {
          resource.put("contentType", contentType);
        }
        return finishUpload(exchange, bucket, withName(resource, query), preconditions, body, query);
      }
      case "multipart" -> {
        byte[][] parts = multipartParts(contentType, body);
        ObjectNode resource = (ObjectNode) JSON.readTree(parts[0]);
        return finishUpload(exchange, bucket, withName(resource, query), preconditions, parts[1], query);
      }
      case "resumable" -> {
        ObjectNode resource = body.length == 0 ? JSON.createObjectNode() : (ObjectNode) JSON.readTree(body);
        String uploadType = exchange.getRequestHeaders().getFirst("X-Upload-Content-Type");
        if (uploadType != null && !resource.has("contentType")) {
          resource.put("contentType", uploadType);
        }
        withName(resource, query);
        lock.readLock().lock();
        try {
          checkWritePreconditions(bucket, resource.path("name").asText(), preconditions);
        } finally {
          lock.readLock().unlock();
        }
        String uploadId = UUID.randomUUID().toString().replace("-", "");
        sessions.put(uploadId, new Session(bucketName, resource, preconditions,
            Files.createTempFile(scratch, "upload-", ".part")));
        exchange.getResponseHeaders().set("Location", endpoint + "/upload/storage/v1/b/" + encode(bucketName)
            + "/o?uploadType=resumable&name=" + encode(resource.path("name").asText()) + "&upload_id=" + uploadId);
        exchange.getResponseHeaders().set("X-GUploader-UploadID", uploadId);
        exchange.sendResponseHeaders(200, -1);
        return 200;
      }
      default -> throw new ApiError(400, "invalid", "Invalid upload type: '" + type + "'");
    }
  }

  private int finishUpload(HttpExchange exchange, Bucket bucket, ObjectNode resource, Map<String, String> preconditions,
      byte[] content, Map<String, String> query) throws IOException {
    Path part = Files.createTempFile(scratch, "upload-", ".part");
    Files.write(part, content);
    StoredObject object = finalizeObject(bucket, resource, preconditions, part);
    return sendJson(exchange, 200, resource(object), query);
  }

  private int continueResumable(HttpExchange exchange, String uploadId, Map<String, String> query) throws IOException {
    Session session = sessions.get(uploadId);
    if (session == null) {
      throw new ApiError(404, "notFound", "No such upload session: " + uploadId);
    }
    String contentRange = exchange.getRequestHeaders().getFirst("Content-Range");
    synchronized (session) {
      if (session.result != null) {
        readBody(exchange);
        return sendJson(exchange, 200, resource(session.result), query);
      }
      long first = -1;
      long total = -1;
      byte[] chunk = readBody(exchange);
      if (contentRange == null) {
        // the whole object in one request
        first = 0;
        total = chunk.length;
      } else {
        String spec = contentRange.trim();
        if (!spec.startsWith("bytes ")) {
          throw new ApiError(400, "invalid", "Invalid Content-Range: " + contentRange);
        }
        spec = spec.substring("bytes ".length()).trim();
        int slash = spec.indexOf('/');
        String span = spec.substring(0, slash);
        String size = spec.substring(slash + 1);
        total = size.equals("*") ? -1 : parseLong("Content-Range", size);
        if (!span.equals("*")) {
          int dash = span.indexOf('-');
          first = parseLong("Content-Range", span.substring(0, dash));
          long last = parseLong("Content-Range", span.substring(dash + 1));
          if (last - first + 1 != chunk.length) {
            throw new ApiError(400, "invalid", "Content-Range " + contentRange + " does not match the "
                + chunk.length + " bytes sent");
          }
        } else if (chunk.length > 0) {
          throw new ApiError(400, "invalid", "Content-Range " + contentRange + " with a body");
        }
      }
      if (first >= 0) {
        if (first > session.persisted) {
          throw new ApiError(400, "invalid", "Chunk starts at " + first + " but " + session.persisted
              + " bytes are persisted");
        }
        int skip = (int) (session.persisted - first);
        if (skip < chunk.length) {
          try (OutputStream out = Files.newOutputStream(session.part, StandardOpenOption.APPEND)) {
            out.write(chunk, skip, chunk.length - skip);
          }
          session.persisted += chunk.length - skip;
        }
      }
      if (total >= 0 && session.persisted > total) {
        throw new ApiError(400, "invalid", session.persisted + " bytes persisted, more than the total " + total);
      }
      if (total >= 0 && session.persisted == total) {
        Bucket bucket = bucket(session.bucket);
        session.result = finalizeObject(bucket, session.resource, session.preconditions, session.part);
        return sendJson(exchange, 200, resource(session.result), query);
      }
      if (session.persisted > 0) {
        exchange.getResponseHeaders().set("Range", "bytes=0-" + (session.persisted - 1));
      }
      exchange.sendResponseHeaders(308, -1);
      return 308;
    }
  }

  private static ObjectNode withName(ObjectNode resource, Map<String, String> query) {
    if (query.containsKey("name")) {
      resource.put("name", query.get("name"));
    }
    if (!resource.hasNonNull("name") || resource.get("name").asText().isEmpty()) {
      throw new ApiError(400, "required", "Required");
    }
    return resource;
  }

  /** The JSON part and the media part of a {@code multipart/related} body. */
  private static byte[][] multipartParts(String contentType, byte[] body) {
    List<byte[]> parts = multipart(contentType, body);
    if (parts.size() != 2) {
      throw new ApiError(400, "invalid", "multipart upload with " + parts.size() + " parts, not 2");
    }
    List<byte[]> contents = new ArrayList<>();
    for (byte[] part : parts) {
      int headersEnd = indexOf(part, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), 0);
      if (headersEnd < 0) {
        throw new ApiError(400, "invalid", "multipart part without the blank line after its headers");
      }
      byte[] content = new byte[part.length - headersEnd - 4];
      System.arraycopy(part, headersEnd + 4, content, 0, content.length);
      contents.add(content);
    }
    return new byte[][] {contents.get(0), contents.get(1)};
  }

  /** The parts of a multipart body, each with its headers (the line break after its boundary cut off). */
  private static List<byte[]> multipart(String contentType, byte[] body) {
    String boundary = null;
    if (contentType != null) {
      for (String parameter : contentType.split(";")) {
        String trimmed = parameter.trim();
        if (trimmed.toLowerCase(Locale.ROOT).startsWith("boundary=")) {
          boundary = trimmed.substring("boundary=".length()).replace("\"", "");
        }
      }
    }
    if (boundary == null) {
      throw new ApiError(400, "invalid", "multipart body without a boundary: " + contentType);
    }
    byte[] delimiter = ("--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
    byte[] next = ("\r\n--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
    List<byte[]> parts = new ArrayList<>();
    int at = indexOf(body, delimiter, 0);
    while (at >= 0) {
      int partStart = at + delimiter.length;
      if (partStart + 1 < body.length && body[partStart] == '-' && body[partStart + 1] == '-') {
        break;
      }
      // the line break that ends the boundary line: a part with no headers starts with a blank line
      partStart += 2;
      int end = indexOf(body, next, partStart - 2);
      if (end < 0) {
        throw new ApiError(400, "invalid", "multipart body without a closing boundary");
      }
      byte[] part = new byte[Math.max(0, end - partStart)];
      System.arraycopy(body, partStart, part, 0, part.length);
      parts.add(part);
      at = end + 2;
    }
    return parts;
  }

  private static int indexOf(byte[] haystack, byte[] needle, int from) {
    outer:
    for (int i = Math.max(0, from); i <= haystack.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  /**
   * Makes the bytes in {@code part} the object's new live generation, if the preconditions hold
   * under the lock; then tells the finalize listeners.
   */
  private StoredObject finalizeObject(Bucket bucket, ObjectNode resource, Map<String, String> preconditions, Path part)
      throws IOException {
    String name = resource.path("name").asText();
    validateName(name);
    byte[] content = Files.readAllBytes(part);
    String md5 = base64(md5(content));
    String crc32c = base64(crc32c(content));
    if (resource.hasNonNull("md5Hash") && !resource.get("md5Hash").asText().equals(md5)) {
      Files.deleteIfExists(part);
      throw new ApiError(400, "invalid", "Provided MD5 hash \"" + resource.get("md5Hash").asText()
          + "\" doesn't match calculated MD5 hash \"" + md5 + "\".");
    }
    if (resource.hasNonNull("crc32c") && !resource.get("crc32c").asText().equals(crc32c)) {
      Files.deleteIfExists(part);
      throw new ApiError(400, "invalid", "Provided CRC32C \"" + resource.get("crc32c").asText()
          + "\" doesn't match calculated CRC32C \"" + crc32c + "\".");
    }
    Map<String, String> userMetadata = new LinkedHashMap<>();
    resource.path("metadata").fields().forEachRemaining(e -> userMetadata.put(e.getKey(), e.getValue().asText()));
    Map<String, String> headerFields = new LinkedHashMap<>();
    for (String field : List.of("contentEncoding", "contentDisposition", "contentLanguage", "cacheControl")) {
      if (resource.hasNonNull(field)) {
        headerFields.put(field, resource.get(field).asText());
      }
    }
    String contentType = resource.hasNonNull("contentType") ? resource.get("contentType").asText()
        : "application/octet-stream";
    StoredObject object;
    lock.writeLock().lock();
    try {
      checkWritePreconditions(bucket, name, preconditions);
      StoredObject previous = bucket.objects().get(name);
      Path file = place(bucket, name, part, previous);
      Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
      long generation = lastGeneration.updateAndGet(last -> Math.max(last + 1, micros(Instant.now())));
      object = new StoredObject(bucket.name(), name, generation, 1, content.length, md5, crc32c, contentType, now,
          now, Map.copyOf(userMetadata), Map.copyOf(headerFields), file);
      bucket.objects().put(name, object);
    } finally {
      lock.writeLock().unlock();
    }
    FinalizedObject finalized =
        new FinalizedObject(object.bucket(), name, object.generation(), JSON.writeValueAsString(resource(object)));
    for (Consumer<FinalizedObject> listener : finalizeListeners) {
      try {
        listener.accept(finalized);
      } catch (RuntimeException e) {
        LOG.warn("storage stand-in: a finalize listener failed on gs://{}/{}", object.bucket(), name, e);
      }
    }
    return object;
  }

  /**
   * Moves the finished bytes to {@code root/bucket/name}; a name that cannot be such a path (an
   * empty, {@code .} or {@code ..} segment, a segment too long, a file where a folder is needed or
   * the other way round) is kept under the scratch folder instead.
   */
  private Path place(Bucket bucket, String name, Path part, StoredObject previous) throws IOException {
    Path mirrored = mirrorPath(bucket, name);
    if (mirrored != null) {
      try {
        Files.createDirectories(mirrored.getParent());
        if (!Files.isDirectory(mirrored)) {
          Files.move(part, mirrored, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
          if (previous != null && !previous.file().equals(mirrored)) {
            Files.deleteIfExists(previous.file());
          }
          return mirrored;
        }
      } catch (IOException e) {
        LOG.debug("storage stand-in: gs://{}/{} is kept apart: {}", bucket.name(), name, e.toString());
      }
    }
    Path apart = scratch.resolve("objects").resolve(overflowFiles.incrementAndGet() + ".bin");
    Files.createDirectories(apart.getParent());
    Files.move(part, apart, StandardCopyOption.ATOMIC_MOVE);
    if (previous != null) {
      Files.deleteIfExists(previous.file());
    }
    return apart;
  }

  private static Path mirrorPath(Bucket bucket, String name) {
    if (name.indexOf('\0') >= 0) {
      return null;
    }
    String[] segments = name.split("/", -1);
    Path path = bucket.folder();
    for (String segment : segments) {
      if (segment.isEmpty() || segment.equals(".") || segment.equals("..")
          || segment.getBytes(StandardCharsets.UTF_8).length > 255) {
        return null;
      }
      path = path.resolve(segment);
    }
    return path.normalize().startsWith(bucket.folder()) ? path : null;
  }

  private void deleteObject(ObjectPath path, Map<String, String> query) throws IOException {
    lock.writeLock().lock();
    try {
      Bucket bucket = bucket(path.bucket());
      StoredObject object = live(path, query, false);
      bucket.objects().remove(path.name());
      deleteFile(bucket, object.file());
    } finally {
      lock.writeLock().unlock();
    }
  }

  /**
   * {@code POST /storage/v1/b/SRC/o/NAME/rewriteTo/b/DST/o/NAME}: the source's bytes, read under
   * the lock with its preconditions checked, become a new generation of the destination (write
   * preconditions {@code ifGenerationMatch} and the others checked when it is finalized).
   */
  private int rewrite(HttpExchange exchange, String rawPath, Map<String, String> query) throws IOException {
    int split = rawPath.indexOf("/rewriteTo/b/");
    ObjectPath source = ObjectPath.parse(rawPath.substring("/storage/v1/b/".length(), split));
    ObjectPath target = ObjectPath.parse(rawPath.substring(split + "/rewriteTo/b/".length()));
    if (source.name() == null || target.name() == null) {
      throw new ApiError(400, "invalid", "a rewrite names a source and a destination object");
    }
    JsonNode body = JSON.readTree(readBody(exchange));
    Bucket targetBucket = bucket(target.bucket());
    Path part = Files.createTempFile(scratch, "rewrite-", ".part");
    StoredObject from;
    lock.readLock().lock();
    try {
      Map<String, String> sourceQuery = new HashMap<>();
      if (query.containsKey("sourceGeneration")) {
        sourceQuery.put("generation", query.get("sourceGeneration"));
      }
      if (query.containsKey("ifSourceGenerationMatch")) {
        sourceQuery.put("ifGenerationMatch", query.get("ifSourceGenerationMatch"));
      }
      if (query.containsKey("ifSourceGenerationNotMatch")) {
        sourceQuery.put("ifGenerationNotMatch", query.get("ifSourceGenerationNotMatch"));
      }
      from = live(source, sourceQuery, false);
      Files.copy(from.file(), part, StandardCopyOption.REPLACE_EXISTING);
    } catch (RuntimeException e) {
      Files.deleteIfExists(part);
      throw e;
    } finally {
      lock.readLock().unlock();
    }
    ObjectNode resource = body != null && body.isObject() ? ((ObjectNode) body).deepCopy() : JSON.createObjectNode();
    resource.put("name", target.name());
    if (!resource.hasNonNull("contentType")) {
      resource.put("contentType", from.contentType());
    }
    if (!resource.has("metadata") && !from.userMetadata().isEmpty()) {
      ObjectNode metadata = resource.putObject("metadata");
      from.userMetadata().forEach(metadata::put);
    }
    StoredObject copy = finalizeObject(targetBucket, resource, preconditions(query), part);
    ObjectNode response = JSON.createObjectNode()
        .put("kind", "storage#rewriteResponse")
        .put("totalBytesRewritten", Long.toString(copy.size()))
        .put("objectSize", Long.toString(copy.size()))
        .put("done", true);
    response.set("resource", resource(copy));
    return sendJson(exchange, 200, response, query);
  }

  /** Removes an object's file and the folders it leaves empty (under the write lock). */
  private static void deleteFile(Bucket bucket, Path file) {
    try {
      Files.deleteIfExists(file);
      for (Path folder = file.getParent(); folder != null && folder.startsWith(bucket.folder())
          && !folder.equals(bucket.folder()); folder = folder.getParent()) {
        try (var entries = Files.list(folder)) {
          if (entries.findAny().isPresent()) {
            break;
          }
        }
        Files.delete(folder);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ---- preconditions ----

  private static Map<String, String> preconditions(Map<String, String> query) {
    Map<String, String> found = new HashMap<>();
    for (String key : READ_PRECONDITIONS) {
      if (query.containsKey(key)) {
        found.put(key, query.get(key));
      }
    }
    return found;
  }

  private void checkWritePreconditions(Bucket bucket, String name, Map<String, String> preconditions) {
    StoredObject current = bucket.objects().get(name);
    String generationMatch = preconditions.get("ifGenerationMatch");
    if (generationMatch != null) {
      long expected = parseLong("ifGenerationMatch", generationMatch);
      if (expected == 0 ? current != null : current == null || current.generation() != expected) {
        throw preconditionFailed();
      }
    }
    String generationNotMatch = preconditions.get("ifGenerationNotMatch");
    if (generationNotMatch != null) {
      long unexpected = parseLong("ifGenerationNotMatch", generationNotMatch);
      if (unexpected == 0 ? current == null : current != null && current.generation() == unexpected) {
        throw preconditionFailed();
      }
    }
    String metagenerationMatch = preconditions.get("ifMetagenerationMatch");
    if (metagenerationMatch != null
        && (current == null || current.metageneration() != parseLong("ifMetagenerationMatch", metagenerationMatch))) {
      throw preconditionFailed();
    }
    String metagenerationNotMatch = preconditions.get("ifMetagenerationNotMatch");
    if (metagenerationNotMatch != null && current != null
        && current.metageneration() == parseLong("ifMetagenerationNotMatch", metagenerationNotMatch)) {
      throw preconditionFailed();
    }
  }

  /** On an existing object: a failed match is 412; a failed not-match is 304 on a read, 412 otherwise. */
  private static void checkPreconditions(StoredObject object, Map<String, String> query, boolean read) {
    String generationMatch = query.get("ifGenerationMatch");
    if (generationMatch != null && object.generation() != parseLong("ifGenerationMatch", generationMatch)) {
      throw preconditionFailed();
    }
    String metagenerationMatch = query.get("ifMetagenerationMatch");
    if (metagenerationMatch != null
        && object.metageneration() != parseLong("ifMetagenerationMatch", metagenerationMatch)) {
      throw preconditionFailed();
    }
    String generationNotMatch = query.get("ifGenerationNotMatch");
    String metagenerationNotMatch = query.get("ifMetagenerationNotMatch");
    boolean notMatchFailed =
        (generationNotMatch != null && object.generation() == parseLong("ifGenerationNotMatch", generationNotMatch))
            || (metagenerationNotMatch != null
                && object.metageneration() == parseLong("ifMetagenerationNotMatch", metagenerationNotMatch));
    if (notMatchFailed) {
      throw read ? new ApiError(304, "notModified", "Not Modified") : preconditionFailed();
    }
  }

  private static ApiError preconditionFailed() {
    return new ApiError(412, "conditionNotMet", "At least one of the pre-conditions you specified did not hold.");
  }

  // ---- resources ----

  private Bucket bucket(String name) {
    Bucket bucket = buckets.get(name);
    if (bucket == null) {
      throw new ApiError(404, "notFound", "The specified bucket does not exist.");
    }
    return bucket;
  }

  private Bucket ensureBucket(String name) {
    if (name.isEmpty() || name.startsWith(".") || name.contains("/")) {
      throw new IllegalArgumentException("Invalid bucket name: '" + name + "'");
    }
    return buckets.computeIfAbsent(name, n -> {
      try {
        return new Bucket(n, Instant.now().truncatedTo(ChronoUnit.MILLIS), Files.createDirectories(root.resolve(n)),
            new java.util.concurrent.ConcurrentSkipListMap<>(BY_UTF8_BYTES));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
  }

  private int insertBucket(HttpExchange exchange, Map<String, String> query) throws IOException {
    JsonNode body = JSON.readTree(readBody(exchange));
    String name = body.path("name").asText();
    lock.writeLock().lock();
    try {
      if (buckets.containsKey(name)) {
        throw new ApiError(409, "conflict",
            "Your previous request to create the named bucket succeeded and you already own it.");
      }
      return sendJson(exchange, 200, bucketResource(ensureBucket(name)), query);
    } finally {
      lock.writeLock().unlock();
    }
  }

  private ObjectNode bucketResource(Bucket bucket) {
    ObjectNode node = JSON.createObjectNode()
        .put("kind", "storage#bucket")
        .put("selfLink", endpoint + "/storage/v1/b/" + encode(bucket.name()))
        .put("id", bucket.name())
        .put("name", bucket.name())
        .put("projectNumber", "0")
        .put("metageneration", "1")
        .put("location", "US")
        .put("storageClass", "STANDARD")
        .put("etag", "CAE=")
        .put("timeCreated", RFC3339.format(bucket.created()))
        .put("updated", RFC3339.format(bucket.created()))
        .put("locationType", "multi-region")
        .put("rpo", "DEFAULT");
    node.putObject("iamConfiguration").putObject("uniformBucketLevelAccess").put("enabled", true);
    return node;
  }

  private ObjectNode resource(StoredObject object) {
    String encoded = encode(object.name());
    ObjectNode node = JSON.createObjectNode()
        .put("kind", "storage#object")
        .put("id", object.bucket() + "/" + object.name() + "/" + object.generation())
        .put("selfLink", endpoint + "/storage/v1/b/" + encode(object.bucket()) + "/o/" + encoded)
        .put("mediaLink", endpoint + "/download/storage/v1/b/" + encode(object.bucket()) + "/o/" + encoded
            + "?generation=" + object.generation() + "&alt=media")
        .put("name", object.name())
        .put("bucket", object.bucket())
        .put("generation", Long.toString(object.generation()))
        .put("metageneration", Long.toString(object.metageneration()))
        .put("contentType", object.contentType())
        .put("storageClass", "STANDARD")
        .put("size", Long.toString(object.size()))
        .put("md5Hash", object.md5())
        .put("crc32c", object.crc32c())
        .put("etag", etag(object))
        .put("timeCreated", RFC3339.format(object.created()))
        .put("updated", RFC3339.format(object.updated()))
        .put("timeStorageClassUpdated", RFC3339.format(object.created()))
        .put("timeFinalized", RFC3339.format(object.created()));
    object.headerFields().forEach(node::put);
    if (!object.userMetadata().isEmpty()) {
      ObjectNode metadata = node.putObject("metadata");
      object.userMetadata().forEach(metadata::put);
    }
    return node;
  }

  private static String etag(StoredObject object) {
    return base64((object.generation() + "/" + object.metageneration()).getBytes(StandardCharsets.US_ASCII));
  }

  private Optional<StoredObject> live(String bucket, String name) {
    Bucket found = buckets.get(bucket);
    return Optional.ofNullable(found == null ? null : found.objects().get(name));
  }

  private static ApiError noSuchObject(String bucket, String name) {
    return new ApiError(404, "notFound", "No such object: " + bucket + "/" + name);
  }

  private static void validateName(String name) {
    if (name.isEmpty() || name.getBytes(StandardCharsets.UTF_8).length > 1024 || name.indexOf('\n') >= 0
        || name.indexOf('\r') >= 0 || name.equals(".") || name.equals("..")) {
      throw new ApiError(400, "invalid", "The object name '" + name + "' is invalid.");
    }
  }

  // ---- HTTP mechanics ----

  private int sendJson(HttpExchange exchange, int status, JsonNode body, Map<String, String> query)
      throws IOException {
    JsonNode shown = query.containsKey("fields") ? FieldMask.parse(query.get("fields")).apply(body) : body;
    byte[] bytes = JSON.writeValueAsBytes(shown);
    exchange.getResponseHeaders().set("Content-Type", "application/json; charset=UTF-8");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
    return status;
  }

  /** GCS's JSON error body: {@code {"error": {"code", "message", "errors": [{message, domain, reason}]}}}. */
  private static byte[] errorBody(ApiError error) {
    if (error.status == 304) {
      return new byte[0];
    }
    ObjectNode body = JSON.createObjectNode();
    ObjectNode inner = body.putObject("error").put("code", error.status).put("message", error.getMessage());
    inner.putArray("errors").addObject()
        .put("message", error.getMessage()).put("domain", "global").put("reason", error.reason);
    try {
      return JSON.writeValueAsBytes(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void sendError(HttpExchange exchange, ApiError error) {
    try {
      if (error.status == 304) {
        exchange.sendResponseHeaders(304, -1);
        return;
      }
      byte[] bytes = errorBody(error);
      exchange.getResponseHeaders().set("Content-Type", "application/json; charset=UTF-8");
      exchange.sendResponseHeaders(error.status, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    } catch (IOException e) {
      LOG.debug("storage stand-in: could not send the error {}", error.getMessage(), e);
    }
  }

  private static byte[] readBody(HttpExchange exchange) throws IOException {
    boolean gzipped = "gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"));
    try (InputStream in = gzipped ? new GZIPInputStream(exchange.getRequestBody()) : exchange.getRequestBody()) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      in.transferTo(out);
      return out.toByteArray();
    }
  }

  /** Query parameters, decoded ({@code +} is a space); the first value of a repeated key wins. */
  private static Map<String, String> parseQuery(String rawQuery) {
    Map<String, String> query = new LinkedHashMap<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return query;
    }
    for (String pair : rawQuery.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int equals = pair.indexOf('=');
      String key = decode(equals < 0 ? pair : pair.substring(0, equals), true);
      String value = equals < 0 ? "" : decode(pair.substring(equals + 1), true);
      query.putIfAbsent(key, value);
    }
    return query;
  }

  /** Percent-decodes into UTF-8 bytes, then into text; invalid UTF-8 is a 400, as GCS refuses it. */
  static String decode(String raw, boolean plusIsSpace) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == '%' && i + 2 < raw.length() && isHex(raw.charAt(i + 1)) && isHex(raw.charAt(i + 2))) {
        bytes.write(Integer.parseInt(raw.substring(i + 1, i + 3), 16));
        i += 2;
      } else if (c == '+' && plusIsSpace) {
        bytes.write(' ');
      } else {
        byte[] encoded = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        if (Character.isHighSurrogate(c) && i + 1 < raw.length()) {
          encoded = raw.substring(i, i + 2).getBytes(StandardCharsets.UTF_8);
          i++;
        }
        bytes.write(encoded, 0, encoded.length);
      }
    }
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes.toByteArray()))
          .toString();
    } catch (CharacterCodingException e) {
      throw new ApiError(400, "invalid", "The name is not valid UTF-8: " + raw);
    }
  }

  private static boolean isHex(char c) {
    return Character.digit(c, 16) >= 0;
  }

  /** Percent-encodes everything but the unreserved characters: a {@code /} in a name is {@code %2F}. */
  static String encode(String text) {
    StringBuilder out = new StringBuilder();
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || c == '-' || c == '.' || c == '_' || c == '~') {
        out.append((char) c);
      } else {
        out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
      }
    }
    return out.toString();
  }

  private static long parseLong(String parameter, String value) {
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new ApiError(400, "invalid", "Invalid value for " + parameter + ": " + value);
    }
  }

  private static long micros(Instant instant) {
    return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1_000L;
  }

  private static byte[] md5(byte[] content) {
    try {
      return MessageDigest.getInstance("MD5").digest(content);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] crc32c(byte[] content) {
    CRC32C crc = new CRC32C();
    crc.update(content);
    return ByteBuffer.allocate(4).putInt((int) crc.getValue()).array();
  }

  private static String base64(byte[] bytes) {
    return Base64.getEncoder().encodeToString(bytes);
  }

  /** Names in GCS's listing order: by UTF-8 bytes, which is code point order. */
  private static int compareCodePoints(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }

  /**
   * The {@code fields=} partial response: {@code a,b/c,items(name,size),prefixes}; a mask on an
   * array applies to each element.
   */
  private record FieldMask(Map<String, FieldMask> children) {
    static FieldMask parse(String spec) {
      int[] at = {0};
      FieldMask mask = parseList(spec, at);
      if (at[0] != spec.length()) {
        throw new ApiError(400, "invalidParameter", "Invalid field selection " + spec);
      }
      return mask;
    }

    private static FieldMask parseList(String spec, int[] at) {
      Map<String, FieldMask> children = new LinkedHashMap<>();
      while (at[0] < spec.length()) {
        int start = at[0];
        while (at[0] < spec.length() && ",/()".indexOf(spec.charAt(at[0])) < 0) {
          at[0]++;
        }
        String name = spec.substring(start, at[0]).trim();
        FieldMask child = null;
        if (at[0] < spec.length() && spec.charAt(at[0]) == '/') {
          at[0]++;
          child = parseSingle(spec, at);
        } else if (at[0] < spec.length() && spec.charAt(at[0]) == '(') {
          at[0]++;
          child = parseList(spec, at);
          if (at[0] >= spec.length() || spec.charAt(at[0]) != ')') {
            throw new ApiError(400, "invalidParameter", "Invalid field selection " + spec);
          }
          at[0]++;
        }
        children.merge(name, child == null ? new FieldMask(null) : child, FieldMask::merge);
        if (at[0] < spec.length() && spec.charAt(at[0]) == ',') {
          at[0]++;
        } else {
          break;
        }
      }
      return new FieldMask(children);
    }

    /** {@code a/b/c}: one path, possibly ending in a parenthesised list. */
    private static FieldMask parseSingle(String spec, int[] at) {
      int start = at[0];
      while (at[0] < spec.length() && ",/()".indexOf(spec.charAt(at[0])) < 0) {
        at[0]++;
      }
      String name = spec.substring(start, at[0]).trim();
      FieldMask child = new FieldMask(null);
      if (at[0] < spec.length() && spec.charAt(at[0]) == '/') {
        at[0]++;
        child = parseSingle(spec, at);
      } else if (at[0] < spec.length() && spec.charAt(at[0]) == '(') {
        at[0]++;
        child = parseList(spec, at);
        at[0]++;
      }
      Map<String, FieldMask> only = new LinkedHashMap<>();
      only.put(name, child);
      return new FieldMask(only);
    }

    private static FieldMask merge(FieldMask a, FieldMask b) {
      if (a.children == null || b.children == null) {
        return new FieldMask(null);
      }
      Map<String, FieldMask> merged = new LinkedHashMap<>(a.children);
      b.children.forEach((k, v) -> merged.merge(k, v, FieldMask::merge));
      return new FieldMask(merged);
    }

    JsonNode apply(JsonNode node) {
      if (children == null) {
        return node;
      }
      if (node.isArray()) {
        ArrayNode out = JSON.createArrayNode();
        node.forEach(element -> out.add(apply(element)));
        return out;
      }
      if (!node.isObject()) {
        return node;
      }
      ObjectNode out = JSON.createObjectNode();
      node.fields().forEachRemaining(entry -> {
        FieldMask child = children.get(entry.getKey());
        if (child != null) {
          out.set(entry.getKey(), child.apply(entry.getValue()));
        }
      });
      return out;
    }
  }
}
