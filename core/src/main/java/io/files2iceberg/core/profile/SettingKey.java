package io.files2iceberg.core.profile;

import java.util.Arrays;
import java.util.List;

/** One leaf key of a settings file, a table profile's or the deployment file's. */
interface SettingKey<T> {

  /** The dotted path, such as {@code extract.batch-file.pattern}. */
  String path();

  /** The value's type. */
  ValueType<T> type();

  default List<String> segments() {
    return Arrays.asList(path().split("\\."));
  }
}
