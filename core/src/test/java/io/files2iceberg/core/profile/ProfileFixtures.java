package io.files2iceberg.core.profile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Profile files for tests, and the errors loading them yields. */
final class ProfileFixtures {

  /** Every required key, nothing else: append sections to it with HOCON's merging. */
  static final String MINIMAL =
      """
      extract.path = "gs://bucket/raw/clicks/*.parquet"
      load.iceberg.table = "prod.raw.clicks"
      """;

  /** Every key set to something other than its default. */
  static final String EVERY_KEY_HOCON =
      """
      extract {
        path = "gs://sales-bucket/raw/orders/*/*.csv"
        format = CSV
        options { header = true, "sep" = ";" }
        recursive-file-lookup = true
        batch-file {
          ingestion-type = FULL
          partition-type = date
          pattern = "raw/orders/(?<day>[0-9]{8})/.+"
          partition-column = order_day
          date-format = yyyyMMdd
          strict-pattern = true
          success-file-filter = false
          success-file-name = "_DONE"
        }
        keep-checkpoints = 7
        save-checkpoint = false
        max-batch-size = 250
        max-batch-bytes = 1048576
        lineage-columns = [_batch_id, _source_file, _source_generation, _ingested_at]
        quarantine-bad-files = true
        on-overwrite = reload
        datetime-rebase = legacy
        timezone = "Europe/Paris"
        schema-hints = "amount DECIMAL(12,2), `order ts` TIMESTAMP"
        infer-column-types = true
      }
      transform {
        filter = ["amount > 0", "region IS NOT NULL"]
        rename-columns { amt = amount, cust = customer_id }
        cast.columns { amount = "DECIMAL(12,2)" }
        on-bad-record = reject
        rescued-data-column = _rescued
      }
      load {
        iceberg.table = "lake.sales.orders"
        save-mode = overwrite
        primary-key = [order_id, region]
        partition-by = ["region", "days(order_ts)", "bucket(16, customer_id)", "truncate(4, sku)"]
        iceberg.precombine-field = updated_at
        schema-evolution = none
        iceberg.table-properties {
          "write.merge.mode" = merge-on-read
          "write.update.mode" = merge-on-read
          "format-version" = 2
        }
        missing-columns = "null"
        write-mode = merge-on-read
        merge-scope = partitions
        snapshot-deletes = true
        snapshot-deletes-max-fraction = 0.25
        undo-tag-retention = 7d
      }
      metadata.path = "gs://sales-bucket/metadata/orders/"
      catalog {
        type = rest
        uri = "https://biglake.googleapis.com/iceberg/v1beta/restcatalog"
        warehouse = "gs://sales-bucket/warehouse"
        user-project = sales-project
        auth-type = "org.example.Auth"
        io-impl = "org.example.FileIO"
        vended-credentials = true
        properties { "header.X-Iceberg-Access-Delegation" = "vended-credentials" }
      }
      maintain.sort-by = ["order_ts DESC NULLS LAST", region]
      quality.expectations = [
        { name = amount_positive, check = "amount > 0", on-violation = reject }
        { name = enough_rows, min-rows = 10, on-violation = warn }
        { name = sku_set, column = sku, max-null-fraction = 0.1, on-violation = fail }
      ]
      """;

  /** {@link #EVERY_KEY_HOCON} in YAML: dotted keys nest, except inside free-form maps. */
  static final String EVERY_KEY_YAML =
      """
      extract:
        path: "gs://sales-bucket/raw/orders/*/*.csv"
        format: CSV
        options: {header: true, sep: ";"}
        recursive-file-lookup: true
        batch-file.ingestion-type: FULL
        batch-file:
          partition-type: date
          pattern: "raw/orders/(?<day>[0-9]{8})/.+"
          partition-column: order_day
          date-format: yyyyMMdd
          strict-pattern: true
          success-file-filter: false
          success-file-name: _DONE
        keep-checkpoints: 7
        save-checkpoint: false
        max-batch-size: 250
        max-batch-bytes: 1048576
        lineage-columns: [_batch_id, _source_file, _source_generation, _ingested_at]
        quarantine-bad-files: true
        on-overwrite: reload
        datetime-rebase: legacy
        timezone: Europe/Paris
        schema-hints: "amount DECIMAL(12,2), `order ts` TIMESTAMP"
        infer-column-types: true
      transform:
        filter: ["amount > 0", "region IS NOT NULL"]
        rename-columns:
          amt: amount
          cust: customer_id
        cast.columns:
          amount: DECIMAL(12,2)
        on-bad-record: reject
        rescued-data-column: _rescued
      load:
        iceberg.table: lake.sales.orders
        save-mode: overwrite
        primary-key: [order_id, region]
        partition-by: [region, days(order_ts), "bucket(16, customer_id)", "truncate(4, sku)"]
        iceberg.precombine-field: updated_at
        schema-evolution: none
        iceberg.table-properties.write.merge.mode: merge-on-read
        iceberg:
          table-properties:
            write.update.mode: merge-on-read
            format-version: 2
        missing-columns: null
        write-mode: merge-on-read
        merge-scope: partitions
        snapshot-deletes: true
        snapshot-deletes-max-fraction: 0.25
        undo-tag-retention: 7d
      metadata.path: gs://sales-bucket/metadata/orders/
      catalog:
        type: rest
        uri: https://biglake.googleapis.com/iceberg/v1beta/restcatalog
        warehouse: gs://sales-bucket/warehouse
        user-project: sales-project
        auth-type: org.example.Auth
        io-impl: org.example.FileIO
        vended-credentials: true
        properties:
          header.X-Iceberg-Access-Delegation: vended-credentials
      maintain:
        sort-by: ["order_ts DESC NULLS LAST", region]
      quality:
        expectations:
          - { name: amount_positive, check: "amount > 0", on-violation: reject }
          - name: enough_rows
            min-rows: 10
            on-violation: warn
          - { name: sku_set, column: sku, max-null-fraction: 0.1, on-violation: fail }
      """;

  /**
   * Every deployment key set to something other than its default; the ledger is the test
   * provider's ({@code test-sqlite}), as core has no Firestore provider.
   */
  static final String EVERY_DEPLOYMENT_KEY_HOCON =
      """
      ledger {
        type = test-sqlite
        sqlite-path = "/var/lib/files2iceberg/ledger.db"
        firestore-project = sales-project
        firestore-database = ingest
        collection-prefix = "staging_"
        deadline = 3s
        properties { file = "/var/lib/files2iceberg/test.db" }
      }
      job {
        spark-properties { "spark.executor.memory" = 4g, "spark.sql.shuffle.partitions" = 8 }
        master = "local[2]"
        dataproc-region = europe-west1
        runtime-version = "2.10"
        service-account = "job@sales-project.iam.gserviceaccount.com"
        subnetwork = "projects/sales-project/regions/europe-west1/subnetworks/default"
        jar-uri = "gs://sales-bucket/jars/spark-job.jar"
        lease-timeout = 90s
        max-attempts = 5
        mode = per-batch
        warm.idle-timeout = 45s
        warm.dataproc = cluster
        dataproc-cluster = ingest-cluster
        warm.ttl = 6h
        warm.folder = "gs://sales-bucket/files2iceberg/warm"
        kubernetes {
          namespace = lake
          image = "europe-docker.pkg.dev/sales-project/files2iceberg/spark-job:0.1.0"
          service-account = files2iceberg-job
          master = "https://10.0.0.1:443"
          jar = "gs://sales-bucket/jars/spark-job.jar"
        }
      }
      listener {
        port = 9090
        host = "0.0.0.0"
        push-path = "/push"
        push-enabled = false
        list-prefix-on-marker = false
        oidc-audience = "https://listener.example.com"
        oidc-service-account = "push@sales-project.iam.gserviceaccount.com"
      }
      storage {
        endpoint = "https://storage.example.com:8443/"
        credentials = none
      }
      events.pubsub-topic = "projects/sales-project/topics/lake-changes"
      """;

  /** {@link #EVERY_DEPLOYMENT_KEY_HOCON} in YAML. */
  static final String EVERY_DEPLOYMENT_KEY_YAML =
      """
      ledger:
        type: test-sqlite
        sqlite-path: /var/lib/files2iceberg/ledger.db
        firestore-project: sales-project
        firestore-database: ingest
        collection-prefix: staging_
        deadline: 3s
        properties:
          file: /var/lib/files2iceberg/test.db
      job:
        spark-properties:
          spark.executor.memory: 4g
          spark.sql.shuffle.partitions: 8
        master: local[2]
        dataproc-region: europe-west1
        runtime-version: 2.10
        service-account: job@sales-project.iam.gserviceaccount.com
        subnetwork: projects/sales-project/regions/europe-west1/subnetworks/default
        jar-uri: gs://sales-bucket/jars/spark-job.jar
        lease-timeout: 90s
        max-attempts: 5
        mode: per-batch
        dataproc-cluster: ingest-cluster
        warm:
          idle-timeout: 45s
          dataproc: cluster
          ttl: 6h
          folder: gs://sales-bucket/files2iceberg/warm
        kubernetes:
          namespace: lake
          image: europe-docker.pkg.dev/sales-project/files2iceberg/spark-job:0.1.0
          service-account: files2iceberg-job
          master: https://10.0.0.1:443
          jar: gs://sales-bucket/jars/spark-job.jar
      listener:
        port: 9090
        host: 0.0.0.0
        push-path: /push
        push-enabled: false
        list-prefix-on-marker: false
        oidc-audience: https://listener.example.com
        oidc-service-account: push@sales-project.iam.gserviceaccount.com
      storage:
        endpoint: https://storage.example.com:8443/
        credentials: none
      events:
        pubsub-topic: projects/sales-project/topics/lake-changes
      """;

  private ProfileFixtures() {}

  static Path write(Path dir, String fileName, String content) {
    try {
      Files.createDirectories(dir);
      return Files.writeString(dir.resolve(fileName), content);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The errors, as text, of loading one profile that must fail. */
  static List<String> loadErrors(Path file, Home home) {
    ProfileException failure =
        catchThrowableOfType(ProfileException.class, () -> ProfileLoader.load(file, home));
    assertThat(failure).as("loading %s fails", file).isNotNull();
    return failure.errors().stream().map(ProfileError::toString).toList();
  }

  /** The errors, as text, of loading a registry that must fail. */
  static List<String> registryErrors(Path dir, Home home) {
    ProfileException failure =
        catchThrowableOfType(ProfileException.class, () -> ProfileRegistry.load(dir, home));
    assertThat(failure).as("loading %s fails", dir).isNotNull();
    return failure.errors().stream().map(ProfileError::toString).toList();
  }

  /** The same profile read from another file. */
  static TableProfile withSource(TableProfile profile, Path source) {
    return new TableProfile(
        profile.name(),
        source,
        profile.extract(),
        profile.transform(),
        profile.load(),
        profile.metadata(),
        profile.catalog(),
        profile.maintain(),
        profile.quality());
  }
}
