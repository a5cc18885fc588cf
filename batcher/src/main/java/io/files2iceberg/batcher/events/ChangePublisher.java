package io.files2iceberg.batcher.events;

import io.files2iceberg.core.ledger.ChangeEvent;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.profile.Deployment;
import io.files2iceberg.core.profile.Home;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the change events of the ledger's outbox ({@link Ledger#pendingEvents}) to the
 * deployment's sink ({@code events.pubsub-topic}, else {@code <home>/events/changes.jsonl}) and
 * acknowledges those the sink took. At least once: an event is acknowledged only after the sink
 * has it, so a crash or a failed acknowledgement sends it again; consumers deduplicate by {@code
 * eventId}.
 *
 * <p>Never in the way of a commit: the events were written with their changes, and {@link
 * #publishPending()} logs a failure and leaves the events for its next call (after the next
 * settlement, at the start of the next run) rather than throw.
 */
public final class ChangePublisher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ChangePublisher.class);
  /** Events read from the outbox and sent at once. */
  static final int PAGE = 100;

  private final Ledger ledger;
  private final Supplier<ChangeSink> opener;
  private ChangeSink sink;

  ChangePublisher(Ledger ledger, Supplier<ChangeSink> opener) {
    this.ledger = Objects.requireNonNull(ledger, "ledger");
    this.opener = Objects.requireNonNull(opener, "opener");
  }

  /** The deployment's publisher: to its Pub/Sub topic when it names one, else to the home's file. */
  public static ChangePublisher of(Deployment deployment, Home home, Ledger ledger) {
    return deployment.events().pubsubTopic()
        .map(topic -> new ChangePublisher(ledger, () -> PubSubChangeSink.open(topic)))
        .orElseGet(() -> new ChangePublisher(ledger, () -> new ChangeEventFile(ChangeEventFile.in(home.root()))));
  }

  /**
   * Sends every pending event, a page at a time, until none is left or the sink took less than a
   * page; never throws.
   *
   * @return how many events were published and acknowledged
   */
  public synchronized int publishPending() {
    int published = 0;
    try {
      while (true) {
        List<ChangeEvent> pending = ledger.pendingEvents(PAGE);
        if (pending.isEmpty()) {
          break;
        }
        List<String> taken = sink().send(pending);
        if (!taken.isEmpty()) {
          ledger.acknowledgeEvents(taken);
          published += taken.size();
        }
        if (taken.size() < pending.size()) {
          LOG.warn("{} of {} change event(s) not published to {}; they are published on the next run",
              pending.size() - taken.size(), pending.size(), sink.describe());
          break;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      LOG.warn("Publishing change events interrupted; the rest are published on the next run");
    } catch (Exception e) {
      // The ledger unavailable or the sink refusing: the events stay in the outbox.
      LOG.warn("Cannot publish change events{}; they are published on the next run: {}",
          sink == null ? "" : " to " + sink.describe(), e.toString());
    }
    if (published > 0) {
      LOG.info("Published {} change event(s) to {}", published, sink.describe());
    }
    return published;
  }

  private ChangeSink sink() {
    if (sink == null) {
      sink = opener.get();
    }
    return sink;
  }

  @Override
  public synchronized void close() {
    if (sink != null) {
      sink.close();
      sink = null;
    }
  }
}
