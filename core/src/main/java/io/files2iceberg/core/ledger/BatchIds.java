package io.files2iceberg.core.ledger;

import java.security.SecureRandom;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;

/**
 * The one format of every run's id: {@code [kind-]yyyyMMdd'T'HHmmss-8hex}, UTC, sortable by its
 * creation second and unique by its random part. A ledger batch has no kind ({@code
 * 20261130T120000-1a2b3c4d}); a batch the batcher lists without the ledger is {@code full-...} or
 * {@code backfill-...}; a maintenance run is {@code maintain-...}.
 */
public final class BatchIds {
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss").withZone(ZoneOffset.UTC);
  private static final SecureRandom RANDOM = new SecureRandom();

  private BatchIds() {}

  /** A ledger batch's id. */
  public static String ledger(Instant now) {
    return TIME.format(now) + "-" + random();
  }

  /** The id of a run of that kind ({@code full}, {@code backfill}, {@code maintain}). */
  public static String of(String kind, Instant now) {
    return kind + "-" + ledger(now);
  }

  private static String random() {
    byte[] random = new byte[4];
    RANDOM.nextBytes(random);
    return HexFormat.of().formatHex(random);
  }
}
