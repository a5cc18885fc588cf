package io.files2iceberg.core.profile;

/**
 * Where the pipeline keeps per-table working files: batch manifests and job logs.
 *
 * @param path a {@code gs://} or local folder; defaults to {@code <home>/metadata/<profile>/}
 */
public record Metadata(String path) {}
