package io.files2iceberg.sparkjob;

/** The Spark job; its stages arrive with the job work. */
final class SparkJobModule {
  private SparkJobModule() {}
}
