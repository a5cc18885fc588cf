package io.files2iceberg.listener.pull;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives a test the Pub/Sub emulator, started once for the whole run and stopped at its end.
 * Where the emulator is not installed every test is skipped, saying so: never a silent pass. (Per
 * test rather than per class: Surefire reports a skipped test with its reason, a skipped class
 * as no test at all.) A test class that sets up with the emulator does so in {@code @BeforeEach}.
 */
final class PubsubEmulatorExtension implements BeforeEachCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(PubsubEmulatorExtension.class);

  @Override
  public void beforeEach(ExtensionContext context) {
    Assumptions.assumeTrue(
        PubsubEmulator.isInstalled(),
        () -> "The Pub/Sub emulator is not installed at " + PubsubEmulator.SCRIPT
            + " (gcloud components install pubsub-emulator, or the google-cloud-cli-pubsub-emulator"
            + " package; PUBSUB_EMULATOR_DIR names another folder). FakePubsubPullModeTest covers"
            + " pull mode against an in-process fake instead.");
    emulator(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == PubsubEmulator.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return emulator(context);
  }

  private static PubsubEmulator emulator(ExtensionContext context) {
    // In the root store: one emulator for every class of the run, closed when the run ends.
    return context
        .getRoot()
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(PubsubEmulator.class, key -> PubsubEmulator.start(), PubsubEmulator.class);
  }
}
