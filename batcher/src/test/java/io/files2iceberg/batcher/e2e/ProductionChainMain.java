package io.files2iceberg.batcher.e2e;

import io.files2iceberg.ledger.firestore.FirestoreEmulator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * The production chain of {@link ProductionChainTest}, kept running for a person to try: the
 * Cloud Storage stand-in, the Pub/Sub emulator pushing to a listener, the Firestore emulator and
 * {@code batch serve}, all on loopback, on the profile {@code gs://landing/clicks/dt=*}{@code
 * /*.parquet}. It prints where each part is and how to land a file; Ctrl-C stops it all. docs/deploy.md
 * ("Try the production adapters locally") runs it from the source tree.
 *
 * <pre>{@code
 * ProductionChainMain [ROOT]   (default: a new folder under /tmp)
 * }</pre>
 */
public final class ProductionChainMain {
  private ProductionChainMain() {}

  public static void main(String[] args) throws Exception {
    Path root = args.length > 0 ? Files.createDirectories(Path.of(args[0]))
        : Files.createTempDirectory("files2iceberg-chain");
    FirestoreEmulator firestore = FirestoreEmulator.startOwn();
    String prefix = FirestoreEmulator.newPrefix();
    ProductionChain chain = ProductionChain.start(root, firestore.host(), prefix, ProductionChainTest.PROFILE,
        "local[2]");
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        chain.close();
      } catch (IOException e) {
        System.err.println("[chain] stopping: " + e);
      }
      firestore.close();
      stopped.countDown();
    }));
    chain.startBatcher();
    String endpoint = chain.storage().endpoint();
    System.out.println("""
        [chain] Cloud Storage stand-in  %s (objects under %s)
        [chain] Pub/Sub                 %s
        [chain] Firestore emulator      %s (collection prefix %s)
        [chain] profiles                %s (deployment.conf: storage.endpoint = %s)
        [chain] listener log            %s
        [chain] batcher log             %s (batch serve, every second)
        [chain] warm driver log         %s
        [chain]
        [chain] Land a file and its day's marker (the bucket notification goes to the listener):
        [chain]   curl -s -X POST --data-binary @part-0.parquet \\
        [chain]     '%s/upload/storage/v1/b/landing/o?uploadType=media&name=clicks/dt=2026-11-27/part-0.parquet'
        [chain]   curl -s -X POST --data-binary '' \\
        [chain]     '%s/upload/storage/v1/b/landing/o?uploadType=media&name=clicks/dt=2026-11-27/_SUCCESS'
        [chain] Then, from another terminal:
        [chain]   FIRESTORE_EMULATOR_HOST=%s bin/files2iceberg status --config %s --home %s
        [chain]   bin/files2iceberg sql --home %s "SELECT dt, count(*) FROM local.demo.clicks GROUP BY dt"
        [chain] Ctrl-C stops everything.""".formatted(endpoint, root.resolve("gcs"),
        chain.viaPubsub() ? "emulator, push subscription " + ProductionChain.PUSH_SUBSCRIPTION
            : "not installed: the stand-in posts each push envelope to the listener",
        firestore.host(), prefix, chain.profiles(), endpoint, chain.listenerLog(), chain.batcherLog(),
        chain.driverLog(), endpoint, endpoint, firestore.host(), chain.profiles(), chain.home(), chain.home()));
    stopped.await();
  }
}
