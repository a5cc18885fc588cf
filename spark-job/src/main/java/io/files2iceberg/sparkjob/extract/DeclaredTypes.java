package io.files2iceberg.sparkjob.extract;

import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.sparkjob.stage.BatchFailedException;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.types.DataType;

/**
 * The column types a profile decides instead of the files: {@code extract.schema-hints} (source
 * names, read as those types) and {@code transform.cast.columns} (target names). Core checks the
 * hints' shape; Spark's parser has the last word here, before any file is read.
 */
public final class DeclaredTypes {
  private DeclaredTypes() {}

  /**
   * The hints, source column name to the type Spark parses, in the order given.
   *
   * @throws BatchFailedException naming {@code extract.schema-hints}, the column and Spark's reason
   *     when Spark refuses a type
   */
  public static Map<String, DataType> hints(TableProfile profile) {
    Map<String, DataType> hints = new LinkedHashMap<>();
    profile.extract().schemaHints().forEach((column, type) -> {
      try {
        hints.put(column, DataType.fromDDL(type));
      } catch (Exception e) {
        // Spark's parse errors start with a blank line, then the reason, then the text with a marker.
        String reason = e.getMessage() == null ? e.getClass().getSimpleName()
            : e.getMessage().lines().map(String::strip).filter(line -> !line.isEmpty()).findFirst()
                .orElse(e.getClass().getSimpleName());
        throw new BatchFailedException("extract.schema-hints: " + column + " \"" + type + "\" is not a Spark SQL type: "
            + reason, e);
      }
    });
    return hints;
  }

  /**
   * The target names (after {@code transform.rename-columns}) whose type the profile decides: the
   * cast columns and the hinted columns. The files' types of these columns do not have to fit the
   * table's, and their values are never rescued as a column the table cannot take.
   */
  public static Set<String> targets(TableProfile profile) {
    Set<String> targets = new LinkedHashSet<>(profile.transform().castColumns().keySet());
    for (String source : profile.extract().schemaHints().keySet()) {
      targets.add(SchemaCheck.targetName(profile.transform(), source));
    }
    return targets;
  }
}
