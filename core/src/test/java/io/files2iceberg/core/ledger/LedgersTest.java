package io.files2iceberg.core.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.files2iceberg.core.profile.LedgerSettings;
import io.files2iceberg.core.profile.LedgerSettings.LedgerType;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LedgersTest {
  private final MutableClock clock = new MutableClock(Instant.parse("2024-05-01T10:00:00Z"));

  @Test
  void sqliteSettingsOpenTheSqliteLedger(@TempDir Path dir) {
    LedgerSettings settings = new LedgerSettings(
        LedgerType.SQLITE, dir.resolve("ledger.db").toString(), Optional.empty(), "(default)", "");

    try (Ledger ledger = Ledgers.open(settings, clock)) {
      assertThat(ledger).isInstanceOf(SqliteLedger.class);
      assertThat(ledger.isAvailable()).isTrue();
    }
  }

  @Test
  void firestoreWithoutItsModuleOnTheClasspathSaysWhichModuleIsMissing() {
    LedgerSettings settings = new LedgerSettings(
        LedgerType.FIRESTORE, "unused.db", Optional.of("proj"), "(default)", "dev_");

    assertThatThrownBy(() -> Ledgers.open(settings, clock))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("ledger.type = firestore needs the files2iceberg-ledger-firestore module on the classpath");
  }
}
