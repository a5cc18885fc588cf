package io.files2iceberg.sparkjob.load;

import io.files2iceberg.core.profile.Load.WriteMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdateProperties;

/**
 * {@code load.write-mode} as the table properties Iceberg's Spark writes read ({@link
 * WriteMode#TABLE_PROPERTIES}): set before a MERGE when the table says otherwise, as one metadata
 * commit without rows, so that a profile's change applies from its next batch.
 */
final class WriteModeProperties {
  private WriteModeProperties() {}

  /** Sets the properties the table does not have yet; what changed, if anything. */
  static Optional<String> apply(Table table, WriteMode mode) {
    List<String> changed = new ArrayList<>();
    UpdateProperties update = table.updateProperties();
    for (String property : WriteMode.TABLE_PROPERTIES) {
      String current = table.properties().getOrDefault(property, WriteMode.COPY_ON_WRITE.code());
      if (!current.equals(mode.code())) {
        update.set(property, mode.code());
        changed.add(property + " " + current + " -> " + mode.code());
      }
    }
    if (changed.isEmpty()) {
      return Optional.empty();
    }
    update.commit();
    return Optional.of("load.write-mode = " + mode.code() + ": " + String.join(", ", changed));
  }
}
