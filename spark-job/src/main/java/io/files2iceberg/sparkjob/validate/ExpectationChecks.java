package io.files2iceberg.sparkjob.validate;

import io.files2iceberg.core.profile.Expectation;
import io.files2iceberg.core.profile.Load.SchemaEvolution;
import io.files2iceberg.core.profile.TableProfile;
import io.files2iceberg.core.profile.Transform;
import io.files2iceberg.sparkjob.sql.SqlMain;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Checks a profile's expectations ({@code quality.expectations}) with Spark's own SQL parser and
 * analyzer before any file is read: each {@code check} must parse, name columns the table has and
 * be a condition; each {@code max-null-fraction} column must exist.
 *
 * <p>The columns are the table's when it exists. Otherwise they are the ones the profile declares
 * with a type: {@code transform.cast.columns}, {@code extract.schema-hints} (by their names after
 * {@code transform.rename-columns}) and the rescued data column. A column that only the files can
 * tell (the table does not exist yet, or its schema may still gain columns from the files) is
 * reported as {@link Outcome#UNCHECKED}, never as an error.
 */
public final class ExpectationChecks {

  /** What one expectation's check found. */
  public enum Outcome {
    /** It cannot work: the batch would fail on it. */
    ERROR("error"),
    /** It names a column only the files can tell: checked when a batch reads them. */
    UNCHECKED("unchecked");

    private final String code;

    Outcome(String code) {
      this.code = code;
    }

    public String code() {
      return code;
    }
  }

  /**
   * One finding.
   *
   * @param key the key path of the field at fault, such as {@code quality.expectations[0].check}
   */
  public record Finding(String profile, String source, String key, Outcome outcome, String reason) {}

  /**
   * The columns checks are resolved against.
   *
   * @param mayGrow whether a column not among them can still come from the files
   * @param origin what they are, for messages: {@code the table local.demo.clicks}
   */
  record Columns(StructType schema, boolean mayGrow, String origin) {}

  /** A column beside the condition, so that an aggregate function is refused. */
  private static final String PROBE = "_f2i_probe";

  private ExpectationChecks() {}

  /** Every finding of one profile's expectations, in their order. */
  public static List<Finding> check(SparkSession spark, TableProfile profile, Optional<StructType> tableSchema) {
    Columns columns = columns(profile, tableSchema);
    List<Finding> findings = new ArrayList<>();
    List<Expectation> expectations = profile.quality().expectations();
    for (int i = 0; i < expectations.size(); i++) {
      Expectation expectation = expectations.get(i);
      String element = "quality.expectations[" + i + "]";
      switch (expectation.kind()) {
        case CHECK -> checkCondition(spark, columns, expectation, element + ".check")
            .ifPresent(found -> findings.add(finding(profile, element + ".check", expectation, found)));
        case MAX_NULL_FRACTION -> checkColumn(columns, expectation.column().orElseThrow())
            .ifPresent(found -> findings.add(finding(profile, element + ".column", expectation, found)));
        case MIN_ROWS -> {
          // Nothing to check before rows are counted.
        }
      }
    }
    return findings;
  }

  private record Found(Outcome outcome, String reason) {}

  private static Finding finding(TableProfile profile, String key, Expectation expectation, Found found) {
    return new Finding(profile.name(), profile.source().toString(), key, found.outcome(),
        "expectation " + expectation.name() + ": " + found.reason());
  }

  static Columns columns(TableProfile profile, Optional<StructType> tableSchema) {
    // Only add-new-columns gives an existing table a column the files bring.
    boolean evolves = profile.load().schemaEvolution() == SchemaEvolution.ADD_NEW_COLUMNS;
    if (tableSchema.isPresent()) {
      StructType schema = tableSchema.get();
      Optional<String> rescued = profile.transform().rescuedDataColumn();
      if (rescued.isPresent() && !has(schema, rescued.get())) {
        schema = schema.add(rescued.get(), DataTypes.StringType);
      }
      return new Columns(schema, evolves, "the table " + profile.table());
    }
    Transform transform = profile.transform();
    Map<String, DataType> declared = new LinkedHashMap<>();
    profile.extract().schemaHints().forEach((source, type) ->
        parseType(type).ifPresent(t -> declared.put(transform.renameColumns().getOrDefault(source, source), t)));
    transform.castColumns().forEach((target, type) -> parseType(type).ifPresent(t -> declared.put(target, t)));
    transform.rescuedDataColumn().ifPresent(name -> declared.put(name, DataTypes.StringType));
    StructType schema = new StructType();
    for (Map.Entry<String, DataType> column : declared.entrySet()) {
      schema = schema.add(column.getKey(), column.getValue());
    }
    return new Columns(schema, true, "the columns the profile declares (the table " + profile.table()
        + " does not exist yet)");
  }

  private static Optional<DataType> parseType(String type) {
    try {
      return Optional.of(DataType.fromDDL(type));
    } catch (RuntimeException e) {
      return Optional.empty(); // the loader checked the types; a type Spark cannot read is the job's to report
    }
  }

  private static Optional<Found> checkCondition(SparkSession spark, Columns columns, Expectation expectation,
      String key) {
    String check = expectation.check().orElseThrow();
    try {
      spark.sessionState().sqlParser().parseExpression(check);
    } catch (ParseException e) {
      return Optional.of(new Found(Outcome.ERROR, "\"" + check + "\" is not Spark SQL: " + firstLine(e)));
    }
    DataType type;
    try {
      // Beside a per-row column, an aggregate function is refused, as the job refuses it.
      Column condition = functions.expr(check);
      type = spark.createDataFrame(List.<Row>of(), columns.schema().add(PROBE, DataTypes.LongType))
          .select(functions.col(PROBE), condition).schema().fields()[1].dataType();
    } catch (Exception e) { // Scala code throws AnalysisException, a checked exception, undeclared
      if (e instanceof AnalysisException analysis && analysis.getErrorClass() != null
          && analysis.getErrorClass().startsWith("UNRESOLVED_COLUMN")) {
        String column = analysis.getMessageParameters().getOrDefault("objectName", "?");
        if (columns.mayGrow()) {
          return Optional.of(new Found(Outcome.UNCHECKED, "column " + column + " is not among " + columns.origin()
              + "; checked when a batch reads the files"));
        }
        return Optional.of(new Found(Outcome.ERROR, "\"" + check + "\" names column " + column + ", which "
            + columns.origin() + " does not have (its columns: " + names(columns.schema()) + ")"));
      }
      return Optional.of(new Found(Outcome.ERROR, "\"" + check + "\" does not apply to " + columns.origin() + ": "
          + firstLine(e)));
    }
    if (!(type instanceof BooleanType)) {
      return Optional.of(new Found(Outcome.ERROR, "\"" + check + "\" is of type " + type.simpleString()
          + ", not a condition"));
    }
    return Optional.empty();
  }

  private static Optional<Found> checkColumn(Columns columns, String column) {
    if (has(columns.schema(), column)) {
      return Optional.empty();
    }
    if (columns.mayGrow()) {
      return Optional.of(new Found(Outcome.UNCHECKED, "column `" + column + "` is not among " + columns.origin()
          + "; checked when a batch reads the files"));
    }
    return Optional.of(new Found(Outcome.ERROR, "column `" + column + "` is not a column of " + columns.origin()
        + " (its columns: " + names(columns.schema()) + ")"));
  }

  private static boolean has(StructType schema, String column) {
    String lower = column.toLowerCase(Locale.ROOT);
    for (StructField field : schema.fields()) {
      if (field.name().toLowerCase(Locale.ROOT).equals(lower)) {
        return true;
      }
    }
    return false;
  }

  private static String names(StructType schema) {
    return String.join(", ", schema.fieldNames());
  }

  /** The first line of Spark's message, as {@code sql} reports it (without the plan or the stack trace). */
  private static String firstLine(Exception e) {
    return SqlMain.message(e).lines().findFirst().orElse(e.toString());
  }
}
