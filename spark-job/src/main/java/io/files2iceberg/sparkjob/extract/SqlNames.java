package io.files2iceberg.sparkjob.extract;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.functions;

/** Column names as Spark SQL identifiers: quoted, so that dots and spaces stay part of the name. */
public final class SqlNames {
  private SqlNames() {}

  /** {@code a.b} becomes {@code `a.b`}; a backtick is doubled. */
  public static String quote(String name) {
    return "`" + name.replace("`", "``") + "`";
  }

  /** A Spark SQL string literal: {@code it's} becomes {@code 'it\'s'}. */
  public static String literal(String value) {
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

  /** A reference to the top-level column of that exact name. */
  public static Column column(String name) {
    return functions.col(quote(name));
  }

  /** {@code local.demo.clicks} as {@code `local`.`demo`.`clicks`}. */
  public static String quoteTable(String qualifiedName) {
    StringBuilder quoted = new StringBuilder();
    for (String part : qualifiedName.split("\\.")) {
      if (quoted.length() > 0) {
        quoted.append('.');
      }
      quoted.append(quote(part));
    }
    return quoted.toString();
  }
}
