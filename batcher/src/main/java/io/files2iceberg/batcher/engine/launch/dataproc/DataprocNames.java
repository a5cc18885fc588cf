package io.files2iceberg.batcher.engine.launch.dataproc;

import io.files2iceberg.core.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * What Dataproc accepts as a batch id, a request id and a label value, derived from our table and
 * batch id.
 *
 * <p>Dataproc never reuses a batch id, not even of a deleted batch, so every launch of one ledger
 * batch gets its own: {@code f2i-<batch id>-a<attempt>}, such as {@code
 * f2i-20261130t120000-1a2b3c4d-a1}. The same batch and attempt always give the same id: a batcher
 * that relaunches an attempt it had already started finds that batch instead of starting a second
 * job on the same files.
 *
 * <p>A batch id is also a DNS-1123 label, and a label value one of Kubernetes' label values: the
 * Kubernetes launcher names its driver pods and labels them with the same functions.
 */
public final class DataprocNames {

  static final String BATCH_ID_PREFIX = "f2i-";

  /** Dataproc batch ids: 4 to 63 characters of {@code [a-z0-9-]}, a letter first, no hyphen last. */
  static final int MAX_BATCH_ID_LENGTH = 63;

  static final Pattern VALID_BATCH_ID = Pattern.compile("[a-z][a-z0-9-]{2,61}[a-z0-9]");

  /** Label values: at most 63 characters of {@code [a-z0-9_-]} (Dataproc allows more; we need no more). */
  static final int MAX_LABEL_LENGTH = 63;

  private static final int HASH_LENGTH = 8;
  private static final Pattern NOT_ID_CHARACTERS = Pattern.compile("[^a-z0-9]+");
  private static final Pattern NOT_LABEL_CHARACTERS = Pattern.compile("[^a-z0-9_-]");

  private DataprocNames() {}

  /**
   * The Dataproc batch id of one launch of a ledger batch. Characters other than letters and digits
   * become single hyphens; an id that would be longer than 63 characters keeps its beginning and
   * gets the first 8 hex digits of the SHA-256 of the whole batch id, so that long ids stay distinct.
   *
   * @param attempt the launch of this batch, from 1
   */
  public static String batchId(String batchId, int attempt) {
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt must be at least 1, is " + attempt);
    }
    String suffix = "-a" + attempt;
    String body = trimHyphens(NOT_ID_CHARACTERS.matcher(batchId.toLowerCase(Locale.ROOT)).replaceAll("-"));
    int room = MAX_BATCH_ID_LENGTH - BATCH_ID_PREFIX.length() - suffix.length();
    if (body.isEmpty() || body.length() > room) {
      String hash = Sha256.hex(batchId).substring(0, HASH_LENGTH);
      String kept = body.substring(0, Math.min(body.length(), room - HASH_LENGTH - 1));
      body = trimHyphens(kept).isEmpty() ? hash : trimHyphens(kept) + "-" + hash;
    }
    return BATCH_ID_PREFIX + body + suffix;
  }

  /**
   * A label value: lower case, characters other than {@code [a-z0-9_-]} become {@code _}; longer
   * than 63 characters, it keeps its first 54 and gets {@code -} and 8 hex digits of the SHA-256 of
   * the whole value.
   */
  public static String labelValue(String value) {
    String label = NOT_LABEL_CHARACTERS.matcher(value.toLowerCase(Locale.ROOT)).replaceAll("_");
    if (label.length() <= MAX_LABEL_LENGTH) {
      return label;
    }
    return label.substring(0, MAX_LABEL_LENGTH - HASH_LENGTH - 1) + "-" + Sha256.hex(value).substring(0, HASH_LENGTH);
  }

  /**
   * The create request's id (letters, digits, {@code _} and {@code -}, at most 40 characters): a
   * name-based UUID of the Dataproc batch id. Dataproc answers a repeated request id with the
   * operation of the first request, so resending a create whose answer was lost starts nothing new.
   */
  static String requestId(String dataprocBatchId) {
    return UUID.nameUUIDFromBytes(dataprocBatchId.getBytes(StandardCharsets.UTF_8)).toString();
  }

  private static String trimHyphens(String s) {
    int start = 0;
    int end = s.length();
    while (start < end && s.charAt(start) == '-') {
      start++;
    }
    while (end > start && s.charAt(end - 1) == '-') {
      end--;
    }
    return s.substring(start, end);
  }
}
