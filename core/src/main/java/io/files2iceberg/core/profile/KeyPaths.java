package io.files2iceberg.core.profile;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/** The keys one kind of file may set, by path: what the unknown-key check and its suggestions read. */
final class KeyPaths {

  private final List<SettingKey<?>> keys;

  KeyPaths(List<? extends SettingKey<?>> keys) {
    this.keys = List.copyOf(keys);
  }

  /** These keys and those of {@code other}. */
  KeyPaths plus(KeyPaths other) {
    List<SettingKey<?>> both = new ArrayList<>(keys);
    both.addAll(other.keys);
    return new KeyPaths(both);
  }

  List<SettingKey<?>> keys() {
    return keys;
  }

  boolean isKey(String path) {
    return keys.stream().anyMatch(key -> key.path().equals(path));
  }

  /** Whether {@code path} is the root ({@code ""}) or an object that holds keys. */
  boolean isSection(String path) {
    return path.isEmpty() || keys.stream().anyMatch(key -> key.path().startsWith(path + "."));
  }

  /** Whether {@code path} is a map whose keys are the user's (Spark properties and such). */
  boolean isFreeForm(String path) {
    return keys.stream().anyMatch(key -> key.path().equals(path) && key.type().isFreeForm());
  }

  /** The key names directly inside a section. */
  List<String> children(String section) {
    LinkedHashSet<String> names = new LinkedHashSet<>();
    for (String relative : below(section)) {
      names.add(relative.split("\\.", 2)[0]);
    }
    return List.copyOf(names);
  }

  /** The paths of every key inside a section, relative to it. */
  List<String> below(String section) {
    String prefix = section.isEmpty() ? "" : section + ".";
    return keys.stream()
        .map(SettingKey::path)
        .filter(path -> path.startsWith(prefix))
        .map(path -> path.substring(prefix.length()))
        .toList();
  }
}
