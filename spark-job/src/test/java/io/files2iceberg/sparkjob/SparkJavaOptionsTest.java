package io.files2iceberg.sparkjob;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The options the local launcher will use are the ones these tests run Spark with. */
class SparkJavaOptionsTest {

  @Test
  void resourceHoldsSparksJava17OptionsAndThisJvmRunsWithThem() {
    List<String> options = SparkJavaOptions.load();

    assertThat(options).contains("-XX:+IgnoreUnrecognizedVMOptions", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens=java.security.jgss/sun.security.krb5=ALL-UNNAMED", "-Djdk.reflect.useDirectMethodHandle=false");
    assertThat(options).noneMatch(option -> option.contains("${"));
    assertThat(ManagementFactory.getRuntimeMXBean().getInputArguments()).containsAll(options);
  }

  @Test
  void commentsAndBlankLinesAreNotOptions() {
    assertThat(SparkJavaOptions.parse("# comment\n\n  -Da=1   -Db=2\n-Dc=3\n")).containsExactly("-Da=1", "-Db=2", "-Dc=3");
  }
}
