package io.files2iceberg.deploy;

import com.bertramlabs.plugins.hcl4j.HCLParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The parsed HCL of one Terraform folder: every {@code *.tf} file's blocks merged, as hcl4j gives
 * them. Plain references keep their text ({@code local.oidc_audience}); interpolations lose their
 * {@code ${}} and function calls are not evaluated, so assertions stay on references and literals.
 */
final class Hcl {

  private final Path folder;
  private final Map<String, Object> root;

  private Hcl(Path folder, Map<String, Object> root) {
    this.folder = folder;
    this.root = root;
  }

  static Hcl parse(Path folder) {
    Map<String, Object> merged = new LinkedHashMap<>();
    try (Stream<Path> files = Files.list(folder)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".tf")).sorted().toList()) {
        Map<String, Object> parsed;
        try {
          parsed = new HCLParser().parse(file.toFile(), "UTF-8");
        } catch (Exception e) {
          throw new IllegalStateException("cannot parse " + file + ": " + e.getMessage(), e);
        }
        deepMerge(merged, cast(normalized(parsed)));
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot list " + folder + ": " + e.getMessage(), e);
    }
    return new Hcl(folder, merged);
  }

  Path folder() {
    return folder;
  }

  /** {@code resource "type" "name"}'s attributes; fails naming the block when there is none. */
  Map<String, Object> resource(String type, String name) {
    return map(map(blocks("resource"), type, "resource \"" + type + "\""), name,
        "resource \"" + type + "\" \"" + name + "\"");
  }

  /** Every resource of a type, by name (empty when there is none). */
  Map<String, Map<String, Object>> resources(String type) {
    Object byName = blocks("resource").get(type);
    return byName == null ? Map.of() : typed(byName);
  }

  /** Every resource type, with its resources by name. */
  Map<String, Map<String, Map<String, Object>>> allResources() {
    Map<String, Map<String, Map<String, Object>>> all = new LinkedHashMap<>();
    blocks("resource").forEach((type, byName) -> all.put(type, typed(byName)));
    return all;
  }

  Map<String, Object> variables() {
    return blocks("variable");
  }

  Map<String, Object> module(String name) {
    return map(blocks("module"), name, "module \"" + name + "\"");
  }

  /** A top-level block kind ({@code resource}, {@code variable}, ...), empty when absent. */
  Map<String, Object> blocks(String kind) {
    Object blocks = root.get(kind);
    return blocks == null ? Map.of() : cast(blocks);
  }

  /** The nested map at {@code key} of {@code parent}; fails naming where it looked. */
  static Map<String, Object> map(Map<String, Object> parent, String key, String where) {
    Object value = parent.get(key);
    if (!(value instanceof Map<?, ?>)) {
      throw new AssertionError(where + " has no block \"" + key + "\" (has " + parent.keySet() + ")");
    }
    return cast(value);
  }

  /** A nested value by a path of keys, as hcl4j gives it ({@code null} when absent). */
  static Object at(Map<String, Object> block, String... path) {
    Object value = block;
    for (String key : path) {
      if (!(value instanceof Map<?, ?> map)) {
        return null;
      }
      value = map.get(key);
    }
    return value;
  }

  /** A value as a list: a list as it is, a single block or value as a list of one. */
  @SuppressWarnings("unchecked")
  static List<Object> list(Object value) {
    return value instanceof List<?> list ? (List<Object>) list : List.of(value);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> cast(Object map) {
    return (Map<String, Object>) map;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Map<String, Object>> typed(Object map) {
    return (Map<String, Map<String, Object>>) map;
  }

  /** Maps and lists as they are; a reference or expression object as its text. */
  private static Object normalized(Object value) {
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> copy = new LinkedHashMap<>();
      map.forEach((k, v) -> copy.put(String.valueOf(k), normalized(v)));
      return copy;
    }
    if (value instanceof List<?> list) {
      return list.stream().map(Hcl::normalized).toList();
    }
    if (value == null || value instanceof String || value instanceof Number || value instanceof Boolean) {
      return value;
    }
    return value.toString();
  }

  private static void deepMerge(Map<String, Object> into, Map<String, Object> from) {
    from.forEach(
        (key, value) -> {
          Object existing = into.get(key);
          if (existing instanceof Map<?, ?> && value instanceof Map<?, ?>) {
            deepMerge(cast(existing), cast(value));
          } else {
            into.put(key, value);
          }
        });
  }
}
