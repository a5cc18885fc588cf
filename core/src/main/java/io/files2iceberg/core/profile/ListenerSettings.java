package io.files2iceberg.core.profile;

import java.util.Optional;

/**
 * The notification listener. Every profile of one deployment must agree on these.
 *
 * @param port HTTP port; the {@code PORT} environment variable wins on Cloud Run
 * @param pushPath the Pub/Sub push endpoint's path
 * @param listPrefixOnMarker list a partition's prefix when its marker arrives and record files
 *     whose notifications have not arrived yet
 * @param oidcAudience when set, push requests must carry a Google OIDC token for this audience
 * @param oidcServiceAccount when set, the token's email must be this push service account
 */
public record ListenerSettings(
    int port,
    String pushPath,
    boolean listPrefixOnMarker,
    Optional<String> oidcAudience,
    Optional<String> oidcServiceAccount) {}
