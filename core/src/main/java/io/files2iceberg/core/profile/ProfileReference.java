package io.files2iceberg.core.profile;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The two documents generated from {@link ProfileKeys}: the reference page
 * (docs/reference/profile-keys.md) and the JSON Schema editors read (docs/profile.schema.json).
 * Tests compare both with the committed files; nothing else writes them.
 */
final class ProfileReference {

  static final String PAGE = "docs/reference/profile-keys.md";
  static final String SCHEMA = "docs/profile.schema.json";

  private static final ObjectMapper JSON = new ObjectMapper();
  // A link's text holds no '[' (a glob's class in code, such as `[a-z]`, is not a link).
  private static final Pattern LINK = Pattern.compile("\\[([^\\[\\]]+)\\]\\([^)]+\\)");
  private static final Pattern LITERAL = Pattern.compile("`([^`]*)`");

  private ProfileReference() {}

  /** The reference page: one row per key, in the registry's order. */
  static String markdown() {
    StringBuilder page = new StringBuilder();
    page.append("<!-- Generated from ProfileKeys by ProfileReferenceTest; do not edit. Regenerate with\n")
        .append("     mvn -o -B -pl core test -Dtest=ProfileReferenceTest -Dfiles2iceberg.docs.regenerate=true -->\n")
        .append("# Profile keys\n\n")
        .append("Every key a table profile may set, in HOCON (`.conf`) or YAML (`.yaml`, `.yml`); dotted keys nest.\n")
        .append("How profiles are read, and an example in both syntaxes: [Table profiles](../profiles.md).\n")
        .append("Editors that read JSON Schema complete and check these keys with\n")
        .append("[`profile.schema.json`](../profile.schema.json). A key set to `null` takes its default; values\n")
        .append("in a list of codes are matched in any case.\n\n")
        .append("<!-- profile-keys:start -->\n")
        .append("| key | type | default | meaning |\n")
        .append("|---|---|---|---|\n");
    for (ProfileKeys.Key<?> key : ProfileKeys.keys()) {
      page.append("| `").append(key.path()).append("` | ")
          .append(typeName(key.type(), key.doc().values())).append(" | ")
          .append(key.doc().defaultValue()).append(" | ")
          .append(key.doc().description()).append(" |\n");
    }
    page.append("<!-- profile-keys:end -->\n");
    return page.toString();
  }

  /** The JSON Schema (draft 2020-12) of a profile, as HOCON or YAML parse to JSON. */
  static String jsonSchema() {
    ObjectNode schema = JSON.createObjectNode();
    schema.put("$schema", "https://json-schema.org/draft/2020-12/schema");
    schema.put("title", "files2iceberg table profile");
    schema.put("description", "One table: where its files land, how to read and transform them, which"
        + " Iceberg table they go to. Generated from ProfileKeys; see docs/reference/profile-keys.md.");

    Map<String, ObjectNode> defs = new LinkedHashMap<>();
    for (ProfileKeys.Key<?> key : ProfileKeys.keys()) {
      defs.put(key.path(), leaf(key.type(), key.doc()));
    }
    for (ProfileKeys.Key<?> rendered : List.of(ProfileKeys.RENDERED_NAME, ProfileKeys.RENDERED_SOURCE)) {
      defs.put(rendered.path(), leaf(rendered.type(), rendered.doc()));
    }
    for (DeploymentKeys.Key<?> key : DeploymentKeys.keys()) {
      ObjectNode node = leaf(key.type(), new ProfileKeys.Doc("", "", List.of()));
      node.put("deprecated", true);
      node.put("description", "A deployment key: it belongs in the deployment file (deployment.conf);"
          + " a profile that sets it loads with a warning.");
      defs.put(key.path(), node);
    }
    List<String> leaves = new ArrayList<>(defs.keySet());
    List<String> objects = objectPaths(leaves);
    for (String object : objects) {
      defs.put(object, objectNode(object, leaves, objects));
    }

    ObjectNode root = objectNode("", leaves, objects);
    root.fields().forEachRemaining(field -> schema.set(field.getKey(), field.getValue()));
    ArrayNode required = schema.putArray("allOf");
    for (ProfileKeys.Key<?> key : ProfileKeys.keys()) {
      if (key.doc().isRequired()) {
        required.add(requires(List.of(key.path().split("\\."))));
      }
    }
    ObjectNode defsNode = schema.putObject("$defs");
    defs.keySet().stream().sorted().forEach(path -> defsNode.set(path, defs.get(path)));
    try {
      DefaultPrettyPrinter printer = new DefaultPrettyPrinter()
          .withObjectIndenter(new DefaultIndenter("  ", "\n"))
          .withArrayIndenter(new DefaultIndenter("  ", "\n"));
      return JSON.writer(printer).writeValueAsString(schema) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render the profile schema", e);
    }
  }

  /**
   * That a key is set, in any of the spellings that nest to it: {@code load.iceberg.table} is
   * {@code load.iceberg.table} at the top, or {@code iceberg.table} inside {@code load}, or {@code
   * table} inside {@code iceberg} inside {@code load}, or {@code table} inside {@code load.iceberg}.
   * A key set to null counts as missing, as the loader reads it.
   */
  private static ObjectNode requires(List<String> segments) {
    ObjectNode node = JSON.createObjectNode();
    ArrayNode anyOf = node.putArray("anyOf");
    for (int i = 1; i <= segments.size(); i++) {
      String name = String.join(".", segments.subList(0, i));
      ObjectNode spelling = anyOf.addObject();
      spelling.putArray("required").add(name);
      ObjectNode value;
      if (i == segments.size()) {
        value = JSON.createObjectNode();
        value.putObject("not").put("type", "null");
      } else {
        value = requires(segments.subList(i, segments.size()));
      }
      spelling.putObject("properties").set(name, value);
    }
    return node;
  }

  /** Every path that holds keys: {@code extract}, {@code extract.batch-file}, ... */
  private static List<String> objectPaths(List<String> leaves) {
    List<String> objects = new ArrayList<>();
    for (String leaf : leaves) {
      for (int dot = leaf.indexOf('.'); dot > 0; dot = leaf.indexOf('.', dot + 1)) {
        String parent = leaf.substring(0, dot);
        if (!objects.contains(parent)) {
          objects.add(parent);
        }
      }
    }
    return objects;
  }

  /**
   * An object at {@code prefix}: its children by name, and, since dotted keys nest (in YAML as in
   * HOCON), every deeper path spelled with dots as well. Unknown keys are refused, as the loader
   * refuses them.
   */
  private static ObjectNode objectNode(String prefix, List<String> leaves, List<String> objects) {
    ObjectNode node = JSON.createObjectNode();
    node.put("type", "object");
    ObjectNode properties = node.putObject("properties");
    String start = prefix.isEmpty() ? "" : prefix + ".";
    List<String> below = new ArrayList<>();
    for (String path : objects) {
      if (path.startsWith(start) && !path.equals(prefix)) {
        below.add(path);
      }
    }
    for (String path : leaves) {
      if (path.startsWith(start)) {
        below.add(path);
      }
    }
    below.stream()
        .sorted((a, b) -> {
          int depth = Long.compare(dots(a), dots(b));
          return depth != 0 ? depth : a.compareTo(b);
        })
        .forEach(path -> properties.putObject(path.substring(start.length()))
            .put("$ref", "#/$defs/" + path));
    node.put("additionalProperties", false);
    return node;
  }

  private static long dots(String path) {
    return path.chars().filter(c -> c == '.').count();
  }

  private static ObjectNode leaf(ValueType<?> type, ProfileKeys.Doc doc) {
    ObjectNode node = JSON.createObjectNode();
    if (!doc.description().isEmpty()) {
      node.put("description", plain(doc.description()) + defaultSentence(doc.defaultValue()));
    }
    literalDefault(type, doc.defaultValue()).ifPresent(value -> node.set("default", value));
    ArrayNode anyOf = node.putArray("anyOf");
    if (type == ValueType.LIST) {
      ObjectNode array = anyOf.addObject();
      array.put("type", "array");
      array.set("items", doc.values().isEmpty() ? scalar(false) : codes(doc.values()));
    } else if (type == ValueType.OBJECTS) {
      ObjectNode array = anyOf.addObject();
      array.put("type", "array");
      array.set("items", QualityKeys.elementSchema(JSON));
    } else if (type == ValueType.MAP || type == ValueType.NON_BLANK_MAP) {
      ObjectNode map = anyOf.addObject();
      map.put("type", "object");
      map.set("additionalProperties", scalar(type == ValueType.MAP));
    } else if (type == ValueType.BOOLEAN) {
      anyOf.addObject().put("type", "boolean");
      anyOf.addObject().put("type", "string").put("pattern", caseInsensitive(List.of("true", "false")));
    } else if (type == ValueType.WHOLE_NUMBER) {
      ObjectNode integer = anyOf.addObject().put("type", "integer");
      doc.minimum().ifPresent(least -> integer.put("minimum", least));
      anyOf.addObject().put("type", "string").put("pattern", doc.minimum().equals(Optional.of(1L))
          ? "^\\s*0*[1-9][0-9]*\\s*$" : "^\\s*-?[0-9]+\\s*$");
    } else if (type == ValueType.FRACTION) {
      anyOf.addObject().put("type", "number").put("minimum", 0).put("maximum", 1);
      anyOf.addObject().put("type", "string").put("pattern", "^\\s*[0-9]*\\.?[0-9]+\\s*$");
    } else if (type == ValueType.BYTES) {
      ObjectNode integer = anyOf.addObject().put("type", "integer");
      doc.minimum().ifPresent(least -> integer.put("minimum", least));
      anyOf.addObject().put("type", "string").put("pattern", doc.minimum().equals(Optional.of(1L))
          ? "^\\s*0*[1-9][0-9]*\\s*[A-Za-z]*\\s*$" : "^\\s*[0-9]+\\s*[A-Za-z]*\\s*$");
    } else if (type == ValueType.DURATION) {
      anyOf.addObject().put("type", "string").put("pattern", "^\\s*[0-9.]+\\s*[A-Za-z]+\\s*$");
    } else if (type == ValueType.DURATION_OR_ZERO) {
      anyOf.addObject().put("type", "string").put("pattern", "^\\s*([0-9.]+\\s*[A-Za-z]+|0+)\\s*$");
      anyOf.addObject().put("const", 0);
    } else if (!doc.values().isEmpty()) {
      anyOf.add(codes(doc.values()));
      if (!doc.deprecatedValues().isEmpty()) {
        ObjectNode old = anyOf.addObject();
        old.put("deprecated", true);
        old.put("description", "The spelling of old, still read with a warning.");
        old.putArray("type").add("boolean").add("string");
        old.put("pattern", caseInsensitive(doc.deprecatedValues()));
      }
    } else if (doc.pattern().isPresent()) {
      anyOf.addObject().put("type", "string").put("pattern", "^(?:" + doc.pattern().get() + ")$");
    } else if (type == ValueType.NON_BLANK || type == ValueType.STRING) {
      anyOf.add(scalar(type == ValueType.STRING));
    } else {
      throw new IllegalStateException("no JSON Schema for the value type of a key: add it here");
    }
    anyOf.addObject().put("type", "null");
    return node;
  }

  /** A string, number or boolean (the loader takes numbers and booleans as their text). */
  private static ObjectNode scalar(boolean blankAllowed) {
    ObjectNode node = JSON.createObjectNode();
    ArrayNode types = node.putArray("type");
    types.add("string").add("number").add("boolean");
    if (!blankAllowed) {
      node.put("pattern", "\\S");
    }
    return node;
  }

  /** One of the codes, in any case: the exact codes first, for completion. */
  private static ObjectNode codes(List<String> values) {
    ObjectNode node = JSON.createObjectNode();
    ArrayNode anyOf = node.putArray("anyOf");
    ArrayNode exact = anyOf.addObject().putArray("enum");
    values.forEach(exact::add);
    anyOf.addObject().put("type", "string").put("pattern", caseInsensitive(values));
    return node;
  }

  private static String caseInsensitive(List<String> values) {
    return values.stream()
        .map(value -> value.chars()
            .mapToObj(c -> Character.isLetter(c)
                ? "[" + Character.toUpperCase((char) c) + Character.toLowerCase((char) c) + "]"
                : literal((char) c))
            .collect(Collectors.joining()))
        .collect(Collectors.joining("|", "^\\s*(", ")\\s*$"));
  }

  /** The default as a JSON value, when the reference shows one literal; rules and words give none. */
  private static Optional<JsonNode> literalDefault(ValueType<?> type, String defaultValue) {
    Matcher literal = LITERAL.matcher(defaultValue);
    if (!literal.matches()) {
      return Optional.empty();
    }
    String text = literal.group(1);
    try {
      if (type == ValueType.BOOLEAN || type == ValueType.WHOLE_NUMBER || type == ValueType.FRACTION
          || type == ValueType.LIST || type == ValueType.OBJECTS
          || type == ValueType.MAP || type == ValueType.NON_BLANK_MAP) {
        return Optional.of(JSON.readTree(text));
      }
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the default " + defaultValue + " is not JSON", e);
    }
    return Optional.of(JSON.getNodeFactory().textNode(text));
  }

  private static String defaultSentence(String defaultValue) {
    return " Default: " + plain(defaultValue) + ".";
  }

  /** Markdown as an editor's tooltip shows it: links become their text. */
  private static String plain(String markdown) {
    return LINK.matcher(markdown).replaceAll("$1");
  }

  private static String typeName(ValueType<?> type, List<String> values) {
    if (values.isEmpty()) {
      return type.name();
    }
    String codes = values.stream().map(v -> "`" + v + "`").collect(Collectors.joining(", "));
    return (type == ValueType.LIST ? "list of " : "one of ") + codes;
  }

  private static String literal(char c) {
    if (Character.isDigit(c) || c == '_' || c == '-') {
      return String.valueOf(c);
    }
    throw new IllegalStateException("a code with " + c + ": escape it for the schema's pattern");
  }
}
