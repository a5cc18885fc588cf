package io.files2iceberg.batcher.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class LedgerTableFilesTest {
  @Test
  void theLedgerIsReadOnlyForStatementsThatNameTheCatalogFiles2iceberg() {
    for (String named : List.of("SELECT * FROM files2iceberg.files", "select * from FILES2ICEBERG.batches",
        "SELECT * FROM `files2iceberg`.`partitions`", "USE files2iceberg", "SHOW TABLES IN files2iceberg",
        "SELECT * FROM local.demo.clicks c JOIN files2iceberg . files f ON c.f = f.uri")) {
      assertThat(LedgerTableFiles.areNamedIn(List.of("SELECT 1", named))).as(named).isTrue();
    }
    for (String unnamed : List.of("SELECT * FROM local.demo.clicks", "SELECT * FROM local.files2iceberg.files",
        "SELECT * FROM my_files2iceberg.files", "SELECT * FROM files2iceberg_old.files")) {
      assertThat(LedgerTableFiles.areNamedIn(List.of(unnamed))).as(unnamed).isFalse();
    }
  }
}
