package io.files2iceberg.batcher.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.ledger.LedgerTable;
import java.nio.file.Files;
import java.nio.file.Path;
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

  @Test
  void theOperatorsGuideListsEveryColumnOfEveryLedgerTableWithItsType() throws Exception {
    String guide = Files.readString(Path.of("..", "docs", "operate.md"));

    for (LedgerTable<?> table : LedgerTable.ALL) {
      String heading = "`files2iceberg." + table.name() + "`: ";
      int start = guide.indexOf(heading);
      assertThat(start).as(heading).isNotNegative();
      int end = guide.indexOf("\n\n", guide.indexOf("|---|", start));
      List<String> documented = guide.substring(start, end).lines().filter(line -> line.startsWith("| `"))
          .map(line -> line.split("\\|")[1].strip() + " " + line.split("\\|")[2].strip()).toList();
      assertThat(documented).as(table.name()).containsExactlyElementsOf(
          table.columns().stream().map(column -> "`" + column.name() + "` `" + column.type() + "`").toList());
    }
  }
}
