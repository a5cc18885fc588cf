package io.files2iceberg.batcher.local;

import io.files2iceberg.core.profile.Home;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Stands in for {@code files2iceberg local} in its own JVM: starts the listener child the way the
 * pipeline does, prints {@code listener <pid>} and waits to be killed.
 * Arguments: listener target folder, profile folder, home.
 */
public final class ListenerParent {
  private ListenerParent() {}

  public static void main(String[] args) throws Exception {
    ListenerProcess listener = ListenerProcess.start(Path.of(args[0]), Path.of(args[1]), new Home(Path.of(args[2])),
        Duration.ofSeconds(90));
    System.out.println("listener " + listener.pid());
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
