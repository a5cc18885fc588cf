package io.files2iceberg.core.ledger.store;

import io.files2iceberg.core.ledger.FileState;
import java.util.List;

/**
 * What a batch's transition still owes when its writes did not fit one commit: its files' move to
 * {@code target} from the {@code settledFiles}-th on, the older partitions a newest claim
 * supersedes, and (for a commit or a failure) its partitions' release, last. Stored with the batch
 * (Firestore's {@code settling}, {@code settledFiles}, {@code settlingMaxAttempts} and {@code
 * superseding} fields).
 *
 * @param target CLAIMED (a claim or revival), INGESTED (a commit) or RECORDED (a failure)
 * @param maxAttempts a failure's bound on its partitions' attempts; 0 otherwise
 */
public record Settling(FileState target, int settledFiles, int maxAttempts, List<String> superseding) {
  public Settling {
    superseding = List.copyOf(superseding);
  }

  /** Owing every file's move, from the first. */
  public static Settling owing(FileState target, int maxAttempts, List<String> superseding) {
    return new Settling(target, 0, maxAttempts, superseding);
  }

  public Settling withSettledFiles(int files) {
    return new Settling(target, files, maxAttempts, superseding);
  }

  public Settling withSuperseding(List<String> rest) {
    return new Settling(target, settledFiles, maxAttempts, rest);
  }
}
