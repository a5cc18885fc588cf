package io.files2iceberg.core.ledger;

import io.files2iceberg.core.profile.LedgerSettings;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.TreeSet;
import java.util.stream.Collectors;

/** Opens the ledger a deployment's settings name, through the provider of its type. */
public final class Ledgers {
  private Ledgers() {}

  /**
   * Opens the ledger of {@code ledger.type}: the provider of that type on the classpath ({@code
   * sqlite} is part of core; {@code firestore} comes with the {@code files2iceberg-ledger-firestore}
   * module), after it checked the settings.
   *
   * @throws IllegalStateException when no provider of the type is on the classpath; the message
   *     lists the types that are
   * @throws IllegalArgumentException when the provider finds the settings wrong
   */
  public static Ledger open(LedgerSettings settings, Clock clock) {
    LedgerProvider provider = provider(settings.type()).orElseThrow(() -> new IllegalStateException(
        "ledger.type = " + settings.type() + ": " + noProvider(settings.type())));
    List<LedgerProvider.Problem> problems = provider.problems(settings);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(problems.stream()
          .map(problem -> problem.key() + ": " + problem.reason())
          .collect(Collectors.joining("; ")));
    }
    return provider.open(settings, clock);
  }

  /** The provider of a {@code ledger.type} (case-insensitive) on the classpath. */
  public static Optional<LedgerProvider> provider(String type) {
    for (LedgerProvider provider : providers()) {
      if (provider.type().equalsIgnoreCase(type.trim())) {
        return Optional.of(provider);
      }
    }
    return Optional.empty();
  }

  /**
   * Why a type cannot be opened: no provider of it, with the types found, as {@code no ledger
   * provider of type "x" on the classpath; found: firestore, sqlite}.
   */
  public static String noProvider(String type) {
    return "no ledger provider of type \"" + type + "\" on the classpath; found: " + String.join(", ", types())
        + " (a type of its own module needs that module, such as files2iceberg-ledger-" + type.trim() + ")";
  }

  /** Every {@code ledger.type} a provider on the classpath opens, sorted. */
  public static List<String> types() {
    TreeSet<String> types = new TreeSet<>();
    providers().forEach(provider -> types.add(provider.type()));
    return List.copyOf(types);
  }

  private static ServiceLoader<LedgerProvider> providers() {
    return ServiceLoader.load(LedgerProvider.class, Ledgers.class.getClassLoader());
  }
}
