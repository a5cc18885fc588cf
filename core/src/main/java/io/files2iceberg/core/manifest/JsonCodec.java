package io.files2iceberg.core.manifest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;

/**
 * The one Jackson configuration of the JSON records the components exchange ({@link
 * AttemptResult}, {@link WarmRequest}, {@link WarmDriverHeartbeat}, {@link BatchLoadReport}):
 * each record maps to an annotated wire record whose property order is the document's, read and
 * written here. A value of the wrong JSON type is refused (no number read as a string, no
 * string as a number or a boolean), and every error names the document, its source and the
 * field at fault: {@code Invalid warm request <source>: table: expected a string}.
 */
final class JsonCodec {
  static final JsonMapper MAPPER = mapper();

  private JsonCodec() {}

  private static JsonMapper mapper() {
    JsonMapper mapper = JsonMapper.builder()
        .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .build();
    mapper.coercionConfigFor(LogicalType.Textual)
        .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
    return mapper;
  }

  /** The wire record on one line. */
  static String compact(Object wire) {
    try {
      return MAPPER.writeValueAsString(wire);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write " + wire, e);
    }
  }

  /** The wire record indented, one property a line. */
  static String pretty(Object wire) {
    try {
      return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(wire);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write " + wire, e);
    }
  }

  /** A wire record whose document names its format. */
  interface Document {
    String format();
  }

  /**
   * The reading of one document from one source, each error naming both: {@code Invalid
   * <document> <source>: <field>: <reason>}.
   *
   * @param document what the document is ({@code warm request})
   * @param source where the text came from
   */
  record Reading(String document, String source) {

    /**
     * The document's wire record.
     *
     * @throws IllegalArgumentException naming the field at fault when the text is not one
     */
    <T> T read(String json, Class<T> wire) {
      T read;
      try {
        read = MAPPER.readValue(json, wire);
      } catch (StreamReadException e) {
        throw new IllegalArgumentException("Invalid " + document + " " + source + ": not JSON: "
            + e.getOriginalMessage(), e);
      } catch (MismatchedInputException e) {
        throw invalid(field(e), e.getTargetType() == null ? "unexpected value" : expected(e.getTargetType()));
      } catch (JsonProcessingException e) {
        throw new IllegalArgumentException("Invalid " + document + " " + source + ": " + e.getOriginalMessage(), e);
      }
      if (read == null) {
        throw invalid("the document", "expected a JSON object");
      }
      return read;
    }

    /**
     * The wire record of a document of this format.
     *
     * @throws IllegalArgumentException also when its {@code format} is another
     */
    <T extends Document> T read(String json, Class<T> wire, String format) {
      T read = read(json, wire);
      if (!format.equals(read.format())) {
        throw invalid("format", "expected " + format);
      }
      return read;
    }

    /** The string a required field holds. */
    String text(String field, String value) {
      if (value == null) {
        throw invalid(field, "expected a string");
      }
      return value;
    }

    IllegalArgumentException invalid(String field, String reason) {
      return new IllegalArgumentException("Invalid " + document + " " + source + ": " + field + ": " + reason);
    }
  }

  private static String field(JsonMappingException e) {
    if (e.getPath().isEmpty()) {
      return "the document";
    }
    JsonMappingException.Reference last = e.getPath().get(e.getPath().size() - 1);
    return last.getFieldName() != null ? last.getFieldName() : "[" + last.getIndex() + "]";
  }

  private static String expected(Class<?> type) {
    if (type == String.class) {
      return "expected a string";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "expected true or false";
    }
    if (Number.class.isAssignableFrom(type) || type.isPrimitive()) {
      return "expected a number";
    }
    return "expected a JSON object";
  }
}
