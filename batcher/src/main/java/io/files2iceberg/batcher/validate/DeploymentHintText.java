package io.files2iceberg.batcher.validate;

import io.files2iceberg.core.profile.ProfileRegistry;
import java.io.PrintWriter;
import java.util.stream.Collectors;

/**
 * What {@code validate} says about profiles that carry the deployment's sections (ledger, listener,
 * job) as profiles of old did: the deployment file to write instead, printed whole, between two
 * marker lines, on the error stream (the output stays the profiles' JSON).
 */
final class DeploymentHintText {

  /** The line before the file's text. */
  static final String BEGIN = "----- begin deployment file -----";
  /** The line after it. */
  static final String END = "----- end deployment file -----";

  private DeploymentHintText() {}

  static void print(ProfileRegistry registry, PrintWriter err) {
    registry.deploymentHint().ifPresent(hint -> {
      err.println("warning: " + hint.profiles().stream().map(p -> p.getFileName().toString())
          .collect(Collectors.joining(", ")) + " carry deployment settings (ledger, listener, job, storage)."
          + " Write them to " + hint.file() + " as below, then remove those sections from the profiles:");
      err.println(BEGIN);
      err.println(hint.text());
      err.println(END);
      err.flush();
    });
  }
}
