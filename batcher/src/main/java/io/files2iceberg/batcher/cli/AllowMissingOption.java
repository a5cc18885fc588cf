package io.files2iceberg.batcher.cli;

import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.rules.FileRules;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * {@code --allow-missing}: a {@code rollback} or {@code replay} that has to load files again whose
 * landed objects landing cleanup deleted ({@code load.after-ingest.action = delete}) goes on, and
 * their rows are lost (the ledger makes such a file SUPERSEDED). Without it the command is refused
 * before it changes anything, naming the files. A moved (ARCHIVED) file is no obstacle: it is read
 * from its archive.
 */
public final class AllowMissingOption {
  /** The files a refusal names; it counts them all. */
  static final int NAMED = 10;

  @Option(names = "--allow-missing", description = "Go on when files to load again were deleted by landing cleanup"
      + " (load.after-ingest.action = delete): their rows are lost (default: refused, naming them).")
  boolean allowMissing;

  /** As if {@code --allow-missing} was given, or not: for callers other than the command line. */
  public static AllowMissingOption of(boolean allowMissing) {
    AllowMissingOption option = new AllowMissingOption();
    option.allowMissing = allowMissing;
    return option;
  }

  /** Whether {@code --allow-missing} was given. */
  public boolean allowMissing() {
    return allowMissing;
  }

  /**
   * The files among these that a reload would need but cannot read, their landed object deleted by
   * cleanup: INGESTED or DROPPED ones ({@link FileRules#lostOnReopen}, the rule the ledger applies).
   */
  public static List<FileRecord> deleted(Collection<FileRecord> files) {
    return files.stream().filter(FileRules::lostOnReopen).toList();
  }

  /**
   * Why {@code what} is refused, naming up to {@value #NAMED} of the deleted files and their count;
   * empty when there are none or {@code --allow-missing} was given.
   */
  public Optional<String> refusal(String what, List<FileRecord> deleted) {
    if (deleted.isEmpty() || allowMissing) {
      return Optional.empty();
    }
    StringBuilder text = new StringBuilder(what).append(" would load ").append(deleted.size())
        .append(" file(s) again whose object landing cleanup deleted (load.after-ingest.action = delete): ");
    for (int i = 0; i < Math.min(NAMED, deleted.size()); i++) {
      FileRecord file = deleted.get(i);
      text.append(i == 0 ? "" : ", ").append(file.uri()).append('#').append(file.generation());
    }
    if (deleted.size() > NAMED) {
      text.append(" and ").append(deleted.size() - NAMED).append(" more");
    }
    text.append(". Their rows would be lost; pass --allow-missing if that is intended");
    return Optional.of(text.toString());
  }
}
