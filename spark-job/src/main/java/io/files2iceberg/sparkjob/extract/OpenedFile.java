package io.files2iceberg.sparkjob.extract;

import io.files2iceberg.core.manifest.ManifestFile;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * A batch file whose schema is read, and how its columns are read: the columns whose values are
 * rescued, the new columns not loaded, the struct columns read as the table's struct.
 *
 * @param order the file's position in the manifest (from 0)
 * @param key the path by which the reader names the file ({@link #metadataKey})
 */
record OpenedFile(ManifestFile file, int order, StructType schema, String key, Map<String, String> rescued,
    Set<String> ignoredSources, int ignoredColumns, Map<String, StructType> narrowed,
    Map<String, List<String>> rescuedFields) {
  OpenedFile(ManifestFile file, int order, StructType schema, String key) {
    this(file, order, schema, key, Map.of(), Set.of(), 0, Map.of(), Map.of());
  }

  /** @param columns the source column name to its target name, for the columns whose values are rescued */
  OpenedFile withRescued(Map<String, String> columns) {
    return new OpenedFile(file, order, schema, key, Collections.unmodifiableMap(new LinkedHashMap<>(columns)),
        ignoredSources, ignoredColumns, narrowed, rescuedFields);
  }

  /**
   * @param sources the source columns not loaded ({@code load.schema-evolution = none})
   * @param count the new columns not loaded, struct fields included
   * @param structs the struct columns read as the table's struct, by source name
   * @param fields the rescued struct fields, rescued key to source column and field path
   */
  OpenedFile withNewColumns(Set<String> sources, int count, Map<String, StructType> structs,
      Map<String, List<String>> fields) {
    return new OpenedFile(file, order, schema, key, rescued, Set.copyOf(sources), count,
        Collections.unmodifiableMap(new LinkedHashMap<>(structs)),
        Collections.unmodifiableMap(new LinkedHashMap<>(fields)));
  }

  /**
   * The path by which the reader names the file in {@code _metadata.file_path}: the URI as a
   * Hadoop path, qualified by its file system, percent-encoded ({@code file:/a%20b%25c=d.json}); of
   * the archive's copy when the file was archived, since that is what the reader reads.
   */
  static String metadataKey(SparkSession spark, ManifestFile file) {
    Path path = new Path(file.readUri());
    try {
      return normalized(path.getFileSystem(spark.sparkContext().hadoopConfiguration()).makeQualified(path).toUri()
          .toString());
    } catch (IOException e) {
      throw new IllegalStateException("Cannot read file " + file.described() + " (a transient error; it is not"
          + " quarantined and the batch can be retried): " + FilesExtract.reason(e), e);
    }
  }

  /** A percent-encoded path URI without an empty authority: {@code file:///a} is {@code file:/a}. */
  static String normalized(String encoded) {
    try {
      URI uri = new URI(encoded);
      if (uri.getScheme() == null || uri.getRawPath() == null) {
        return encoded;
      }
      String authority = uri.getRawAuthority();
      return uri.getScheme() + ":" + (authority == null || authority.isEmpty() ? "" : "//" + authority)
          + uri.getRawPath();
    } catch (URISyntaxException e) {
      return encoded;
    }
  }
}
