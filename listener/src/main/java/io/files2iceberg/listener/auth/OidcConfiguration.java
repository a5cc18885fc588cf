package io.files2iceberg.listener.auth;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;
import java.net.URI;
import java.util.List;

/**
 * Where the push endpoint's OIDC tokens are checked against: Google's signing keys and issuer
 * names. Whether tokens are required at all, for which audience and which service account, is the
 * profiles' {@code listener.oidc-audience} and {@code listener.oidc-service-account}; these two
 * properties only move the checks to other keys (the tests serve their own).
 *
 * @param jwksUri the JSON Web Key Set of the keys that sign the tokens ({@code
 *     files2iceberg.listener.oidc.jwks-uri})
 * @param issuers the accepted {@code iss} claims ({@code files2iceberg.listener.oidc.issuers});
 *     Google writes both spellings
 */
@ConfigurationProperties(OidcConfiguration.PREFIX)
record OidcConfiguration(
    @Bindable(defaultValue = DEFAULT_JWKS_URI) URI jwksUri,
    @Bindable(defaultValue = DEFAULT_ISSUERS) List<String> issuers) {

  static final String PREFIX = "files2iceberg.listener.oidc";
  static final String DEFAULT_JWKS_URI = "https://www.googleapis.com/oauth2/v3/certs";
  static final String DEFAULT_ISSUERS = "https://accounts.google.com,accounts.google.com";

  OidcConfiguration {
    issuers = issuers.stream().map(String::trim).filter(s -> !s.isEmpty()).toList();
    if (issuers.isEmpty()) {
      throw new IllegalArgumentException(PREFIX + ".issuers: must name at least one issuer");
    }
  }
}
