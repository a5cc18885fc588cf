package io.files2iceberg.batcher.engine;

import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import io.files2iceberg.core.match.ObjectLocation;
import io.files2iceberg.core.match.ObjectMatch;
import io.files2iceberg.core.match.ObjectMatcher;
import io.files2iceberg.core.profile.TableProfile;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The tables whose runs stop: {@code strict-pattern = true} and a data file (or marker) that
 * matches the glob but not the pattern stands in the quarantine. The listener quarantined its
 * notification; whether it stops a table is decided here, by matching the quarantined message's
 * object again with the current profiles (never by reading the reason's words), so fixing the
 * profile's pattern, or releasing the message after the object is fixed or removed, clears it.
 */
public final class TableStops {
  private TableStops() {}

  /**
   * One quarantined object that stops its table.
   *
   * @param reason the matcher's sentence, naming the object URI and the pattern
   */
  public record Stop(String table, String messageId, String objectUri, String reason) {
    public Stop {
      Objects.requireNonNull(table, "table");
      Objects.requireNonNull(messageId, "messageId");
      Objects.requireNonNull(objectUri, "objectUri");
      Objects.requireNonNull(reason, "reason");
    }

    /** What to do about it, one line. */
    public String remedy() {
      return "fix or remove the object (or change the profile's extract.batch-file.pattern), then run"
          + " `files2iceberg quarantine release --message " + messageId + "` (with --discard once the object is"
          + " gone)";
    }

    /** The error of a run this stopped: the table, the file, why, and how to clear it. */
    public String describe() {
      return table + ": stopped by " + objectUri + " (quarantined message " + messageId + "): " + reason
          + "; no batch of the table runs until it is cleared: " + remedy();
    }
  }

  /**
   * The stops of the given profiles' tables, by table, in quarantine order.
   *
   * @throws io.files2iceberg.core.ledger.LedgerUnavailableException when the quarantine cannot be
   *     read
   */
  public static Map<String, List<Stop>> read(Ledger ledger, List<TableProfile> profiles) {
    Map<String, List<Stop>> stops = new LinkedHashMap<>();
    if (profiles.isEmpty()) {
      return stops;
    }
    ObjectMatcher matcher = new ObjectMatcher(profiles);
    for (QuarantinedMessage message : ledger.quarantinedMessages()) {
      if (message.objectUri().isEmpty()) {
        continue;
      }
      ObjectLocation object;
      try {
        object = ObjectLocation.parse(message.objectUri().get());
      } catch (IllegalArgumentException e) {
        continue;
      }
      // Neither generation nor size takes part in a pattern rejection (-1: size unknown, not 0).
      if (matcher.match(object, 0, -1) instanceof ObjectMatch.Rejected rejected && rejected.stopsTheTable()) {
        String table = rejected.profile().table();
        stops.computeIfAbsent(table, t -> new ArrayList<>())
            .add(new Stop(table, message.messageId(), object.uri(), rejected.reason()));
      }
    }
    return stops;
  }
}
