package io.files2iceberg.semantics;

import java.util.List;

/** The columns of the semantics matrix (docs/semantics.md): what happens to the files. */
enum Event {
  NEW_FILE("new-file", "a new file in an open partition"),
  MARKER("marker", "the marker"),
  LATE_FILE("late", "a late file after ingestion"),
  REWRITE_LOADED("rewrite-loaded", "a rewrite of a loaded file"),
  REWRITE_BEFORE_LOADING("rewrite-before", "a rewrite before loading"),
  SPLIT_PARTITION("split", "a partition split across batches"),
  REPLAY("replay", "a replay"),
  MISSING_COLUMN("missing-col", "a file missing a column"),
  EXTRA_COLUMN("extra-col", "a file with an extra column"),
  WIDENED_TYPE("widened", "a widened type (int -> bigint)"),
  UNSAFE_TYPE_CHANGE("unsafe", "an unsafe type change (int -> string)"),
  CORRUPT_FILE("corrupt", "a corrupt file"),
  SCHEMA_DIFFERENT_FILE("schema-diff", "a schema-different file"),
  EMPTY_FILE("empty", "an empty file"),
  DELETED_OBJECT("deleted", "a deleted object");

  final String token;
  final String description;

  Event(String token, String description) {
    this.token = token;
    this.description = description;
  }

  /** The first id of the event's rows: events never share a key. */
  int base() {
    return (ordinal() + 1) * 100;
  }

  /** The partitions the event writes, in the order they land. */
  List<String> partitions() {
    return switch (this) {
      case WIDENED_TYPE, UNSAFE_TYPE_CHANGE, SCHEMA_DIFFERENT_FILE -> List.of(token + "-1", token + "-2");
      default -> List.of(token);
    };
  }

  /** The partition the event's second round lands in (its only one for most events). */
  String last() {
    return partitions().get(partitions().size() - 1);
  }

  String first() {
    return partitions().get(0);
  }

  /** A profile name part: letters, digits and _. */
  String snake() {
    return token.replace('-', '_');
  }

  @Override
  public String toString() {
    return description;
  }
}
