package io.files2iceberg.sparkjob.sql;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.PrintStream;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.StructField;

/**
 * Prints a query result: an aligned text table (numbers right-aligned, {@code NULL} for null,
 * values as Spark casts them to strings, so timestamps in the session time zone) or JSON lines
 * (docs/reference/json-output.md).
 */
final class ResultPrinter {
  /** 2^53: every whole number up to it in magnitude is exact in a double. */
  private static final BigInteger MAX_EXACT_IN_DOUBLE = BigInteger.ONE.shiftLeft(53);
  /** Floats read as BigDecimal, so a DECIMAL's digits are written back as they came. */
  private static final ObjectMapper JSON = JsonMapper.builder()
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
      .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
      .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
      .build();

  private final PrintStream out;
  private final int maxRows;

  /** @param maxRows the most rows printed; 0 prints every row */
  ResultPrinter(PrintStream out, int maxRows) {
    this.out = out;
    this.maxRows = maxRows;
  }

  void printTable(Dataset<Row> result) {
    StructField[] fields = result.schema().fields();
    if (fields.length == 0) {
      // DDL and other commands: nothing to show but that they ran.
      result.collectAsList();
      out.println("OK");
      return;
    }
    // Positional names, so that duplicate column names (joins) do not get in the way of the cast.
    String[] positional = new String[fields.length];
    for (int i = 0; i < fields.length; i++) {
      positional[i] = "c" + i;
    }
    Column[] asText = new Column[fields.length];
    for (int i = 0; i < fields.length; i++) {
      asText[i] = functions.col(positional[i]).cast(DataTypes.StringType);
    }
    Dataset<Row> text = result.toDF(positional).select(asText);
    List<Row> rows = maxRows == 0 ? text.collectAsList() : text.limit(maxRows + 1).collectAsList();
    boolean more = maxRows > 0 && rows.size() > maxRows;
    if (more) {
      rows = rows.subList(0, maxRows);
    }

    int[] widths = new int[fields.length];
    boolean[] right = new boolean[fields.length];
    List<String[]> cells = new ArrayList<>(rows.size());
    for (int i = 0; i < fields.length; i++) {
      widths[i] = fields[i].name().length();
      right[i] = fields[i].dataType() instanceof NumericType;
    }
    for (Row row : rows) {
      String[] line = new String[fields.length];
      for (int i = 0; i < fields.length; i++) {
        line[i] = row.isNullAt(i) ? "NULL" : row.getString(i).replace("\n", "\\n");
        widths[i] = Math.max(widths[i], line[i].length());
      }
      cells.add(line);
    }
    String[] header = new String[fields.length];
    String[] rule = new String[fields.length];
    for (int i = 0; i < fields.length; i++) {
      header[i] = fields[i].name();
      rule[i] = "-".repeat(widths[i]);
    }
    out.println(line(header, widths, right));
    out.println(line(rule, widths, right));
    for (String[] line : cells) {
      out.println(line(line, widths, right));
    }
    if (more) {
      out.println("(first " + maxRows + " rows shown; --max-rows N shows more)");
    } else {
      out.println("(" + rows.size() + (rows.size() == 1 ? " row)" : " rows)"));
    }
  }

  /**
   * One compact JSON object per row, as Spark's {@code toJSON} writes it, except that a whole
   * number beyond 2^53 in magnitude (a BIGINT, or a DECIMAL of scale 0) becomes a string: jq 1.6
   * and JavaScript would round it. Smaller whole numbers stay numbers; DECIMAL values stay numbers
   * with their digits exactly as Spark writes them (never through a double here).
   */
  void printJson(Dataset<Row> result) {
    if (result.schema().fields().length == 0) {
      result.collectAsList();
      return;
    }
    Dataset<String> json = result.toJSON();
    List<String> lines = maxRows == 0 ? json.collectAsList() : json.limit(maxRows).collectAsList();
    for (String line : lines) {
      try {
        out.println(JSON.writeValueAsString(wholeNumbersBeyondDoubleAsText(JSON.readTree(line))));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException("Cannot rewrite a row's JSON: " + line, e);
      }
    }
  }

  private static JsonNode wholeNumbersBeyondDoubleAsText(JsonNode node) {
    if (node instanceof ObjectNode object) {
      Iterator<Map.Entry<String, JsonNode>> fields = object.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> field = fields.next();
        field.setValue(wholeNumbersBeyondDoubleAsText(field.getValue()));
      }
      return object;
    }
    if (node instanceof ArrayNode array) {
      for (int i = 0; i < array.size(); i++) {
        array.set(i, wholeNumbersBeyondDoubleAsText(array.get(i)));
      }
      return array;
    }
    if (node.isIntegralNumber() && node.bigIntegerValue().abs().compareTo(MAX_EXACT_IN_DOUBLE) > 0) {
      return TextNode.valueOf(node.bigIntegerValue().toString());
    }
    return node;
  }

  private static String line(String[] values, int[] widths, boolean[] right) {
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < values.length; i++) {
      if (i > 0) {
        line.append("  ");
      }
      String padding = " ".repeat(widths[i] - values[i].length());
      if (right[i]) {
        line.append(padding).append(values[i]);
      } else {
        line.append(values[i]);
        if (i < values.length - 1) {
          line.append(padding);
        }
      }
    }
    return line.toString();
  }
}
