package io.files2iceberg.ledger.firestore;

import static io.files2iceberg.core.ledger.LedgerSchema.BATCHES;
import static io.files2iceberg.core.ledger.LedgerSchema.BATCH_KEY;
import static io.files2iceberg.core.ledger.LedgerSchema.BUCKET;
import static io.files2iceberg.core.ledger.LedgerSchema.COMMITTED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.CREATED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.FILES;
import static io.files2iceberg.core.ledger.LedgerSchema.GENERATION;
import static io.files2iceberg.core.ledger.LedgerSchema.LEASE_UNTIL;
import static io.files2iceberg.core.ledger.LedgerSchema.NAME;
import static io.files2iceberg.core.ledger.LedgerSchema.PARTITION;
import static io.files2iceberg.core.ledger.LedgerSchema.PARTITIONS;
import static io.files2iceberg.core.ledger.LedgerSchema.READY_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.SETTLING;
import static io.files2iceberg.core.ledger.LedgerSchema.STATE;
import static io.files2iceberg.core.ledger.LedgerSchema.TABLE;
import static io.files2iceberg.core.ledger.LedgerSchema.UPDATED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.URI;
import static io.files2iceberg.core.ledger.LedgerSchema.CLEANED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.INGESTED_AT;
import static io.files2iceberg.core.ledger.LedgerSchema.LANDING;
import static io.files2iceberg.core.ledger.LedgerSchema.REMOVAL_PENDING;

import com.google.cloud.firestore.CollectionReference;
import com.google.cloud.firestore.FieldPath;
import com.google.cloud.firestore.Query;
import java.util.List;

/**
 * Every query the Firestore ledger runs, as a shape: collection, filters, order. The ledger builds
 * its queries only from these, so {@code terraform/firestore-indexes.json} can be checked against
 * them (a test does): a shape with an order or a range beside other fields needs a composite index;
 * an equality-only shape is served by merging single-field indexes, which its fields must keep.
 */
enum LedgerQuery {
  /** The claim walk and the failed list: a table's partitions in one state, oldest token first. */
  PARTITIONS_IN_STATE(PARTITIONS, List.of(eq(TABLE), eq(STATE)), List.of(asc(PARTITION))),
  /** Status: how many partitions of a table are in one state. */
  PARTITION_COUNT(PARTITIONS, List.of(eq(TABLE), eq(STATE)), List.of()),
  /** Status: the partition READY the longest (the lag). */
  PARTITIONS_IN_STATE_BY_READY_AT(PARTITIONS, List.of(eq(TABLE), eq(STATE)), List.of(asc(READY_AT))),
  /** Operator commands: every partition of a table (sorted in memory: returned whole anyway). */
  PARTITIONS_OF_TABLE(PARTITIONS, List.of(eq(TABLE)), List.of()),
  /** Operator commands: every file of a partition (sorted in memory: returned whole anyway). */
  FILES_OF_PARTITION(FILES, List.of(eq(TABLE), eq(PARTITION)), List.of()),
  /** The tables: a loose index scan, one partition per table (Firestore has no DISTINCT). */
  TABLE_AFTER(PARTITIONS, List.of(gt(TABLE)), List.of(asc(TABLE))),

  /** A partition's RECORDED files in claim order, so consecutive claims take consecutive ranges. */
  PENDING_FILES(FILES, List.of(eq(TABLE), eq(PARTITION), eq(STATE)), List.of(asc(URI), asc(GENERATION))),
  /**
   * Landing cleanup's candidates: a table's INGESTED files whose object is where it landed, loaded
   * before a time, oldest load first. The load time is the one time the files collection indexes,
   * and only here, behind the table, the state and the landing: it is written once per file by its
   * batch's commit (a few commits a minute per table, at the job's pace), never by the listener's
   * arrivals, so its growing end takes far fewer writes than Firestore's hotspot bound. A file
   * without a load time (written before version 10) has no entry in the range.
   */
  FILES_TO_CLEAN(FILES, List.of(eq(TABLE), eq(STATE), eq(LANDING), lt(INGESTED_AT)),
      List.of(asc(INGESTED_AT), ascId())),
  /**
   * A resumed cleanup: a table's files cleaned in the ledger whose object is still to remove,
   * oldest decision first. Few at any time (cleanup removes them right after deciding).
   */
  FILES_BEING_CLEANED(FILES, List.of(eq(TABLE), eq(REMOVAL_PENDING)), List.of(asc(CLEANED_AT), ascId())),
  /** Status: how many files of a table are in one state. */
  FILE_COUNT(FILES, List.of(eq(TABLE), eq(STATE)), List.of()),
  /** The files of a pruned batch (sorted by their position in memory: at most one batch's files). */
  FILES_OF_BATCH(FILES, List.of(eq(BATCH_KEY)), List.of()),

  /** Claims and pruning: the table's batches that still owe writes (a process died between two commits). */
  BATCHES_SETTLING(BATCHES, List.of(eq(TABLE), in(SETTLING)), List.of()),
  /** Exclusive claims: does the table have a batch in one of these states. */
  BATCHES_IN_STATES(BATCHES, List.of(eq(TABLE), in(STATE)), List.of()),
  /** Status: batches in flight, oldest first. */
  BATCHES_IN_STATES_BY_CREATED_AT(BATCHES, List.of(eq(TABLE), in(STATE)), List.of(asc(CREATED_AT), ascId())),
  /** The last commit and pruning: committed batches, newest first. */
  BATCHES_IN_STATE_BY_COMMITTED_AT(BATCHES, List.of(eq(TABLE), eq(STATE)), List.of(desc(COMMITTED_AT), descId())),
  /** Status: failed batches, newest first. */
  BATCHES_IN_STATE_BY_UPDATED_AT(BATCHES, List.of(eq(TABLE), eq(STATE)), List.of(desc(UPDATED_AT), descId())),
  /**
   * {@code history}: a table's batches in one state (COMMITTED, FAILED) changed since a time,
   * newest first. The files collection has no index on a time (one that only grows would take
   * every write at one end); the batches are few and their updatedAt index (table, state,
   * updatedAt) is the one failed batches are listed by, so a history reads the batches settled in
   * its window, then their files by id. It ends where pruning ended the batches.
   */
  BATCHES_IN_STATE_UPDATED_SINCE(BATCHES, List.of(eq(TABLE), eq(STATE), atLeast(UPDATED_AT)),
      List.of(desc(UPDATED_AT), descId())),
  /** Recovery: in-flight batches of every table whose lease ended, oldest lease first. */
  EXPIRED_LEASES(BATCHES, List.of(in(STATE), lt(LEASE_UNTIL)), List.of(asc(LEASE_UNTIL), ascId())),

  // Operator commands: retry, inspect, quarantine (rare; sorted in memory where no index is worth it).
  /** {@code quarantine list}: the QUARANTINED files of every table. */
  FILES_IN_STATE(FILES, List.of(eq(STATE)), List.of()),
  /** {@code inspect --file}: every generation of one object. */
  FILES_NAMED(FILES, List.of(eq(BUCKET), eq(NAME)), List.of(asc(GENERATION))),
  /**
   * {@code inspect --partition}: a table's stored batches, filtered by partition in memory (the
   * partitions array is kept out of the indexes; committed batches are pruned, so they are few).
   */
  BATCHES_OF_TABLE(BATCHES, List.of(eq(TABLE)), List.of()),
  /**
   * {@code rollback}, {@code drop-partition} and claims (is one INTENDED): a table's operators'
   * changes, sorted in memory (a table has few).
   */
  CHANGES_OF_TABLE(io.files2iceberg.core.ledger.LedgerSchema.CHANGES, List.of(eq(TABLE)), List.of()),
  /**
   * Publishing: the change events not yet acknowledged, oldest first. A single-field index: the
   * outbox holds only what is still to publish (a few documents), so its growing createdAt never
   * makes a hot range.
   */
  PENDING_EVENTS(io.files2iceberg.core.ledger.LedgerSchema.OUTBOX, List.of(), List.of(asc(CREATED_AT), ascId()));

  /** The pseudo-field of the document id; every index ends with it implicitly. */
  static final String DOCUMENT_ID = FieldPath.documentId().toString();

  enum Op { EQUAL, IN, LESS_THAN, GREATER_THAN, AT_LEAST }

  record Filter(String field, Op op) {
    boolean isEquality() {
      return op == Op.EQUAL || op == Op.IN;
    }
  }

  record Order(String field, Query.Direction direction) {}

  final String collection;
  final List<Filter> filters;
  final List<Order> orders;

  LedgerQuery(String collection, List<Filter> filters, List<Order> orders) {
    this.collection = collection;
    this.filters = filters;
    this.orders = orders;
  }

  /**
   * The query on {@code target} (the prefixed collection of {@link #collection}) with one value per
   * filter, in order; an {@code IN} filter takes a list.
   */
  Query on(CollectionReference target, Object... values) {
    if (values.length != filters.size()) {
      throw new IllegalArgumentException(name() + " takes " + filters.size() + " values, got " + values.length);
    }
    Query query = target;
    for (int i = 0; i < filters.size(); i++) {
      Filter filter = filters.get(i);
      Object value = values[i];
      query = switch (filter.op()) {
        case EQUAL -> query.whereEqualTo(filter.field(), value);
        case IN -> query.whereIn(filter.field(), (List<?>) value);
        case LESS_THAN -> query.whereLessThan(filter.field(), value);
        case GREATER_THAN -> query.whereGreaterThan(filter.field(), value);
        case AT_LEAST -> query.whereGreaterThanOrEqualTo(filter.field(), value);
      };
    }
    for (Order order : orders) {
      query = order.field().equals(DOCUMENT_ID)
          ? query.orderBy(FieldPath.documentId(), order.direction())
          : query.orderBy(order.field(), order.direction());
    }
    return query;
  }

  /** Whether Firestore needs a composite index for it (see the class comment). */
  boolean needsCompositeIndex() {
    boolean equalityOnly = orders.isEmpty() && filters.stream().allMatch(Filter::isEquality);
    long fields = java.util.stream.Stream.concat(
            filters.stream().map(Filter::field), orders.stream().map(Order::field))
        .filter(field -> !field.equals(DOCUMENT_ID))
        .distinct()
        .count();
    return !equalityOnly && fields > 1;
  }

  private static Filter eq(String field) {
    return new Filter(field, Op.EQUAL);
  }

  private static Filter in(String field) {
    return new Filter(field, Op.IN);
  }

  private static Filter lt(String field) {
    return new Filter(field, Op.LESS_THAN);
  }

  private static Filter gt(String field) {
    return new Filter(field, Op.GREATER_THAN);
  }

  private static Filter atLeast(String field) {
    return new Filter(field, Op.AT_LEAST);
  }

  private static Order asc(String field) {
    return new Order(field, Query.Direction.ASCENDING);
  }

  private static Order desc(String field) {
    return new Order(field, Query.Direction.DESCENDING);
  }

  private static Order ascId() {
    return asc(FieldPath.documentId().toString());
  }

  private static Order descId() {
    return desc(FieldPath.documentId().toString());
  }
}
