package io.files2iceberg.core.profile;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.files2iceberg.core.profile.ProfileKeys.Key;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Renders resolved profiles as JSON, every default filled in, under the same kebab-case keys a
 * profile file uses, plus {@code name} and {@code source}. One rendered profile is itself a valid
 * profile (HOCON reads JSON; the loader accepts {@code name} and {@code source}), so what {@code
 * validate} prints can be saved and loaded back, and {@link ProfileLoader#parse} reads what {@link
 * #toJson} writes back into an equal profile.
 */
public final class ProfileJson {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private ProfileJson() {}

  /** A pretty-printed JSON array with one object per profile, in the given order. */
  public static String render(List<TableProfile> profiles) {
    ArrayNode array = NODES.arrayNode();
    profiles.forEach(profile -> array.add(profile(profile)));
    try {
      return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(array);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("cannot render profiles as JSON", e);
    }
  }

  /**
   * One profile as a JSON object on one line, structured as the elements of {@link #render}. {@link
   * ProfileLoader#parse}, given the profile's source, reads it back into an equal profile.
   */
  public static String toJson(TableProfile profile) {
    try {
      return MAPPER.writeValueAsString(profile(profile));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("cannot render profile " + profile.name() + " as JSON", e);
    }
  }

  /** One profile: {@code name}, {@code source}, then every key of {@link ProfileKeys}. */
  static ObjectNode profile(TableProfile profile) {
    ObjectNode root = NODES.objectNode();
    root.put(ProfileKeys.RENDERED_NAME.path(), ProfileKeys.RENDERED_NAME.resolved().apply(profile));
    root.put(
        ProfileKeys.RENDERED_SOURCE.path(), ProfileKeys.RENDERED_SOURCE.resolved().apply(profile));
    for (Key<?> key : ProfileKeys.keys()) {
      put(root, key, key.resolved().apply(profile));
    }
    return root;
  }

  /**
   * A deployment as the text of a deployment file: a pretty-printed JSON object with every key of
   * {@link DeploymentKeys}, which {@link DeploymentLoader#parse} reads back into an equal deployment.
   */
  static String deployment(Deployment deployment) {
    ObjectNode root = NODES.objectNode();
    for (DeploymentKeys.Key<?> key : DeploymentKeys.keys()) {
      put(root, key, key.resolved().apply(deployment));
    }
    try {
      return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("cannot render the deployment as JSON", e);
    }
  }

  /** The rendered value of one key, as a JSON node: what two files are compared by. */
  static JsonNode value(Object resolved) {
    return json(resolved);
  }

  private static void put(ObjectNode root, SettingKey<?> key, Object value) {
    ObjectNode section = root;
    List<String> segments = key.segments();
    for (String segment : segments.subList(0, segments.size() - 1)) {
      section = section.has(segment) ? (ObjectNode) section.get(segment) : section.putObject(segment);
    }
    section.set(segments.get(segments.size() - 1), json(value));
  }

  private static JsonNode json(Object value) {
    if (value == null) {
      return NODES.nullNode();
    }
    if (value instanceof String text) {
      return NODES.textNode(text);
    }
    if (value instanceof Boolean bool) {
      return NODES.booleanNode(bool);
    }
    if (value instanceof Integer number) {
      return NODES.numberNode(number);
    }
    if (value instanceof Long number) {
      return NODES.numberNode(number);
    }
    if (value instanceof Double number) {
      return NODES.numberNode(number);
    }
    if (value instanceof Duration duration) {
      return NODES.textNode(ValueType.format(duration));
    }
    if (value instanceof List<?> list) {
      ArrayNode array = NODES.arrayNode();
      list.forEach(item -> array.add(json(item)));
      return array;
    }
    if (value instanceof Map<?, ?> map) {
      ObjectNode object = NODES.objectNode();
      map.forEach((k, v) -> object.set(k.toString(), json(v)));
      return object;
    }
    throw new IllegalArgumentException("no JSON form for " + value.getClass().getName());
  }
}
