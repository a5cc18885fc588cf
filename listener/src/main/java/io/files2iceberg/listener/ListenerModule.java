package io.files2iceberg.listener;

/** The notification listener; its service arrives with the listener work. */
final class ListenerModule {
  private ListenerModule() {}
}
