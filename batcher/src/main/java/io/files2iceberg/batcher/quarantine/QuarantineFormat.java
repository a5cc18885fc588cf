package io.files2iceberg.batcher.quarantine;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.batcher.output.JsonLines;
import io.files2iceberg.batcher.output.RecordJson;
import io.files2iceberg.batcher.output.RecordText;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.QuarantinedMessage;
import java.util.ArrayList;
import java.util.List;

/** The two forms of {@code quarantine list} and {@code quarantine release}. */
public final class QuarantineFormat {
  private QuarantineFormat() {}

  public static String human(List<QuarantinedMessage> messages, List<FileRecord> files) {
    StringBuilder out = new StringBuilder();
    out.append("QUARANTINED MESSAGES (").append(messages.size()).append(")\n");
    for (QuarantinedMessage message : messages) {
      out.append("  ").append(message.messageId()).append(" received ").append(message.receivedAt())
          .append(" object ").append(message.objectUri().orElse("-")).append(": ").append(message.reason())
          .append('\n');
    }
    out.append("QUARANTINED FILES (").append(files.size()).append(")\n");
    for (FileRecord file : files) {
      out.append("  ").append(file.table()).append(' ').append(file.partition()).append(' ').append(file.uri())
          .append(" generation ").append(file.generation()).append(": ")
          .append(file.quarantineReason().orElse("no reason recorded")).append(" (file id ").append(file.fileId())
          .append(")\n");
    }
    return out.toString();
  }

  /**
   * JSON lines: a {@code message} per quarantined message, a {@code file} per quarantined file,
   * then {@code quarantine_summary} with the two counts.
   */
  public static String json(List<QuarantinedMessage> messages, List<FileRecord> files) {
    List<ObjectNode> lines = new ArrayList<>();
    messages.forEach(message -> lines.add(RecordJson.message(JsonLines.record("message"), message)));
    files.forEach(file -> lines.add(RecordJson.file(JsonLines.record("file"), file)));
    lines.add(JsonLines.record("quarantine_summary").put("messages", messages.size()).put("files", files.size()));
    return JsonLines.lines(lines);
  }

  /** {@code quarantine release --file}: the files as they are now (or would be). */
  public static String releasedFiles(List<FileRecord> files, boolean dryRun, boolean json) {
    if (json) {
      // Each file as it is now (or would be), then release_summary.
      List<ObjectNode> lines = new ArrayList<>();
      files.forEach(file -> lines.add(RecordJson.file(JsonLines.record("file"), file)));
      lines.add(JsonLines.record("release_summary").put("dryRun", dryRun).put("files", files.size()));
      return JsonLines.lines(lines);
    }
    StringBuilder out = new StringBuilder();
    for (FileRecord file : files) {
      out.append(dryRun ? "Would release " : "Released ").append(RecordText.file(file)).append('\n');
    }
    out.append(dryRun ? "Dry run: nothing changed.\n"
        : "The next batch run loads them (a partition that was INGESTED is READY again).\n");
    return out.toString();
  }

  /** {@code quarantine release --message}. */
  public static String releasedMessage(MessageRelease.Released released, boolean json) {
    if (json) {
      ObjectNode root = JsonLines.record("message_release_summary");
      root.put("dryRun", released.dryRun());
      RecordJson.message(root.putObject("message"), released.message());
      root.put("action", released.action());
      root.put("deleted", !released.dryRun());
      return JsonLines.lines(List.of(root));
    }
    return "Message " + released.message().messageId() + ": " + released.action()
        + (released.dryRun() ? "; dry run: nothing changed.\n" : "; its quarantine record is deleted.\n");
  }
}
