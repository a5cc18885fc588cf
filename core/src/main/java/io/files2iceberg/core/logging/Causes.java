package io.files2iceberg.core.logging;

import java.util.IdentityHashMap;
import java.util.Map;

/**
 * An error's messages along its cause chain, on one line. A wrapper's own message often says
 * nothing ("Unknown failure", "Job aborted."); the cause below it says why (the database was
 * locked, the file is not Parquet). Each message is kept once: a wrapper that repeats its cause's
 * message adds nothing.
 */
public final class Causes {
  private static final int MAX_DEPTH = 16;
  private static final String SPARK_STACK = "Driver stacktrace:";

  private Causes() {}

  /** {@code outer: inner: root}, each message on one line, without Spark's "Driver stacktrace:" tail. */
  public static String chain(Throwable error) {
    StringBuilder text = new StringBuilder();
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    Throwable t = error;
    for (int depth = 0; t != null && depth < MAX_DEPTH && seen.put(t, Boolean.TRUE) == null; depth++) {
      String message = message(t);
      if (!message.isEmpty() && text.indexOf(message) < 0) {
        text.append(text.length() == 0 ? "" : ": ").append(message);
      }
      t = t.getCause();
    }
    return text.length() == 0 ? error.getClass().getSimpleName() : text.toString();
  }

  private static String message(Throwable t) {
    String message = t.getMessage();
    if (message == null || message.isBlank()) {
      // A bare exception says what it is by its class alone; a wrapper without words says nothing.
      return t.getCause() == null ? t.getClass().getName() : "";
    }
    int stack = message.indexOf(SPARK_STACK);
    if (stack > 0) {
      message = message.substring(0, stack);
    }
    return message.replaceAll("\\s*\\R\\s*", " ").trim();
  }
}
