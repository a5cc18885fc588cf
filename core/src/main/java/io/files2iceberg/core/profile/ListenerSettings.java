package io.files2iceberg.core.profile;

import java.util.Map;
import java.util.Optional;

/**
 * The notification listener: the {@code listener} section of the deployment file.
 *
 * @param port HTTP port; the {@code PORT} environment variable wins on Cloud Run
 * @param host the address the HTTP server binds to; none: {@link #bindAddress}
 * @param pushPath the Pub/Sub push endpoint's path
 * @param pushEnabled whether the push endpoint answers; none: {@link #isPushEnabled}
 * @param listPrefixOnMarker list a partition's prefix when its marker arrives and record files
 *     whose notifications have not arrived yet
 * @param oidcAudience when set, push requests must carry a Google OIDC token for this audience
 * @param oidcServiceAccount when set, the token's email must be this push service account
 */
public record ListenerSettings(
    int port,
    Optional<String> host,
    String pushPath,
    Optional<Boolean> pushEnabled,
    boolean listPrefixOnMarker,
    Optional<String> oidcAudience,
    Optional<String> oidcServiceAccount) {

  /** The address every interface answers on: Cloud Run's default. */
  public static final String ALL_INTERFACES = "0.0.0.0";
  /** The loopback address: the default outside Cloud Run. */
  public static final String LOOPBACK = "127.0.0.1";
  /** The environment variable Cloud Run sets to the port the container must serve. */
  public static final String PORT_VARIABLE = "PORT";

  /**
   * The address to bind: {@code host}, else every interface on Cloud Run ({@code PORT} set, where
   * only Cloud Run's own front end reaches the container), else loopback, so a listener started
   * on a laptop or a VM is not reachable from the network unless {@code listener.host} says so.
   */
  public String bindAddress(Map<String, String> environment) {
    if (host.isPresent()) {
      return host.get();
    }
    String port = environment.get(PORT_VARIABLE);
    return port == null || port.isBlank() ? LOOPBACK : ALL_INTERFACES;
  }

  /**
   * Whether the push endpoint answers: {@code push-enabled}, else only when the listener does not
   * pull. A pulling listener takes its messages from the subscription, and an open push endpoint
   * beside it would let anyone who reaches it post notifications.
   *
   * @param pulls whether the listener pulls from a subscription (pull mode)
   */
  public boolean isPushEnabled(boolean pulls) {
    return pushEnabled.orElse(!pulls);
  }
}
