package io.files2iceberg.listener;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/** Pub/Sub push envelopes of GCS notifications, as Pub/Sub posts them. */
final class Envelopes {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Envelopes() {}

  /** OBJECT_FINALIZE with a JSON_API_V1 object resource. */
  static String finalized(String messageId, String bucket, String name, long generation, long size) {
    return finalized(messageId, bucket, name, generation, size, null);
  }

  static String finalized(
      String messageId, String bucket, String name, long generation, long size, Long overwrote) {
    Map<String, String> attributes = attributes("OBJECT_FINALIZE", bucket, name, generation);
    if (overwrote != null) {
      attributes.put("overwroteGeneration", Long.toString(overwrote));
    }
    ObjectNode resource = JSON.createObjectNode();
    resource.put("kind", "storage#object");
    resource.put("bucket", bucket);
    resource.put("name", name);
    resource.put("generation", Long.toString(generation));
    resource.put("size", Long.toString(size));
    resource.put("md5Hash", "1B2M2Y8AsgTpgAmY7PhCfg==");
    resource.put("crc32c", "AAAAAA==");
    resource.put("contentType", "application/octet-stream");
    resource.put("timeCreated", "2024-05-01T10:00:00.000Z");
    resource.put("updated", "2024-05-01T10:00:00.000Z");
    return envelope(messageId, attributes, base64(resource.toString()));
  }

  /** The attributes GCS sends with every notification. */
  static Map<String, String> attributes(String eventType, String bucket, String name, long generation) {
    Map<String, String> attributes = new LinkedHashMap<>();
    attributes.put("eventType", eventType);
    attributes.put("bucketId", bucket);
    attributes.put("objectId", name);
    attributes.put("objectGeneration", Long.toString(generation));
    attributes.put("payloadFormat", "JSON_API_V1");
    attributes.put("notificationConfig", "projects/_/buckets/" + bucket + "/notificationConfigs/1");
    attributes.put("eventTime", "2024-05-01T10:00:01.123456Z");
    return attributes;
  }

  /** An envelope with these attributes and data, which is put in as given (base64 or not). */
  static String envelope(String messageId, Map<String, String> attributes, String data) {
    ObjectNode message = JSON.createObjectNode();
    ObjectNode attributeNode = message.putObject("attributes");
    attributes.forEach(attributeNode::put);
    if (data != null) {
      message.put("data", data);
    }
    message.put("messageId", messageId);
    message.put("message_id", messageId);
    message.put("publishTime", "2024-05-01T10:00:02.000Z");
    message.put("publish_time", "2024-05-01T10:00:02.000Z");
    ObjectNode root = JSON.createObjectNode();
    root.set("message", message);
    root.put("subscription", "projects/test/subscriptions/files2iceberg-push");
    return root.toString();
  }

  static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }
}
