package io.files2iceberg.core.profile;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.parser.ConfigDocument;
import com.typesafe.config.parser.ConfigDocumentFactory;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigOrigin;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigRenderOptions;
import com.typesafe.config.ConfigSyntax;
import com.typesafe.config.ConfigValue;
import java.io.IOException;
import java.io.Reader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Reads a profile file, HOCON or YAML by its extension, into the tree {@link ValueType} converts
 * from: nested {@code LinkedHashMap}s in declaration order, lists, strings, booleans, {@link
 * BigDecimal}s and nulls.
 *
 * <p>Both formats yield the same tree for the same profile. HOCON expands dotted keys itself
 * ({@code iceberg.table = x}) and keeps quoted ones literal. YAML does neither, so a dotted YAML
 * key is expanded here, except inside free-form maps ({@link ProfileKeys#isFreeForm}), whose keys
 * are the user's, such as Spark property names.
 */
final class ProfileTree {

  private static final List<String> EXTENSIONS = List.of(".conf", ".yaml", ".yml");

  private static final Set<String> YAML_TRUE = Set.of("true", "yes", "on");

  /** Deeper than any profile; reached only through a YAML alias that refers to itself. */
  private static final int MAX_DEPTH = 32;

  private ProfileTree() {}

  /** Whether the file's extension is one a profile may have. */
  static boolean isProfileFile(Path file) {
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    return EXTENSIONS.stream().anyMatch(name::endsWith);
  }

  /** The tree of the file; empty (with the problem recorded) when the file cannot be parsed. */
  static Optional<Map<String, Object>> read(Path file, Problems problems) {
    if (!Files.isRegularFile(file)) {
      problems.add("", "no such file");
      return Optional.empty();
    }
    if (!isProfileFile(file)) {
      problems.add("", "a profile file must end with .conf, .yaml or .yml");
      return Optional.empty();
    }
    return file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".conf")
        ? hocon(file, problems)
        : yaml(file, problems);
  }

  // ---------------------------------------------------------------------------------------------
  // HOCON

  private static Optional<Map<String, Object>> hocon(Path file, Problems problems) {
    Supplier<String> text = () -> {
      try {
        return java.nio.file.Files.readString(file);
      } catch (java.io.IOException | RuntimeException e) {
        return "";
      }
    };
    return hocon(() -> ConfigFactory.parseFile(file.toFile(), hoconOptions()), text, problems);
  }

  /**
   * The tree of HOCON (or JSON) text read from {@code source}; empty (with the problem recorded)
   * when the text cannot be parsed.
   */
  static Optional<Map<String, Object>> readHocon(String text, Path source, Problems problems) {
    ConfigParseOptions options = hoconOptions().setOriginDescription(source.toString());
    return hocon(() -> ConfigFactory.parseString(text, options), () -> text, problems);
  }

  private static ConfigParseOptions hoconOptions() {
    return ConfigParseOptions.defaults().setSyntax(ConfigSyntax.CONF).setAllowMissing(false);
  }

  private static Optional<Map<String, Object>> hocon(Supplier<Config> parse, Supplier<String> text,
      Problems problems) {
    try {
      Map<String, Object> tree = object(parse.get().resolve().root());
      belowABoolean(text.get(), problems);
      return Optional.of(tree);
    } catch (ConfigException e) {
      Optional<Bracket> unclosed = e instanceof ConfigException.Parse && e.getMessage().contains("end of file")
          ? unclosedBracket(text.get()) : Optional.empty();
      if (unclosed.isPresent()) {
        // Typesafe Config says a ')' is expected at the end of the file, whatever bracket is open.
        Bracket open = unclosed.get();
        problems.add("line " + open.line(), "HOCON syntax error: the '" + open.opening() + "' opened on line "
            + open.line() + " is never closed: a '" + open.closing() + "' is missing before the end of the file");
      } else {
        problems.add(line(e.origin()), hoconReason(e));
      }
      return Optional.empty();
    }
  }

  /**
   * Reports the keys of {@link LoadKeys#BELOW_A_BOOLEAN} that the text writes: HOCON's parsed tree
   * no longer shows one written before its boolean, which replaced it. The text's syntax tree
   * keeps every key as written, nested or dotted.
   */
  private static void belowABoolean(String text, Problems problems) {
    if (text.isEmpty()) {
      return;
    }
    ConfigDocument document = ConfigDocumentFactory.parseString(text, hoconOptions());
    LoadKeys.BELOW_A_BOOLEAN.entrySet().stream().sorted(Map.Entry.comparingByKey())
        .filter(misplaced -> document.hasPath(misplaced.getKey()))
        .forEach(misplaced -> {
          String parent = misplaced.getKey().substring(0, misplaced.getKey().lastIndexOf('.'));
          problems.add(misplaced.getKey(), "is not a key: write " + misplaced.getValue() + " instead; " + parent
              + " is true or false, and in HOCON a key below it and " + parent + " itself replace each other,"
              + " whichever is written last");
        });
  }

  /** A bracket of HOCON text, and the line it is on. */
  record Bracket(char opening, int line) {
    char closing() {
      return switch (opening) {
        case '{' -> '}';
        case '[' -> ']';
        default -> ')';
      };
    }
  }

  /**
   * The innermost bracket ({@code {}, {@code [}, {@code (}) the text leaves open, outside quoted
   * strings and comments; empty when every bracket is closed.
   */
  static Optional<Bracket> unclosedBracket(String text) {
    java.util.Deque<Bracket> open = new java.util.ArrayDeque<>();
    int line = 1;
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (c == '\n') {
        line++;
      } else if (text.startsWith("\"\"\"", i)) {
        int end = text.indexOf("\"\"\"", i + 3);
        end = end < 0 ? text.length() : end + 3;
        line += (int) text.substring(i, end).chars().filter(ch -> ch == '\n').count();
        i = end;
        continue;
      } else if (c == '"') {
        i++;
        while (i < text.length() && text.charAt(i) != '"' && text.charAt(i) != '\n') {
          i += text.charAt(i) == '\\' ? 2 : 1;
        }
      } else if (c == '#' || text.startsWith("//", i)) {
        while (i < text.length() && text.charAt(i) != '\n') {
          i++;
        }
        continue;
      } else if (c == '{' || c == '[' || c == '(') {
        open.push(new Bracket(c, line));
      } else if ((c == '}' || c == ']' || c == ')') && !open.isEmpty()) {
        open.pop();
      }
      i++;
    }
    return Optional.ofNullable(open.peek());
  }

  private static String hoconReason(ConfigException e) {
    String message = e.getMessage();
    ConfigOrigin origin = e.origin();
    if (origin != null && message.startsWith(origin.description() + ": ")) {
      message = message.substring(origin.description().length() + 2);
    }
    return (e instanceof ConfigException.Parse ? "HOCON syntax error: " : "") + message;
  }

  private static String line(ConfigOrigin origin) {
    return origin != null && origin.lineNumber() > 0 ? "line " + origin.lineNumber() : "";
  }

  /** HOCON objects are unordered; declaration order is recovered from the origins' lines. */
  private static Map<String, Object> object(ConfigObject object) {
    List<Map.Entry<String, ConfigValue>> entries = new ArrayList<>(object.entrySet());
    entries.sort(
        Comparator.comparingInt(
                (Map.Entry<String, ConfigValue> e) -> e.getValue().origin().lineNumber())
            .thenComparing(Map.Entry::getKey));
    Map<String, Object> tree = new LinkedHashMap<>();
    entries.forEach(entry -> tree.put(entry.getKey(), hoconValue(entry.getValue())));
    return tree;
  }

  private static Object hoconValue(ConfigValue value) {
    return switch (value.valueType()) {
      case OBJECT -> object((ConfigObject) value);
      case LIST -> ((ConfigList) value).stream().map(ProfileTree::hoconValue).toList();
      case NUMBER ->
          number(value.render(ConfigRenderOptions.concise()))
              .orElseGet(() -> new BigDecimal(value.unwrapped().toString()));
      case NULL -> null;
      case BOOLEAN, STRING -> value.unwrapped();
    };
  }

  private static Optional<BigDecimal> number(String text) {
    try {
      return Optional.of(new BigDecimal(text));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // YAML

  private static Optional<Map<String, Object>> yaml(Path file, Problems problems) {
    // compose() builds nodes only: no object is constructed, so no tag can instantiate a class.
    Yaml yaml = new Yaml(new SafeConstructor(new LoaderOptions()));
    Node root;
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      root = yaml.compose(reader);
    } catch (MarkedYAMLException e) {
      problems.add(line(e.getProblemMark()), "YAML syntax error: " + yamlReason(e));
      return Optional.empty();
    } catch (YAMLException | IOException e) {
      problems.add("", "cannot read YAML: " + e.getMessage());
      return Optional.empty();
    }
    if (root == null) {
      return Optional.of(new LinkedHashMap<>());
    }
    if (!(root instanceof MappingNode mapping)) {
      problems.add(
          line(root.getStartMark()), "expected an object of sections (extract, load, ...)");
      return Optional.empty();
    }
    return Optional.of(mapping(mapping, "", 0, problems));
  }

  private static String yamlReason(MarkedYAMLException e) {
    String context = e.getContext();
    return context == null ? e.getProblem() : e.getProblem() + " (" + context + ")";
  }

  private static String line(Mark mark) {
    return mark == null ? "" : "line " + (mark.getLine() + 1);
  }

  private static Object yamlValue(Node node, String path, int depth, Problems problems) {
    if (depth > MAX_DEPTH) {
      problems.add(path, "is nested too deeply (does a YAML alias refer to itself?)");
      return null;
    }
    if (node instanceof MappingNode mapping) {
      return mapping(mapping, path, depth, problems);
    }
    if (node instanceof SequenceNode sequence) {
      List<Object> items = new ArrayList<>();
      List<Node> nodes = sequence.getValue();
      for (int i = 0; i < nodes.size(); i++) {
        items.add(yamlValue(nodes.get(i), ProfileKeys.element(path, i), depth + 1, problems));
      }
      return items;
    }
    return scalar((ScalarNode) node);
  }

  /** The implicit YAML 1.1 types SnakeYAML resolved; everything else stays the text written. */
  private static Object scalar(ScalarNode node) {
    Tag tag = node.getTag();
    String text = node.getValue();
    if (Tag.NULL.equals(tag)) {
      return null;
    }
    if (Tag.BOOL.equals(tag)) {
      return YAML_TRUE.contains(text.toLowerCase(Locale.ROOT));
    }
    if (Tag.INT.equals(tag) || Tag.FLOAT.equals(tag)) {
      return number(text.replace("_", "")).<Object>map(n -> n).orElse(text);
    }
    return text;
  }

  private static Map<String, Object> mapping(
      MappingNode node, String path, int depth, Problems problems) {
    Map<String, Object> tree = new LinkedHashMap<>();
    boolean literalKeys = ProfileKeys.isFreeForm(path);
    for (NodeTuple tuple : node.getValue()) {
      if (!(tuple.getKeyNode() instanceof ScalarNode keyNode)) {
        problems.add(
            line(tuple.getKeyNode().getStartMark()),
            "a key must be a plain value, not a list or an object");
        continue;
      }
      String key = keyNode.getValue();
      List<String> segments =
          literalKeys || !isDotted(key) ? List.of(key) : Arrays.asList(key.split("\\."));
      insert(
          tree,
          path,
          segments,
          tuple.getValueNode(),
          depth,
          keyNode.getStartMark().getLine() + 1,
          problems);
    }
    return tree;
  }

  private static boolean isDotted(String key) {
    return key.contains(".") && Arrays.stream(key.split("\\.", -1)).noneMatch(String::isEmpty);
  }

  /**
   * Puts a (possibly dotted) key's value into the tree, creating the objects its segments name.
   * Once the segments reach a free-form map, the rest is one literal key.
   */
  @SuppressWarnings("unchecked")
  private static void insert(
      Map<String, Object> tree,
      String path,
      List<String> segments,
      Node valueNode,
      int depth,
      int line,
      Problems problems) {
    Map<String, Object> current = tree;
    String currentPath = path;
    int i = 0;
    for (; i < segments.size() - 1 && !ProfileKeys.isFreeForm(currentPath); i++) {
      String segment = segments.get(i);
      String segmentPath = ProfileKeys.child(currentPath, segment);
      Object existing = current.get(segment);
      if (existing == null) {
        existing = new LinkedHashMap<String, Object>();
        current.put(segment, existing);
      } else if (!(existing instanceof Map)) {
        problems.add(
            segmentPath, "is set twice, as a value and as an object (again on line " + line + ")");
        return;
      }
      current = (Map<String, Object>) existing;
      currentPath = segmentPath;
    }
    String key = String.join(".", segments.subList(i, segments.size()));
    String keyPath = ProfileKeys.child(currentPath, key);
    put(current, key, keyPath, yamlValue(valueNode, keyPath, depth + 1, problems), line, problems);
  }

  /** Objects set twice (once dotted, once nested) are merged; any other repetition is an error. */
  @SuppressWarnings("unchecked")
  private static void put(
      Map<String, Object> tree,
      String key,
      String keyPath,
      Object value,
      int line,
      Problems problems) {
    Object existing = tree.get(key);
    if (!tree.containsKey(key) || existing == null && value instanceof Map) {
      tree.put(key, value);
    } else if (existing instanceof Map && value instanceof Map<?, ?> more) {
      Map<String, Object> merged = (Map<String, Object>) existing;
      ((Map<String, Object>) more)
          .forEach((k, v) -> put(merged, k, ProfileKeys.child(keyPath, k), v, line, problems));
    } else {
      problems.add(keyPath, "is set twice (again on line " + line + ")");
    }
  }
}
