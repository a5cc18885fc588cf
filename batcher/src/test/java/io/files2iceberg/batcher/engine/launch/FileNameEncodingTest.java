package io.files2iceberg.batcher.engine.launch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The JVMs the batcher starts have UTF-8 file names whatever the machine's locale. */
class FileNameEncodingTest {
  @Test
  void aChildStartedUnderAPosixLocaleHasUtf8FileNames() throws IOException, InterruptedException {
    assertThat(fileNameEncoding(Map.of("LANG", "C"), false)).as("the reason for the rule").isNotEqualTo("UTF-8");

    assertThat(fileNameEncoding(Map.of("LANG", "C"), true)).isEqualTo("UTF-8");
  }

  @Test
  void aUtf8LocaleIsKept() {
    Map<String, String> environment = new java.util.HashMap<>(Map.of("LANG", "de_DE.utf8"));

    FileNameEncoding.requireUtf8(environment);

    assertThat(environment).doesNotContainKey("LC_ALL");
  }

  /** {@code sun.jnu.encoding} of a JVM started with only these locale variables. */
  private static String fileNameEncoding(Map<String, String> locale, boolean required)
      throws IOException, InterruptedException {
    ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XshowSettings:properties", "-version").redirectErrorStream(true);
    for (String name : new String[] {"LC_ALL", "LC_CTYPE", "LANG", "LANGUAGE"}) {
      builder.environment().remove(name);
    }
    builder.environment().putAll(locale);
    if (required) {
      FileNameEncoding.requireUtf8(builder.environment());
    }
    Process process = builder.start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    process.waitFor();
    return out.lines().map(String::strip).filter(l -> l.startsWith("sun.jnu.encoding = ")).findFirst()
        .map(l -> l.substring("sun.jnu.encoding = ".length())).orElseThrow(() -> new AssertionError(out));
  }
}
