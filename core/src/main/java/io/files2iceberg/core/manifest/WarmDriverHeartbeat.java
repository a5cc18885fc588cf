package io.files2iceberg.core.manifest;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Objects;

/**
 * What {@code driver.json} says in a warm driver's folder on Cloud Storage ({@link WarmRequest}'s
 * layout), where no file lock exists: which driver holds the folder, with which settings, when it
 * last said it was alive, and whether it still serves. The driver writes it with generation
 * preconditions (created only where none exists, replaced only at the generation it read), so two
 * drivers never both hold it; it renews it every {@link #INTERVAL}, and a holder silent for {@link
 * #STALE} counts as dead for the driver that takes the folder over and for a batcher that cannot
 * ask Dataproc.
 *
 * @param driverId the driver's Dataproc batch id (Serverless) or job id (cluster)
 * @param fingerprint the job settings it runs ({@link WarmRequest#fingerprint})
 * @param heartbeat when it last renewed this
 * @param serving false once it has stopped taking requests and exits
 */
public record WarmDriverHeartbeat(String driverId, String fingerprint, Instant heartbeat, boolean serving) {

  public static final String FORMAT = "files2iceberg-warm-driver";
  /** How often a serving driver renews its heartbeat. */
  public static final Duration INTERVAL = Duration.ofSeconds(5);
  /** A heartbeat older than this is a dead driver's. */
  public static final Duration STALE = Duration.ofSeconds(60);


  public WarmDriverHeartbeat {
    Objects.requireNonNull(driverId, "driverId");
    Objects.requireNonNull(fingerprint, "fingerprint");
    Objects.requireNonNull(heartbeat, "heartbeat");
  }

  /** Whether the holder serves and renewed its heartbeat within {@link #STALE} of {@code now}. */
  public boolean isAlive(Instant now) {
    return serving && !heartbeat.plus(STALE).isBefore(now);
  }

  /**
   * The sequence number at the end of a driver id ({@code f2i-warm-<folder hash>-<N>}), from
   * which a batcher counts the next driver's; 0 when the id ends in none.
   */
  public long sequence() {
    int dash = driverId.lastIndexOf('-');
    try {
      return dash < 0 ? 0 : Long.parseLong(driverId.substring(dash + 1));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** The document of {@code driver.json}. */
  @JsonPropertyOrder({"format", "driver", "fingerprint", "heartbeat", "serving"})
  record Json(String format, String driver, String fingerprint, String heartbeat, Boolean serving)
      implements JsonCodec.Document {}

  /** One line: {@code {"format":"files2iceberg-warm-driver","driver":...,"serving":true}}. */
  public String toJson() {
    return JsonCodec.compact(new Json(FORMAT, driverId, fingerprint, heartbeat.toString(), serving));
  }

  /**
   * Reads one.
   *
   * @throws IllegalArgumentException naming {@code source} and the field when it is not one
   */
  public static WarmDriverHeartbeat fromJson(String json, String source) {
    JsonCodec.Reading reading = new JsonCodec.Reading("warm driver file", source);
    Json read = reading.read(json, Json.class, FORMAT);
    String driver = reading.text("driver", read.driver());
    String fingerprint = reading.text("fingerprint", read.fingerprint());
    String beat = reading.text("heartbeat", read.heartbeat());
    if (read.serving() == null) {
      throw reading.invalid("serving", "expected true or false");
    }
    Instant heartbeat;
    try {
      heartbeat = Instant.parse(beat);
    } catch (DateTimeParseException e) {
      IllegalArgumentException invalid = reading.invalid("heartbeat", "not an instant: \"" + beat + "\"");
      invalid.initCause(e);
      throw invalid;
    }
    return new WarmDriverHeartbeat(driver, fingerprint, heartbeat, read.serving());
  }
}
