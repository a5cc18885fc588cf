package io.files2iceberg.batcher.events;

import io.files2iceberg.core.ledger.ChangeEvent;
import java.util.List;

/** Where {@link ChangePublisher} sends change events: the home's file, or a Pub/Sub topic. */
interface ChangeSink extends AutoCloseable {

  /**
   * Sends the events, oldest first.
   *
   * @return the ids of the events the sink has durably taken (written and synced, or acknowledged
   *     by Pub/Sub); the rest stay in the ledger's outbox for the next run
   * @throws Exception when it took none
   */
  List<String> send(List<ChangeEvent> events) throws Exception;

  /** Where the events go, for logs. */
  String describe();

  @Override
  void close();
}
