package io.files2iceberg.sparkjob.extract;

import io.files2iceberg.core.match.ObjectLocation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.OptionalLong;

/**
 * The landing folder's generations: a file's last-modified time in microseconds, the rule the
 * listener, the notifier and the listings count generations by ({@link
 * ObjectLocation#localGeneration}).
 */
public final class LocalGenerations implements LiveGenerations {

  @Override
  public OptionalLong of(ObjectLocation object) throws IOException {
    if (!ObjectLocation.FILE.equals(object.scheme())) {
      throw new IllegalArgumentException("not a local file: " + object.uri());
    }
    Path path = Path.of("/" + object.name());
    try {
      BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
      return OptionalLong.of(ObjectLocation.localGeneration(attributes));
    } catch (NoSuchFileException e) {
      return OptionalLong.empty();
    }
  }
}
