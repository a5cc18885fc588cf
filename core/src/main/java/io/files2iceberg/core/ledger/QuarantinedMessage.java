package io.files2iceberg.core.ledger;

import java.time.Instant;
import java.util.Optional;

/**
 * A message that can never succeed, kept with its raw payload so an operator can release it after
 * a fix.
 *
 * @param messageId the record's key: the Pub/Sub message id, {@code <id>#sha256:<digest>} when the
 *     listener keys an unreadable message by its id and content, or a hash of the payload when
 *     it names no id
 * @param objectUri the object it was about, when that could be read
 */
public record QuarantinedMessage(
    String messageId, String reason, String rawPayload, Optional<String> objectUri, Instant receivedAt) {}
