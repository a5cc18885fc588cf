package io.files2iceberg.batcher.local;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.batcher.cli.ErrorOutput;
import io.files2iceberg.batcher.output.EventJson;
import java.io.PrintWriter;
import java.util.function.Supplier;

/**
 * Where the embedded pipeline's commands ({@code local}, {@code demo}) report: each fact on stdout
 * as a line for people starting with the command's prefix ({@code [demo] ...}), or, with {@code
 * --json}, as one {@link EventJson} object per line and nothing else on stdout. Errors go to stderr
 * either way ({@link ErrorOutput}); with {@code --json} they are events too.
 */
public final class PipelineOutput {
  private final PrintWriter out;
  private final PrintWriter err;
  private final String prefix;
  private final boolean json;

  private PipelineOutput(PrintWriter out, PrintWriter err, String prefix, boolean json) {
    this.out = out;
    this.err = err;
    this.prefix = prefix;
    this.json = json;
  }

  /** Lines for people, each starting with {@code prefix}. */
  public static PipelineOutput lines(PrintWriter out, PrintWriter err, String prefix) {
    return new PipelineOutput(out, err, prefix, false);
  }

  /** One JSON event per line. */
  public static PipelineOutput json(PrintWriter out, PrintWriter err) {
    return new PipelineOutput(out, err, "", true);
  }

  /** JSON events with {@code --json} ({@code json}), else lines for people starting with {@code prefix}. */
  public static PipelineOutput of(boolean json, PrintWriter out, PrintWriter err, String prefix) {
    return json ? json(out, err) : lines(out, err, prefix);
  }

  public boolean isJson() {
    return json;
  }

  /** A fact: its line for people, or its event. */
  public void fact(String line, Supplier<ObjectNode> event) {
    if (json) {
      EventJson.print(out, event.get());
    } else {
      say(line);
    }
  }

  /** A fact only scripts get (people read it in another line already). */
  public void event(Supplier<ObjectNode> event) {
    if (json) {
      EventJson.print(out, event.get());
    }
  }

  /** A line only people get, without the prefix: a summary table's row, a hint; none with {@code --json}. */
  public void text(String line) {
    if (!json) {
      synchronized (out) {
        out.println(line);
        out.flush();
      }
    }
  }

  /** A line only people get, with the prefix; none with {@code --json}. */
  public void say(String line) {
    text(prefix + " " + line);
  }

  /** An error on stderr; with {@code --json} also an {@code error} event. */
  public void error(String message) {
    ErrorOutput.print(err, message);
    event(() -> EventJson.error(message));
  }
}
