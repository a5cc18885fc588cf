package io.files2iceberg.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The home lock within one process; {@code ListenerProcessTest} (batcher) runs it across processes. */
class HomeLockTest {
  @TempDir Path dir;

  @Test
  void aHeldHomeIsRefusedNamingTheHoldersProcessId() throws Exception {
    Path home = dir.resolve("home");
    HomeLock first = HomeLock.acquire(home);

    assertThat(first.isHeld()).isTrue();
    assertThat(Files.readString(home.resolve("listener.lock"))).isEqualTo(ProcessHandle.current().pid() + "\n");
    assertThatThrownBy(() -> HomeLock.acquire(home))
        .isInstanceOf(HomeLock.HomeTakenException.class)
        .hasMessage("the home " + home.toAbsolutePath() + " already has a live listener: process "
            + ProcessHandle.current().pid() + " holds " + home.toAbsolutePath().resolve("listener.lock")
            + "; stop that listener first, or give this one another --home");
    assertThat(first.isHeld()).isTrue();
  }

  @Test
  void aLockFileLeftBehindBlocksNothing() throws Exception {
    Path home = Files.createDirectories(dir.resolve("home"));
    Files.writeString(home.resolve("listener.lock"), "999999999\n");

    HomeLock lock = HomeLock.acquire(home);

    assertThat(lock.isHeld()).isTrue();
    assertThat(Files.readString(home.resolve("listener.lock"))).isEqualTo(ProcessHandle.current().pid() + "\n");
  }

  @Test
  void parentPidIsAProcessIdOrAbsent() {
    assertThat(ParentWatch.parentPid(null)).isEmpty();
    assertThat(ParentWatch.parentPid(" ")).isEmpty();
    assertThat(ParentWatch.parentPid("4242")).contains(4242L);
    assertThatThrownBy(() -> ParentWatch.parentPid("parent"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("-Dfiles2iceberg.listener.parent-pid \"parent\" is not a process id");
  }
}
