package io.files2iceberg.batcher.quarantine;

import io.files2iceberg.batcher.cli.NotInLedgerException;
import io.files2iceberg.batcher.inspect.History;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.FileState;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.match.ObjectLocation;
import java.util.ArrayList;
import java.util.List;

/** {@code quarantine release --file}: which quarantined files an operator names, and their release. */
public final class QuarantinedFiles {
  private static final String FILE_ID = "[0-9a-f]{64}";

  private QuarantinedFiles() {}

  /**
   * The QUARANTINED files {@code fileOrId} names: a file id, or every quarantined generation of an
   * object given by URI or local path.
   *
   * @throws NotInLedgerException naming it when the ledger holds no such file
   * @throws IllegalArgumentException naming it when none of its generations is QUARANTINED
   */
  public static List<FileRecord> named(Ledger ledger, String fileOrId) {
    List<FileRecord> files;
    if (fileOrId.matches(FILE_ID)) {
      files = ledger.file(fileOrId).map(List::of)
          .orElseThrow(() -> new NotInLedgerException("no file with id " + fileOrId + " in the ledger"));
    } else {
      ObjectLocation location = History.locate(fileOrId);
      files = ledger.filesNamed(location.bucket(), location.name());
      if (files.isEmpty()) {
        throw new NotInLedgerException("no file " + location.uri() + " in the ledger");
      }
    }
    List<FileRecord> quarantined = files.stream().filter(file -> file.state() == FileState.QUARANTINED).toList();
    if (quarantined.isEmpty()) {
      throw new IllegalArgumentException("file " + files.get(0).uri() + " is not quarantined (generation(s) "
          + files.stream().map(file -> file.generation() + " " + file.state()).toList() + ")");
    }
    return quarantined;
  }

  /** Releases each; returns them as stored now. */
  public static List<FileRecord> release(Ledger ledger, List<FileRecord> files) {
    List<FileRecord> released = new ArrayList<>();
    for (FileRecord file : files) {
      released.add(ledger.releaseFile(file.fileId()));
    }
    return released;
  }
}
