package io.files2iceberg.deploy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where the checked files are: the checkout holding this module (tests run in deploy/). */
final class Repository {

  static final Path ROOT = findRoot();
  static final Path TERRAFORM = ROOT.resolve("terraform");
  static final Path MODULE = TERRAFORM.resolve("modules/files2iceberg");
  static final Path SETTINGS_MODULE = TERRAFORM.resolve("modules/settings");
  static final Path EXAMPLE = TERRAFORM.resolve("examples/basic");
  static final Path INDEX_FILE = TERRAFORM.resolve("firestore-indexes.json");
  static final Path README = ROOT.resolve("README.md");
  static final Path DOCS = ROOT.resolve("docs");

  private Repository() {}

  private static Path findRoot() {
    Path dir = Path.of("").toAbsolutePath();
    for (Path d = dir; d != null; d = d.getParent()) {
      if (Files.isDirectory(d.resolve("terraform")) && Files.isRegularFile(d.resolve("pom.xml"))) {
        return d;
      }
    }
    throw new IllegalStateException("no checkout with a terraform/ folder above " + dir);
  }

  static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }
}
