package io.files2iceberg.batcher.events;

import io.files2iceberg.core.ledger.ChangeEvent;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * The embedded sink: one JSON line per event, appended to {@code <home>/events/changes.jsonl}.
 * The lines are on disk (forced) before the events are acknowledged, so a crash in between
 * repeats lines, never loses one.
 */
final class ChangeEventFile implements ChangeSink {
  private final Path file;

  ChangeEventFile(Path file) {
    this.file = file;
  }

  /** The home's events file. */
  static Path in(Path home) {
    return home.resolve("events").resolve("changes.jsonl");
  }

  @Override
  public List<String> send(List<ChangeEvent> events) throws IOException {
    Files.createDirectories(file.getParent());
    StringBuilder lines = new StringBuilder();
    events.forEach(event -> lines.append(event.payload()).append('\n'));
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.APPEND)) {
      ByteBuffer bytes = ByteBuffer.wrap(lines.toString().getBytes(StandardCharsets.UTF_8));
      while (bytes.hasRemaining()) {
        channel.write(bytes);
      }
      channel.force(true);
    }
    return events.stream().map(ChangeEvent::eventId).toList();
  }

  @Override
  public String describe() {
    return file.toString();
  }

  @Override
  public void close() {}
}
