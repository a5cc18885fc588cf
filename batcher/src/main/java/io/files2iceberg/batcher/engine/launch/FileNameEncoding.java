package io.files2iceberg.batcher.engine.launch;

import java.util.Locale;
import java.util.Map;

/**
 * The file-name encoding of the JVMs the batcher starts (the job, the warm driver, {@code sql},
 * the listener): UTF-8, whatever the machine's locale. Java 17 takes the encoding of file names
 * ({@code sun.jnu.encoding}) from the locale of its environment, not from {@code -D} options: under
 * a POSIX locale ({@code LANG} unset or {@code C}) it cannot open a file whose name is not ASCII,
 * and an object named {@code caf\u00e9.json} could never load.
 */
public final class FileNameEncoding {
  /** The locale a child gets when its environment's is not UTF-8. */
  public static final String UTF8_LOCALE = "C.UTF-8";

  private FileNameEncoding() {}

  /**
   * Sets {@code LC_ALL} in a child's environment to {@value #UTF8_LOCALE} unless the locale it
   * would run with is UTF-8 already ({@code LC_ALL}, else {@code LC_CTYPE}, else {@code LANG}).
   */
  public static Map<String, String> requireUtf8(Map<String, String> environment) {
    if (!isUtf8(environment)) {
      environment.put("LC_ALL", UTF8_LOCALE);
    }
    return environment;
  }

  /** Whether the locale of this environment has UTF-8 file names. */
  static boolean isUtf8(Map<String, String> environment) {
    String locale = null;
    for (String name : new String[] {"LC_ALL", "LC_CTYPE", "LANG"}) {
      String value = environment.get(name);
      if (value != null && !value.isEmpty()) {
        locale = value;
        break;
      }
    }
    if (locale == null) {
      return false;
    }
    String normalized = locale.toLowerCase(Locale.ROOT);
    return normalized.contains("utf-8") || normalized.contains("utf8");
  }
}
