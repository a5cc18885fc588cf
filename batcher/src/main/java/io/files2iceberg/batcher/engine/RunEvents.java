package io.files2iceberg.batcher.engine;

import io.files2iceberg.batcher.engine.BatchEvent.BatchCommitted;
import io.files2iceberg.batcher.engine.BatchEvent.BatchFailed;
import io.files2iceberg.batcher.engine.BatchEvent.BatchRecovered;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one run's tables did: every {@link BatchEvent}, passed on to the run's listener as it
 * happens and kept for the {@link RunSummary}, with the problems that stopped a table. Thread-safe:
 * the tables' turns report from their worker threads.
 */
final class RunEvents {
  private static final Logger LOG = LoggerFactory.getLogger(RunEvents.class);

  private final Consumer<BatchEvent> listener;
  private final List<BatchCommitted> committed = Collections.synchronizedList(new ArrayList<>());
  private final List<BatchFailed> failed = Collections.synchronizedList(new ArrayList<>());
  private final List<BatchRecovered> recovered = Collections.synchronizedList(new ArrayList<>());
  private final List<String> errors = Collections.synchronizedList(new ArrayList<>());
  private final List<RunSummary.InFlight> inFlight = Collections.synchronizedList(new ArrayList<>());

  RunEvents(Consumer<BatchEvent> listener) {
    this.listener = listener;
  }

  void emit(BatchEvent event) {
    if (event instanceof BatchCommitted c) {
      committed.add(c);
    } else if (event instanceof BatchFailed f) {
      failed.add(f);
    } else if (event instanceof BatchRecovered r) {
      recovered.add(r);
    }
    try {
      listener.accept(event);
    } catch (RuntimeException e) {
      LOG.warn("Table {} batch {}: the event listener failed on {}: {}", event.table(), event.batchId(),
          event.getClass().getSimpleName(), e.toString());
    }
  }

  /** A problem that stopped a table before it had a batch. */
  void error(String error) {
    errors.add(error);
  }

  /** A batch whose job this run launched or found running, and leaves running. */
  void leftRunning(RunSummary.InFlight batch) {
    LOG.info("Table {} batch {}: {} left running; the job settles the batch it commits, and a later run settles one"
        + " it does not once its lease expires", batch.table(), batch.batchId(), batch.jobId());
    inFlight.add(batch);
  }

  RunSummary summary(Duration elapsed) {
    synchronized (this) {
      return new RunSummary(List.copyOf(committed), List.copyOf(failed), List.copyOf(recovered), List.copyOf(errors),
          List.copyOf(inFlight),
          elapsed);
    }
  }
}
