package io.files2iceberg.core.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import io.files2iceberg.core.ledger.sqlite.SqliteLedgerProvider;
import io.files2iceberg.core.profile.LedgerSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LedgersTest {
  private final MutableClock clock = new MutableClock(Instant.parse("2024-05-01T10:00:00Z"));

  private static LedgerSettings settings(String type, String sqlitePath, Map<String, String> properties) {
    return new LedgerSettings(type, sqlitePath, Optional.empty(), "(default)", "", Duration.ofSeconds(5), properties);
  }

  @Test
  void sqliteSettingsOpenTheSqliteLedgerThroughItsProvider(@TempDir Path dir) {
    try (Ledger ledger = Ledgers.open(settings("sqlite", dir.resolve("ledger.db").toString(), Map.of()), clock)) {
      assertThat(ledger).isInstanceOf(SqliteLedger.class);
      assertThat(ledger.isAvailable()).isTrue();
    }
    assertThat(Ledgers.provider("SQLite")).get().isInstanceOf(SqliteLedgerProvider.class);
  }

  @Test
  void aProviderOnTheClasspathOpensItsTypeByNameWithoutAChangeToCore(@TempDir Path dir) {
    Path file = dir.resolve("test.db");

    try (Ledger ledger = Ledgers.open(settings("test-sqlite", "unused.db", Map.of("file", file.toString())), clock)) {
      assertThat(ledger.isAvailable()).isTrue();
    }

    assertThat(file).exists();
    assertThat(dir.resolve("unused.db")).doesNotExist();
    assertThat(Ledgers.types()).containsExactly("sqlite", "test-sqlite");
  }

  @Test
  void aTypeWithoutAProviderIsRefusedNamingTheTypesFound() {
    assertThatThrownBy(() -> Ledgers.open(settings("firestore", "unused.db", Map.of()), clock))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("ledger.type = firestore: no ledger provider of type \"firestore\" on the classpath;"
            + " found: sqlite, test-sqlite (a type of its own module needs that module, such as"
            + " files2iceberg-ledger-firestore)");
  }

  @Test
  void settingsTheProviderFindsWrongAreRefusedNamingTheKey() {
    assertThatThrownBy(() -> Ledgers.open(settings("test-sqlite", "unused.db", Map.of()), clock))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ledger.properties.file: is required when ledger.type = test-sqlite");
  }
}
