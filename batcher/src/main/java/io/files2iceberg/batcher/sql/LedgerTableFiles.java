package io.files2iceberg.batcher.sql;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.files2iceberg.core.ledger.BatchRecord;
import io.files2iceberg.core.ledger.FileRecord;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.LedgerTable;
import io.files2iceberg.core.ledger.PartitionRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The ledger's files, partitions and batches as the JSON lines files ({@link LedgerTable}) that
 * {@code sql} hands to the SQL runner, which shows them as the read-only tables {@code
 * files2iceberg.files}, {@code .partitions} and {@code .batches}.
 *
 * <p>Why a hand-over folder: the runner is a child JVM on the Spark job's classpath, which has
 * neither the ledgers' clients nor the deployment's credentials, while the CLI opens whichever
 * ledger the deployment names, as {@code status} does, through the {@link Ledger} interface, so
 * both stores (and any later one) give the same tables. The ledger is read only when a statement
 * names the catalog ({@link #areNamedIn}), so other queries cost nothing more.
 *
 * <p>Memory stays bounded by one table's partitions and batches and one partition's files: each
 * record is written to its file as it is read, never collected. The tables are a snapshot taken
 * table by table, partition by partition (no store offers one transaction over the whole ledger),
 * so a record that changes while they are written may show its state before or after.
 */
final class LedgerTableFiles {
  /**
   * The catalog's name as an identifier of its own ({@code files2iceberg.files}, {@code USE
   * files2iceberg}, {@code `files2iceberg`}), not as part of a longer name ({@code
   * local.files2iceberg.x}, {@code my_files2iceberg}).
   */
  private static final Pattern CATALOG_NAME = Pattern.compile("(?<![\\w.`])`?files2iceberg`?(?![\\w`])",
      Pattern.CASE_INSENSITIVE);

  private static final JsonFactory JSON = new JsonFactory();

  private LedgerTableFiles() {}

  /** Whether one of the statements names the catalog {@code files2iceberg}. */
  static boolean areNamedIn(List<String> statements) {
    return statements.stream().anyMatch(statement -> CATALOG_NAME.matcher(statement).find());
  }

  /** Writes every record of the ledger into {@code folder} (which exists), one file per table. */
  static void write(Ledger ledger, Path folder) throws IOException {
    try (TableFile files = new TableFile(folder, LedgerTable.FILES);
        TableFile partitions = new TableFile(folder, LedgerTable.PARTITIONS);
        TableFile batches = new TableFile(folder, LedgerTable.BATCHES)) {
      for (String table : ledger.tables()) {
        for (PartitionRecord partition : ledger.partitions(table)) {
          partitions.write(LedgerTable.PARTITIONS, partition);
          for (FileRecord file : ledger.filesOfPartition(table, partition.partition())) {
            files.write(LedgerTable.FILES, file);
          }
        }
        for (BatchRecord batch : ledger.batches(table)) {
          batches.write(LedgerTable.BATCHES, batch);
        }
      }
    }
  }

  /** Deletes the folder and what is in it; what cannot be deleted is left to the system's temp cleaning. */
  static void delete(Path folder) {
    try (Stream<Path> paths = Files.walk(folder)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // Nothing to report: the folder holds a copy of what the ledger holds.
    }
  }

  /** One table's file, a JSON object a line. */
  private static final class TableFile implements AutoCloseable {
    private final JsonGenerator json;

    TableFile(Path folder, LedgerTable<?> table) throws IOException {
      Writer writer = Files.newBufferedWriter(folder.resolve(table.fileName()), StandardCharsets.UTF_8);
      json = JSON.createGenerator(writer);
      json.setRootValueSeparator(null);
    }

    <R> void write(LedgerTable<R> table, R record) throws IOException {
      table.writeRow(json, record);
      json.writeRaw('\n');
    }

    @Override
    public void close() throws IOException {
      json.close(); // closes the writer too
    }
  }
}
