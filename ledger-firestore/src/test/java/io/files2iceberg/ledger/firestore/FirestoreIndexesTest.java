package io.files2iceberg.ledger.firestore;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.cloud.firestore.Query;
import io.files2iceberg.core.ledger.LedgerSchema;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code terraform/firestore-indexes.json} against the queries the ledger runs ({@link LedgerQuery}):
 * the emulator needs no indexes, production does, so this is where a missing one shows.
 */
class FirestoreIndexesTest {
  private static final Path INDEX_FILE = Path.of("..", "terraform", "firestore-indexes.json");

  /** One composite index: a collection group and its fields in order ("field ASCENDING"). */
  record Index(String collectionGroup, List<String> fields) {}

  private static List<Index> indexes;
  private static Set<String> exempted;

  @BeforeAll
  static void readIndexFile() throws IOException {
    JsonNode root = new ObjectMapper().readTree(Files.readString(INDEX_FILE));
    indexes = new ArrayList<>();
    for (JsonNode index : root.path("indexes")) {
      assertThat(index.path("queryScope").asText()).as("queryScope of %s", index).isEqualTo("COLLECTION");
      List<String> fields = new ArrayList<>();
      for (JsonNode field : index.path("fields")) {
        fields.add(field.path("fieldPath").asText() + " " + field.path("order").asText());
      }
      indexes.add(new Index(index.path("collectionGroup").asText(), fields));
    }
    exempted = new HashSet<>();
    for (JsonNode override : root.path("fieldOverrides")) {
      assertThat(override.path("indexes").isArray() && override.path("indexes").isEmpty())
          .as("only exemptions (\"indexes\": []) are declared: %s", override).isTrue();
      exempted.add(override.path("collectionGroup").asText() + "." + override.path("fieldPath").asText());
    }
  }

  @Test
  void everyQueryThatNeedsACompositeIndexHasOne() {
    for (LedgerQuery query : LedgerQuery.values()) {
      if (query.needsCompositeIndex()) {
        assertThat(indexes).as("a composite index for %s", query).anyMatch(index -> covers(index, query));
      }
    }
  }

  @Test
  void everyDeclaredIndexServesAQuery() {
    for (Index index : indexes) {
      assertThat(LedgerQuery.values()).as("a query served by %s", index)
          .anyMatch(query -> query.needsCompositeIndex() && covers(index, query));
    }
  }

  @Test
  void queriesServedBySingleFieldIndexesDoNotUseExemptedFields() {
    for (LedgerQuery query : LedgerQuery.values()) {
      if (!query.needsCompositeIndex()) {
        fields(query).forEach(field ->
            assertThat(exempted).as("%s uses %s.%s", query, query.collection, field)
                .doesNotContain(query.collection + "." + field));
      }
    }
  }

  @Test
  void fieldsThatOnlyGrowAndArraysAreExemptedFromSingleFieldIndexes() {
    assertThat(exempted).contains(
        // files: the hot collection, one document per file
        LedgerSchema.FILES + "." + LedgerSchema.RECORDED_AT,
        LedgerSchema.FILES + "." + LedgerSchema.EVENT_TIME,
        LedgerSchema.FILES + "." + LedgerSchema.GENERATION,
        LedgerSchema.FILES + "." + LedgerSchema.BATCH_ID,
        LedgerSchema.PARTITIONS + "." + LedgerSchema.READY_AT,
        LedgerSchema.PARTITIONS + "." + LedgerSchema.UPDATED_AT,
        LedgerSchema.BATCHES + "." + LedgerSchema.CREATED_AT,
        LedgerSchema.BATCHES + "." + LedgerSchema.UPDATED_AT,
        LedgerSchema.BATCHES + "." + LedgerSchema.COMMITTED_AT,
        LedgerSchema.BATCHES + "." + LedgerSchema.LEASE_UNTIL,
        // the failure cause is read with its batch, never queried
        LedgerSchema.BATCHES + "." + LedgerSchema.ERROR_CLASS,
        LedgerSchema.BATCHES + "." + LedgerSchema.ERROR_FILE,
        LedgerSchema.QUARANTINE + "." + LedgerSchema.RECEIVED_AT,
        // this process's health probe: only written, on every /health check of every instance
        LedgerSchema.PROBE + "." + LedgerSchema.UPDATED_AT,
        // arrays would get one index entry per element, the metrics map one per metric
        LedgerSchema.BATCHES + "." + LedgerSchema.FILE_IDS,
        LedgerSchema.BATCHES + "." + LedgerSchema.EVENT_IDS,
        LedgerSchema.BATCHES + "." + LedgerSchema.PARTITIONS_FIELD,
        LedgerSchema.BATCHES + "." + LedgerSchema.SUPERSEDING,
        LedgerSchema.BATCHES + "." + LedgerSchema.METRICS,
        // a map of expectation names to counts: one index entry per expectation, read with its file only
        LedgerSchema.FILES + "." + LedgerSchema.EXPECTATIONS_FAILED);
  }

  /**
   * Google's hotspot rule: no index on a value that grows with every write, where a collection
   * takes many writes. A quarantined message's document id is its Pub/Sub message id, digits that
   * grow with time, so the same value as a field is kept out of the indexes too (nothing queries
   * it): a flood of unreadable messages writes at one end of no index.
   */
  @Test
  void fieldsWhoseValuesGrowLikeTheirDocumentIdsAreExempted() {
    assertThat(exempted).contains(LedgerSchema.QUARANTINE + "." + LedgerSchema.MESSAGE_ID);
    assertThat(LedgerQuery.values()).noneMatch(query -> query.collection.equals(LedgerSchema.QUARANTINE));
  }

  @Test
  void collectionGroupsAreTheUnprefixedCollectionNames() {
    Set<String> collections = Set.of(LedgerSchema.FILES, LedgerSchema.PARTITIONS, LedgerSchema.BATCHES,
        LedgerSchema.QUARANTINE, LedgerSchema.PROBE);
    assertThat(indexes).extracting(Index::collectionGroup).allMatch(collections::contains);
    assertThat(exempted).allMatch(field -> collections.contains(field.substring(0, field.indexOf('.'))));
  }

  /**
   * Firestore's rule: the equality (and {@code in}) fields first, in any order, ascending; then the
   * order-by fields as the query orders them. The document id last is implicit, in the direction
   * of the last field.
   */
  private static boolean covers(Index index, LedgerQuery query) {
    if (!index.collectionGroup().equals(query.collection)) {
      return false;
    }
    List<String> orders = new ArrayList<>();
    for (LedgerQuery.Order order : query.orders) {
      orders.add(order.field() + " " + (order.direction() == Query.Direction.ASCENDING ? "ASCENDING" : "DESCENDING"));
    }
    String lastDirection = orders.isEmpty() ? "ASCENDING" : orders.get(orders.size() - 1).split(" ")[1];
    if (!orders.isEmpty() && orders.get(orders.size() - 1).equals(LedgerQuery.DOCUMENT_ID + " " + lastDirection)) {
      orders.remove(orders.size() - 1);
    }
    Set<String> equalities = query.filters.stream()
        .filter(LedgerQuery.Filter::isEquality)
        .map(filter -> filter.field() + " ASCENDING")
        .collect(Collectors.toSet());
    int prefix = equalities.size();
    if (index.fields().size() != prefix + orders.size()) {
      return false;
    }
    return new HashSet<>(index.fields().subList(0, prefix)).equals(equalities)
        && index.fields().subList(prefix, index.fields().size()).equals(orders);
  }

  private static Stream<String> fields(LedgerQuery query) {
    return Stream.concat(query.filters.stream().map(LedgerQuery.Filter::field),
            query.orders.stream().map(LedgerQuery.Order::field))
        .filter(field -> !field.equals(LedgerQuery.DOCUMENT_ID))
        .distinct();
  }

  @Test
  void everyCompositeQueryIsDeclaredOnce() {
    assertThat(Arrays.stream(LedgerQuery.values()).filter(LedgerQuery::needsCompositeIndex)).isNotEmpty();
  }
}
