package io.files2iceberg.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.files2iceberg.listener.ListenerApplication.Options;
import org.junit.jupiter.api.Test;

class ListenerApplicationTest {

  @Test
  void optionsTakeSeparateOrInlineValues() {
    Options options = Options.parse(
        new String[] {"--config", "profiles", "--deployment=ops/deployment.conf", "--home=/tmp/h", "--port", "9090"});

    assertThat(options.config()).contains("profiles");
    assertThat(options.deployment()).contains("ops/deployment.conf");
    assertThat(options.home()).contains("/tmp/h");
    assertThat(options.port()).contains(9090);
    assertThat(options.help()).isFalse();
  }

  @Test
  void badPortAndUnknownOptionsAreNamed() {
    assertThatThrownBy(() -> Options.parse(new String[] {"--port", "70000"}))
        .hasMessage("--port \"70000\" is not a port from 1 to 65535");
    assertThatThrownBy(() -> Options.parse(new String[] {"--conf", "x"})).hasMessage("unknown option --conf");
    assertThatThrownBy(() -> Options.parse(new String[] {"--config"})).hasMessage("--config needs a value");
  }

  @Test
  void helpNeedsNothingElse() {
    assertThat(Options.parse(new String[] {"--help"}).help()).isTrue();
    assertThat(Options.parse(new String[] {"-h"}).help()).isTrue();
  }
}
