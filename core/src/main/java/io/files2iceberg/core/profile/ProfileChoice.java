package io.files2iceberg.core.profile;

import java.util.Locale;

/**
 * A profile enum whose {@link #code()}, the word a profile spells for a constant, is the constant's
 * name in lower case with hyphens for underscores: {@code COPY_ON_WRITE} is {@code copy-on-write}.
 * An enum whose words follow another rule (a column name, a capitalised Spark mode) keeps them
 * written out.
 */
public interface ProfileChoice {
  /** The constant's name, which every enum has. */
  String name();

  /** What profiles spell. */
  default String code() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
