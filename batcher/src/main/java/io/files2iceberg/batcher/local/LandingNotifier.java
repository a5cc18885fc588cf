package io.files2iceberg.batcher.local;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.batcher.output.Counted;
import io.files2iceberg.core.match.ObjectLocation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded mode's stand-in for GCS notifications and Pub/Sub push: scans a landing folder and
 * posts, for every new or changed regular file, the push envelope production receives for an
 * {@code OBJECT_FINALIZE} ({@code JSON_API_V1}) to the listener's push endpoint.
 *
 * <p>A local file is an object of the empty bucket, as the listener's parser and its marker listing
 * expect: {@code bucketId} is {@code ""}, {@code objectId} is the absolute path without its
 * leading {@code /}, and the generation is the last-modified time in microseconds. A file whose
 * generation changes is posted again, as GCS notifies an overwrite.
 *
 * <p>Ordering and delivery follow Pub/Sub's guarantees, not stronger ones: within one scan data
 * files are posted before success markers, but the listener copes with any order; a {@code 503}
 * (or an I/O error) is retried with backoff a few times and otherwise left for the next scan, so
 * delivery is at least once. Redelivery is harmless (the listener answers {@code duplicate}), so
 * what has been delivered is remembered in memory only.
 *
 * <p>A data file is posted once it has settled: unchanged (size and modification time) since the
 * previous scan, or last modified at least {@link #SETTLE} ago, so that a file still being written
 * is not announced half-written. A success marker is posted as soon as it is seen: its content is
 * never read, it only says that the files written before it are complete, and a marker posted
 * again is harmless. Hidden files and folders (a name starting with {@code .}) are skipped:
 * editors and Spark stage their output there.
 *
 * <p>Not thread-safe: one thread scans.
 */
public final class LandingNotifier {
  private static final Logger LOG = LoggerFactory.getLogger(LandingNotifier.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** How long a file must be unmodified before it is posted without a second look. */
  public static final Duration SETTLE = Duration.ofSeconds(1);
  /** The header the listener names the outcome in. */
  static final String OUTCOME_HEADER = "X-Files2iceberg-Outcome";
  static final String NOTIFICATION_CONFIG = "projects/_/buckets/local/notificationConfigs/files2iceberg-local";
  static final String SUBSCRIPTION = "projects/_/subscriptions/files2iceberg-local";
  private static final int ATTEMPTS = 5;
  private static final Duration FIRST_BACKOFF = Duration.ofMillis(200);

  private final Path landing;
  private final URI pushUrl;
  private final Set<String> markerNames;
  private final HttpClient http;
  private final Clock clock;
  /** Delivered files: path to generation. */
  private final Map<Path, Long> delivered = new HashMap<>();
  /** What the previous scan saw of files not yet delivered: path to (size, generation). */
  private final Map<Path, Seen> lastSeen = new HashMap<>();

  /**
   * @param landing the folder that stands in for the bucket
   * @param pushUrl the listener's push endpoint, such as {@code http://127.0.0.1:8080/pubsub/push}
   * @param markerNames names of success markers (the profiles' {@code success-file-name}), posted
   *     after the data files of a scan
   */
  public LandingNotifier(Path landing, URI pushUrl, Set<String> markerNames, Clock clock) {
    this.landing = landing.toAbsolutePath().normalize();
    this.pushUrl = Objects.requireNonNull(pushUrl, "pushUrl");
    this.markerNames = Set.copyOf(markerNames);
    this.clock = Objects.requireNonNull(clock, "clock");
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  }

  public Path landing() {
    return landing;
  }

  /**
   * One pass over the landing folder: posts every settled file that is new or has a new
   * generation, data files first.
   *
   * @throws NotifierException when the listener refuses a message for good (a {@code 4xx}: the
   *     push path or the authentication is wrong)
   */
  public ScanResult scan() throws InterruptedException {
    List<LocalObject> due = new ArrayList<>();
    List<LocalObject> markers = new ArrayList<>();
    int unsettled = 0;
    Instant nextSettle = null;
    Instant now = clock.instant();
    Map<Path, Seen> seenNow = new HashMap<>();
    for (LocalObject object : list()) {
      Long known = delivered.get(object.path());
      if (known != null && known == object.generation()) {
        continue;
      }
      Seen seen = new Seen(object.size(), object.generation());
      boolean marker = markerNames.contains(object.path().getFileName().toString());
      Instant settles = object.modified().plus(SETTLE);
      boolean settled = marker || seen.equals(lastSeen.get(object.path())) || !settles.isAfter(now);
      if (!settled) {
        seenNow.put(object.path(), seen);
        unsettled++;
        nextSettle = nextSettle == null || settles.isBefore(nextSettle) ? settles : nextSettle;
        continue;
      }
      (marker ? markers : due).add(object);
    }
    due.addAll(markers);

    Map<Outcome, Integer> outcomes = new EnumMap<>(Outcome.class);
    int pending = 0;
    for (LocalObject object : due) {
      Outcome outcome = post(object);
      if (outcome == Outcome.PENDING) {
        pending++;
        seenNow.put(object.path(), new Seen(object.size(), object.generation()));
        continue;
      }
      delivered.put(object.path(), object.generation());
      outcomes.merge(outcome, 1, Integer::sum);
    }
    lastSeen.clear();
    lastSeen.putAll(seenNow);
    int markersPosted = (int) markers.stream().filter(m -> delivered.containsKey(m.path())).count();
    return new ScanResult(outcomes, markersPosted, pending, unsettled, Optional.ofNullable(nextSettle));
  }

  /** Every regular, non-hidden file under the landing folder, sorted by path. */
  private List<LocalObject> list() {
    List<LocalObject> objects = new ArrayList<>();
    if (!Files.isDirectory(landing)) {
      return objects;
    }
    try {
      Files.walkFileTree(landing, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
          return !dir.equals(landing) && isHidden(dir) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
          if (attributes.isRegularFile() && !isHidden(file)) {
            objects.add(new LocalObject(file, attributes.size(), generationOf(attributes),
                attributes.lastModifiedTime().toInstant()));
          }
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) {
          // A file deleted or renamed between listing and reading: the next scan sees what is there.
          if (!(e instanceof NoSuchFileException)) {
            LOG.warn("Cannot read {}: {}", file, e.toString());
          }
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot scan the landing folder " + landing, e);
    }
    objects.sort((a, b) -> a.path().compareTo(b.path()));
    return objects;
  }

  /** Whether a file or folder (not the landing folder itself) is hidden: its name starts with {@code .}. */
  static boolean isHidden(Path path) {
    return path.getFileName().toString().startsWith(".");
  }

  /** Posts one envelope, retrying what Pub/Sub would redeliver. */
  private Outcome post(LocalObject object) throws InterruptedException {
    String body = envelope(object, clock.instant());
    HttpRequest request = HttpRequest.newBuilder(pushUrl)
        .timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
        .build();
    Duration backoff = FIRST_BACKOFF;
    String lastProblem = "";
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        int status = response.statusCode();
        if (status / 100 == 2) {
          Outcome outcome = Outcome.fromHeader(response.headers().firstValue(OUTCOME_HEADER).orElse(""));
          LOG.debug("Posted {} (generation {}): {}", object.uri(), object.generation(), outcome.code());
          return outcome;
        }
        if (status / 100 == 4 && status != 429) {
          throw new NotifierException("The listener at " + pushUrl + " refused the notification of "
              + object.uri() + " with " + status + ": " + response.body().strip());
        }
        lastProblem = "HTTP " + status;
      } catch (IOException e) {
        lastProblem = e.toString();
      }
      if (attempt < ATTEMPTS) {
        TimeUnit.MILLISECONDS.sleep(backoff.toMillis());
        backoff = backoff.multipliedBy(2);
      }
    }
    LOG.warn("The notification of {} was not acknowledged ({}); the next scan posts it again", object.uri(),
        lastProblem);
    return Outcome.PENDING;
  }

  /**
   * The push envelope {@link #scan} posts for this one file as it is now: for a caller that
   * notifies a single object itself (the benchmarks post one marker over a large folder).
   */
  public static String envelopeOf(Path file, Instant publishTime) throws IOException {
    BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
    return envelope(new LocalObject(file, attributes.size(), generationOf(attributes),
        attributes.lastModifiedTime().toInstant()), publishTime);
  }

  /** The Pub/Sub push envelope of a GCS {@code OBJECT_FINALIZE} notification of this file. */
  static String envelope(LocalObject object, Instant publishTime) {
    ObjectLocation location = ObjectLocation.file(object.path());
    String generation = Long.toString(object.generation());
    String modified = object.modified().toString();

    ObjectNode resource = JSON.createObjectNode();
    resource.put("kind", "storage#object");
    resource.put("id", "/" + location.name() + "/" + generation);
    resource.put("selfLink", location.uri());
    resource.put("name", location.name());
    resource.put("bucket", "");
    resource.put("generation", generation);
    resource.put("metageneration", "1");
    resource.put("contentType", contentType(object.path()));
    resource.put("timeCreated", modified);
    resource.put("updated", modified);
    resource.put("storageClass", "STANDARD");
    resource.put("size", Long.toString(object.size()));

    ObjectNode message = JSON.createObjectNode();
    ObjectNode attributes = message.putObject("attributes");
    attributes.put("eventType", "OBJECT_FINALIZE");
    attributes.put("bucketId", "");
    attributes.put("objectId", location.name());
    attributes.put("objectGeneration", generation);
    attributes.put("payloadFormat", "JSON_API_V1");
    attributes.put("notificationConfig", NOTIFICATION_CONFIG);
    attributes.put("eventTime", modified);
    message.put("data", Base64.getEncoder().encodeToString(resource.toString().getBytes(StandardCharsets.UTF_8)));
    message.put("messageId", messageId(location, object.generation()));
    message.put("publishTime", publishTime.toString());

    ObjectNode root = JSON.createObjectNode();
    root.set("message", message);
    root.put("subscription", SUBSCRIPTION);
    return root.toString();
  }

  /** {@code local-} and a hash of the object and its generation: stable across redeliveries. */
  static String messageId(ObjectLocation location, long generation) {
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256")
          .digest((location.uri() + "#" + generation).getBytes(StandardCharsets.UTF_8));
      return "local-" + HexFormat.of().formatHex(hash, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** The generation of a local file: its last-modified time in microseconds, as the listener lists it. */
  static long generationOf(BasicFileAttributes attributes) {
    return ObjectLocation.localGeneration(attributes);
  }

  private static String contentType(Path path) {
    String name = path.getFileName().toString();
    if (name.endsWith(".json") || name.endsWith(".jsonl")) {
      return "application/json";
    }
    if (name.endsWith(".csv")) {
      return "text/csv";
    }
    return "application/octet-stream";
  }

  /** One regular file of the landing folder. */
  record LocalObject(Path path, long size, long generation, Instant modified) {
    String uri() {
      return ObjectLocation.file(path).uri();
    }
  }

  private record Seen(long size, long generation) {}

  /** The listener's answer to one notification, from its outcome header. */
  public enum Outcome {
    RECORDED("recorded"),
    DUPLICATE("duplicate"),
    PARTITION_READY("partition_ready"),
    IGNORED("ignored"),
    QUARANTINED("quarantined"),
    /** Acknowledged without an outcome header (another push endpoint). */
    ACKNOWLEDGED("acknowledged"),
    /** Not acknowledged after every retry: the next scan posts it again. */
    PENDING("pending");

    private final String code;

    Outcome(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }

    static Outcome fromHeader(String header) {
      for (Outcome outcome : values()) {
        if (outcome.code.equalsIgnoreCase(header.trim())) {
          return outcome;
        }
      }
      return ACKNOWLEDGED;
    }
  }

  /**
   * What one scan did.
   *
   * @param outcomes acknowledged notifications by the listener's outcome
   * @param markers success markers among them
   * @param pending notifications not acknowledged, posted again by the next scan
   * @param unsettled files still being written, posted by a later scan
   * @param nextSettle when the first of those has been left alone for {@link #SETTLE}: the time to
   *     look again
   */
  public record ScanResult(Map<Outcome, Integer> outcomes, int markers, int pending, int unsettled,
      Optional<Instant> nextSettle) {
    public ScanResult {
      outcomes = Map.copyOf(outcomes);
      Objects.requireNonNull(nextSettle, "nextSettle");
    }

    /** Notifications the listener acknowledged. */
    public int posted() {
      return outcomes.values().stream().mapToInt(Integer::intValue).sum();
    }

    public int count(Outcome outcome) {
      return outcomes.getOrDefault(outcome, 0);
    }

    /** Whether the scan found nothing to post and nothing left for later. */
    public boolean isQuiet() {
      return posted() == 0 && pending == 0 && unsettled == 0;
    }

    /** {@code 12 notifications (3 markers): 9 recorded, 3 partition_ready}. */
    public String describe() {
      StringBuilder text = new StringBuilder()
          .append(Counted.of(posted(), "notification", "notifications"));
      if (markers > 0) {
        text.append(" (").append(Counted.of(markers, "marker", "markers")).append(')');
      }
      String separator = ": ";
      for (Outcome outcome : Outcome.values()) {
        int count = count(outcome);
        if (count > 0) {
          text.append(separator).append(count).append(' ').append(outcome.code());
          separator = ", ";
        }
      }
      if (pending > 0) {
        text.append("; ").append(pending).append(" not acknowledged yet");
      }
      return text.toString();
    }
  }
}
