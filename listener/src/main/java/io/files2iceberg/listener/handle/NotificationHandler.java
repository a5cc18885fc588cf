package io.files2iceberg.listener.handle;

import io.files2iceberg.core.ledger.FileRecorded;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.LedgerUnavailableException;
import io.files2iceberg.core.ledger.MarkReady;
import io.files2iceberg.core.ledger.PartitionRecord;
import io.files2iceberg.core.ledger.PartitionState;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import io.files2iceberg.core.ledger.RecordFile;
import io.files2iceberg.core.logging.LogLabels;
import io.files2iceberg.core.match.ObjectLocation;
import io.files2iceberg.core.match.ObjectMatch;
import io.files2iceberg.core.match.ObjectMatch.DataFile;
import io.files2iceberg.core.match.ObjectMatch.Ignored;
import io.files2iceberg.core.match.ObjectMatch.Rejected;
import io.files2iceberg.core.match.ObjectMatch.SuccessMarker;
import io.files2iceberg.core.match.ObjectMatcher;
import io.files2iceberg.core.match.PartitionRef;
import io.files2iceberg.core.profile.ProfileRegistry;
import io.files2iceberg.listener.handle.ObjectListing.ListingFailedException;
import io.files2iceberg.listener.handle.StorageNotification.ObjectFinalized;
import io.files2iceberg.listener.handle.StorageNotification.OtherObjectEvent;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Turns one Pub/Sub message about a Cloud Storage object into ledger records, whatever the
 * transport: the push controller and the pull subscriber both call {@link #handle} and reply from
 * its {@link Outcome} alone (acknowledge when {@link Outcome#isAck()}, else have Pub/Sub redeliver).
 *
 * <p>Exactly once rests on three rules:
 *
 * <ul>
 *   <li>An acknowledging outcome is returned only after the ledger write it stands for has
 *       committed; a failure the ledger or the storage names as transient returns {@link
 *       Outcome#RETRY}, so Pub/Sub redelivers and nothing is lost.
 *   <li>Every write is idempotent: a file is keyed by {@code bucket/name#generation}, so a
 *       redelivery (or a notification after the marker's listing found the file) is {@link
 *       Outcome#DUPLICATE}; a quarantined message is keyed by its message id.
 *   <li>A success marker lists its partition's folder once and records the files found there
 *       <em>before</em> it marks the partition READY: Pub/Sub does not order messages, and a
 *       READY partition must hold all its files.
 * </ul>
 *
 * A message that can never succeed (unreadable, or an object the matcher rejects) is written to
 * the ledger's quarantine with its raw payload and acknowledged, so it never loops. Thread-safe.
 *
 * <p>Every log line about a message carries the message id and, once known, the object URI, in the
 * text and as the MDC keys {@value #MDC_MESSAGE_ID} and {@value #MDC_OBJECT_URI}.
 */
public final class NotificationHandler {
  private static final Logger LOG = LoggerFactory.getLogger(NotificationHandler.class);

  /** MDC key of the Pub/Sub message id while a message is handled. */
  public static final String MDC_MESSAGE_ID = LogLabels.MDC_MESSAGE_ID;
  /** MDC key of the object URI while a message is handled. */
  public static final String MDC_OBJECT_URI = LogLabels.MDC_OBJECT_URI;
  /** MDC key of the table, once the object matched a profile. */
  public static final String MDC_TABLE = LogLabels.MDC_TABLE;
  /** MDC key of the partition token, once the object matched a profile. */
  public static final String MDC_PARTITION = LogLabels.MDC_PARTITION;
  /** The event id prefix of files recorded from a marker's listing: {@code listing:<messageId>}. */
  public static final String LISTING_EVENT_PREFIX = "listing:";
  /** The reason code of notifications for tables whose batcher lists storage (mode full). */
  static final String LISTED_TABLE = "table-loaded-by-listing";
  /** The size recorded for a data file whose notification carries none ({@code NONE} payload). */
  public static final long UNKNOWN_SIZE = -1;

  private final Ledger ledger;
  private final ObjectMatcher matcher;
  private final boolean listPrefixOnMarker;
  private final ListenerMetrics metrics;
  private final Clock clock;
  private final MarkerListing markerListing;

  /**
   * @param profiles the deployment's table profiles, which decide what each object is, and its
   *     listener settings ({@code list-prefix-on-marker})
   * @param listing lists a marker's folder
   * @param meters where the listener's meters go
   */
  public NotificationHandler(Ledger ledger, ProfileRegistry profiles, ObjectListing listing, MeterRegistry meters,
      Clock clock) {
    this.ledger = Objects.requireNonNull(ledger, "ledger");
    this.matcher = new ObjectMatcher(profiles.profiles());
    this.listPrefixOnMarker = profiles.deployment().listener().listPrefixOnMarker();
    this.metrics = new ListenerMetrics(Objects.requireNonNull(meters, "meters"));
    this.clock = Objects.requireNonNull(clock, "clock");
    this.markerListing = new MarkerListing(ledger, matcher, Objects.requireNonNull(listing, "listing"), metrics);
  }

  /** Handles one message; the reply is the outcome's alone. Never throws. */
  public Outcome handle(ReceivedMessage message) {
    Objects.requireNonNull(message, "message");
    MDC.put(MDC_MESSAGE_ID, message.messageId());
    try {
      return decide(message).outcome();
    } catch (RuntimeException e) {
      LOG.error("Message {}: handling failed unexpectedly; it will be redelivered", message.messageId(), e);
      return finish(message.messageId(), Optional.empty(), new Handled(Outcome.RETRY, "unexpected-error", e.toString()))
          .outcome();
    } finally {
      MDC.remove(MDC_PARTITION);
      MDC.remove(MDC_TABLE);
      MDC.remove(MDC_OBJECT_URI);
      MDC.remove(MDC_MESSAGE_ID);
    }
  }

  /**
   * Quarantines a message a transport could not even unpack (a push body that is not a Pub/Sub
   * envelope, data that is not base64): {@link Outcome#QUARANTINED}, or {@link Outcome#RETRY} when
   * the quarantine write itself failed transiently.
   *
   * @param messageId the quarantine key: the message id and a digest of the message's content
   *     ({@link ReceivedMessage#quarantineKey}) when the envelope names an id, else a hash of the
   *     payload
   * @param kind why, as the metrics reason code
   * @param reason the sentence stored with the quarantine record
   * @param rawPayload what was received, as text
   */
  public Outcome handleUnreadable(
      String messageId, QuarantineReason kind, String reason, String rawPayload) {
    MDC.put(MDC_MESSAGE_ID, messageId);
    try {
      return finish(
              messageId,
              Optional.empty(),
              guarded(() -> quarantine(messageId, kind, reason, rawPayload, Optional.empty())))
          .outcome();
    } finally {
      MDC.remove(MDC_MESSAGE_ID);
    }
  }

  private Handled decide(ReceivedMessage message) {
    String messageId = message.messageId();
    StorageNotification notification;
    try {
      notification = NotificationParser.parse(message, clock.instant());
    } catch (UnreadableNotificationException e) {
      e.objectUri().ifPresent(uri -> MDC.put(MDC_OBJECT_URI, uri));
      // Keyed by id and content: another body under this id is a record of its own.
      String key = message.contentKey();
      return finish(
          messageId,
          e.objectUri(),
          guarded(() -> quarantine(key, e.reason(), e.getMessage(), message.rawPayload(), e.objectUri())));
    }
    if (notification instanceof OtherObjectEvent other) {
      other.objectUri().ifPresent(uri -> MDC.put(MDC_OBJECT_URI, uri));
      String reason =
          "event-type-" + other.knownType().map(t -> t.name().toLowerCase(Locale.ROOT)).orElse("unknown");
      return finish(messageId, other.objectUri(), new Handled(Outcome.IGNORED, reason, "event type " + other.eventType()));
    }
    ObjectFinalized finalized = (ObjectFinalized) notification;
    String uri = finalized.object().uri();
    MDC.put(MDC_OBJECT_URI, uri);
    return finish(messageId, Optional.of(uri), guarded(() -> onFinalized(message, finalized)));
  }

  private Handled onFinalized(ReceivedMessage message, ObjectFinalized finalized) {
    // A size the notification does not carry is unknown, not zero: the matcher skips only
    // zero-byte files, so an unknown size still makes a data file.
    ObjectMatch match =
        matcher.match(finalized.object(), finalized.generation(), finalized.size().orElse(UNKNOWN_SIZE));
    if (match instanceof DataFile dataFile && dataFile.profile().extract().listsStorage()
        || match instanceof SuccessMarker listedMarker && listedMarker.profile().extract().listsStorage()) {
      return new Handled(Outcome.IGNORED, LISTED_TABLE, "table loaded by listing storage (mode full or"
          + " save-checkpoint = false): nothing to record");
    }
    if (match instanceof DataFile dataFile) {
      MDC.put(MDC_TABLE, dataFile.partition().table());
      MDC.put(MDC_PARTITION, dataFile.partition().token());
      return record(message.messageId(), finalized, dataFile);
    }
    if (match instanceof SuccessMarker marker) {
      MDC.put(MDC_TABLE, marker.partition().table());
      MDC.put(MDC_PARTITION, marker.partition().token());
      return markerLanded(message, finalized, marker);
    }
    if (match instanceof Ignored ignored) {
      return new Handled(Outcome.IGNORED, reasonCode(ignored.reason()), ignored.reason());
    }
    Rejected rejected = (Rejected) match;
    String reason = "profile \"" + rejected.profile().name() + "\": " + rejected.reason();
    if (rejected.kind() == Rejected.Kind.PATTERN_MISMATCH && !rejected.stopsTheTable()) {
      // strict-pattern off: kept for the operator, counted, and the table goes on.
      Handled handled =
          quarantine(
              message.messageId(), QuarantineReason.PATTERN_MISMATCH, reason, message.rawPayload(),
              Optional.of(finalized.object().uri()));
      metrics.patternMismatch(rejected.profile().table());
      MDC.put(MDC_TABLE, rejected.profile().table());
      return handled;
    }
    if (rejected.stopsTheTable()) {
      // The batcher re-matches the quarantined object and stops the table while it stands.
      LOG.error(
          "Message {} for {}: table {} stops until it is cleared: {}",
          message.messageId(), finalized.object().uri(), rejected.profile().table(), reason);
    }
    return quarantine(
        message.messageId(),
        QuarantineReason.REJECTED_BY_MATCHER,
        reason,
        message.rawPayload(),
        Optional.of(finalized.object().uri()));
  }

  private Handled record(String messageId, ObjectFinalized finalized, DataFile dataFile) {
    PartitionRef partition = dataFile.partition();
    ObjectLocation object = finalized.object();
    RecordFile command =
        RecordFile.of(
            partition.table(),
            partition.token(),
            object,
            finalized.generation(),
            finalized.size().orElse(UNKNOWN_SIZE),
            messageId,
            finalized.eventTime(),
            finalized.overwroteGeneration(),
            !dataFile.profile().extract().batchFile().successFileFilter());
    FileRecorded recorded = metrics.ledgerWrite("record-file", partition.table(), () -> ledger.recordFile(command));
    if (!recorded.isNew()) {
      return new Handled(
          Outcome.DUPLICATE,
          "same-generation",
          "generation " + finalized.generation() + " already recorded (event " + recorded.file().eventId()
              + ", state " + recorded.file().state() + ")");
    }
    return new Handled(
        Outcome.RECORDED,
        finalized.overwroteGeneration().isPresent() ? "new-generation" : "new-file",
        "table " + partition.table() + " partition " + partition.token() + " generation "
            + finalized.generation() + ", partition " + recorded.partition().state());
  }

  private Handled markerLanded(ReceivedMessage message, ObjectFinalized finalized, SuccessMarker marker) {
    String messageId = message.messageId();
    PartitionRef partition = marker.partition();
    int found = 0;
    if (listPrefixOnMarker) {
      try {
        found = markerListing.recordListedFiles(messageId, finalized, marker);
      } catch (ListingFailedException e) {
        if (e.isRetryable()) {
          throw e;
        }
        // The partition must not become READY without its listing; an operator releases the
        // marker from the quarantine once the folder can be listed.
        return quarantine(
            messageId, QuarantineReason.LISTING_FAILED, e.getMessage(), message.rawPayload(),
            Optional.of(finalized.object().uri()));
      }
    }
    // Only now: every file the folder held is recorded, so the READY partition is complete.
    PartitionRecord ready =
        metrics.ledgerWrite(
            "mark-ready",
            partition.table(),
            () ->
                ledger.markReady(
                    new MarkReady(
                        partition.table(),
                        partition.token(),
                        partition.prefix(),
                        messageId,
                        finalized.eventTime())));
    if (ready.state() == PartitionState.INGESTED) {
      // markReady leaves an INGESTED partition as it is only when nothing of it is pending: the
      // marker (a redelivery, or a second marker) changed nothing.
      return new Handled(
          Outcome.DUPLICATE,
          "partition-ingested",
          "table " + partition.table() + " partition " + partition.token()
              + " is already INGESTED with no file pending"
              + (listPrefixOnMarker ? " (the listing found no new file)" : ""));
    }
    return new Handled(
        Outcome.PARTITION_READY,
        "success-marker",
        "table " + partition.table() + " partition " + partition.token() + " is " + ready.state()
            + (listPrefixOnMarker ? ", " + found + " file(s) recorded from the listing" : ""));
  }

  private Handled quarantine(
      String messageId,
      QuarantineReason kind,
      String reason,
      String rawPayload,
      Optional<String> objectUri) {
    metrics.ledgerWrite(
        "quarantine-message",
        Optional.ofNullable(MDC.get(MDC_TABLE)).orElse(ListenerMetrics.NO_TABLE),
        () -> {
          ledger.quarantineMessage(
              new QuarantinedMessage(messageId, reason, rawPayload, objectUri, clock.instant()));
          return null;
        });
    metrics.quarantined(kind);
    return new Handled(Outcome.QUARANTINED, kind.code(), reason);
  }

  /**
   * Runs a step that writes the ledger, turning failures into outcomes: transient ones into
   * {@link Outcome#RETRY}, a listing that can never succeed into a quarantine.
   */
  private Handled guarded(Step step) {
    try {
      return step.run();
    } catch (LedgerUnavailableException e) {
      return new Handled(Outcome.RETRY, "ledger-unavailable", "the ledger is unavailable: " + e.getMessage());
    } catch (ListingFailedException e) {
      // Only retryable listing failures get here; the others are quarantined where they happen.
      return new Handled(Outcome.RETRY, "listing-unavailable", e.getMessage());
    } catch (RuntimeException e) {
      // Not named retryable, but not known to be permanent either: redeliver, and let the
      // subscription's dead-letter policy bound the attempts. Quarantining here could park a
      // healthy message behind a bug or an outage of a kind not classified yet.
      LOG.error("Message {}: handling failed unexpectedly; it will be redelivered", MDC.get(MDC_MESSAGE_ID), e);
      return new Handled(Outcome.RETRY, "unexpected-error", e.toString());
    }
  }

  private Handled finish(String messageId, Optional<String> objectUri, Handled handled) {
    metrics.handled(handled.outcome(), handled.reason());
    String about = objectUri.map(uri -> " for " + uri).orElse("");
    switch (handled.outcome()) {
      case RECORDED, PARTITION_READY -> LOG.info(
          "Message {}{}: {} ({}): {}", messageId, about, handled.outcome(), handled.reason(), handled.detail());
      case DUPLICATE -> LOG.info(
          "Message {}{}: {} ({}): {}", messageId, about, handled.outcome(), handled.reason(), handled.detail());
      case IGNORED -> LOG.debug(
          "Message {}{}: {} ({}): {}", messageId, about, handled.outcome(), handled.reason(), handled.detail());
      case QUARANTINED, RETRY -> LOG.warn(
          "Message {}{}: {} ({}): {}", messageId, about, handled.outcome(), handled.reason(), handled.detail());
    }
    return handled;
  }

  @FunctionalInterface
  private interface Step {
    Handled run();
  }

  /**
   * What one message came to.
   *
   * @param reason a metrics tag value: a short code from a bounded set
   * @param detail a sentence for the log
   */
  private record Handled(Outcome outcome, String reason, String detail) {}

  /** A matcher's fixed reason sentence as a tag value: the words before any parenthesis. */
  static String reasonCode(String sentence) {
    int parenthesis = sentence.indexOf('(');
    String words = parenthesis < 0 ? sentence : sentence.substring(0, parenthesis);
    String code = words.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-|-$", "");
    return code.isEmpty() ? "ignored" : code;
  }
}
