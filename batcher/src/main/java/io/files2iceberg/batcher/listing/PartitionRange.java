package io.files2iceberg.batcher.listing;

import io.files2iceberg.core.profile.BatchFile;
import io.files2iceberg.core.profile.BatchFile.PartitionType;
import io.files2iceberg.core.profile.TableProfile;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.time.temporal.ChronoField;
import java.util.Optional;

/**
 * The partitions an operator command works on, by partition VALUE: dates (partition-type date) are
 * compared as dates, parsed with the profile's {@code date-format} (or given in ISO form), strings
 * lexicographically. Both bounds are inclusive; an absent bound is open.
 */
public final class PartitionRange {
  private final Optional<String> from;
  private final Optional<String> to;
  private final boolean dates;

  private PartitionRange(Optional<String> from, Optional<String> to, boolean dates) {
    this.from = from;
    this.to = to;
    this.dates = dates;
  }

  /** Every partition. */
  public static PartitionRange all() {
    return new PartitionRange(Optional.empty(), Optional.empty(), false);
  }

  /**
   * The range from {@code from} to {@code to} (each may be null) in the profile's partition values.
   *
   * @throws IllegalArgumentException naming the option, the value and the format when a date does
   *     not parse, or when {@code from} is after {@code to}
   */
  public static PartitionRange of(TableProfile profile, String from, String to) {
    BatchFile batchFile = profile.extract().batchFile();
    boolean dates = batchFile.partitionType() == PartitionType.DATE;
    Optional<String> lower = Optional.ofNullable(from).map(v -> canonical(profile, "--from", v, dates));
    Optional<String> upper = Optional.ofNullable(to).map(v -> canonical(profile, "--to", v, dates));
    if (lower.isPresent() && upper.isPresent() && lower.get().compareTo(upper.get()) > 0) {
      throw new IllegalArgumentException("--from " + from + " is after --to " + to);
    }
    return new PartitionRange(lower, upper, dates);
  }

  /** One partition, given as its value ({@code --partition}). */
  public static PartitionRange only(TableProfile profile, String partition) {
    return of(profile, partition, partition);
  }

  /** Whether the partition token (the ledger's key: ISO for dates) is in the range. */
  public boolean contains(String token) {
    if (dates) {
      try {
        LocalDate.parse(token);
      } catch (DateTimeParseException e) {
        return false;
      }
    }
    // ISO dates sort as their values do; strings compare as they are.
    return from.map(f -> token.compareTo(f) >= 0).orElse(true) && to.map(t -> token.compareTo(t) <= 0).orElse(true);
  }

  /** Whether both bounds are open. */
  public boolean isAll() {
    return from.isEmpty() && to.isEmpty();
  }

  /** The one token of a {@link #only} range, when it is one. */
  public Optional<String> single() {
    return from.isPresent() && from.equals(to) ? from : Optional.empty();
  }

  @Override
  public String toString() {
    if (isAll()) {
      return "every partition";
    }
    return single().map(p -> "partition " + p)
        .orElse("partitions " + from.orElse("(first)") + " to " + to.orElse("(last)"));
  }

  /** A date value as its ISO token; a string as it is. */
  private static String canonical(TableProfile profile, String option, String value, boolean dates) {
    if (!dates) {
      return value;
    }
    String format = profile.extract().batchFile().dateFormat().orElse("yyyy-MM-dd");
    DateTimeFormatter formatter = new DateTimeFormatterBuilder().appendPattern(format)
        .parseDefaulting(ChronoField.ERA, 1).toFormatter().withResolverStyle(ResolverStyle.STRICT);
    try {
      return LocalDate.parse(value, formatter).toString();
    } catch (DateTimeParseException e) {
      try {
        return LocalDate.parse(value).toString();
      } catch (DateTimeParseException iso) {
        throw new IllegalArgumentException(option + " " + value + ": not a date in the date-format \"" + format
            + "\" of table " + profile.table() + " (nor yyyy-MM-dd)");
      }
    }
  }
}
