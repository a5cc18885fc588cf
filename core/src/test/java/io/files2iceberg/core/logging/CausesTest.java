package io.files2iceberg.core.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

class CausesTest {
  @Test
  void aWrapperThatSaysNothingKeepsItsCauseThatSaysWhy() {
    // Iceberg's JDBC catalog wraps a locked SQLite database as "Unknown failure".
    RuntimeException error = new RuntimeException("Unknown failure",
        new SQLException("[SQLITE_BUSY] The database file is locked (database is locked)"));

    assertThat(Causes.chain(error))
        .isEqualTo("Unknown failure: [SQLITE_BUSY] The database file is locked (database is locked)");
  }

  @Test
  void aMessageRepeatedByItsWrapperIsKeptOnceAndSparksStackTailIsLeftOut() {
    IOException root = new IOException("file:/data/p1/a.json is not a Parquet file");
    RuntimeException task = new RuntimeException("Job aborted due to stage failure:\n  Task 0 failed: "
        + root.getMessage() + "\nDriver stacktrace:\n\tat org.apache.spark.Foo", root);
    RuntimeException wrapper = new RuntimeException(task.getMessage(), task);

    assertThat(Causes.chain(wrapper))
        .isEqualTo("Job aborted due to stage failure: Task 0 failed: file:/data/p1/a.json is not a Parquet file");
  }

  @Test
  void wordlessWrappersAreSkippedAndABareErrorIsNamedByItsClass() {
    assertThat(Causes.chain(new RuntimeException(new IllegalStateException("the table is gone"))))
        .as("a wrapper's default message is its cause's toString")
        .isEqualTo("java.lang.IllegalStateException: the table is gone");
    assertThat(Causes.chain(new IllegalStateException((String) null, new NullPointerException())))
        .isEqualTo("java.lang.NullPointerException");
    assertThat(Causes.chain(new NullPointerException())).isEqualTo("java.lang.NullPointerException");
  }

  @Test
  void aCycleInTheChainEnds() {
    IllegalStateException a = new IllegalStateException("a");
    IllegalStateException b = new IllegalStateException("b", a);
    a.initCause(b);

    assertThat(Causes.chain(b)).isEqualTo("b: a");
  }
}
