package io.files2iceberg.core.profile;

import java.util.ArrayList;
import java.util.List;

/**
 * The keys of one kind of settings file in documentation order, as its key class declares them:
 * what the sections of {@code ProfileKeys} and {@code DeploymentKeys} share.
 */
final class KeyList<K extends SettingKey<?>> {
  private final List<K> keys = new ArrayList<>();

  /** Adds a key in declaration order and returns it, for a {@code static final} field. */
  <T extends K> T add(T key) {
    keys.add(key);
    return key;
  }

  /** Every key path, in documentation order. */
  List<String> paths() {
    return keys.stream().map(SettingKey::path).toList();
  }

  /** Every key, in documentation order. */
  List<K> keys() {
    return List.copyOf(keys);
  }

  /** The keys by path, for the unknown-key check. */
  KeyPaths keyPaths() {
    return new KeyPaths(keys);
  }
}
