package io.files2iceberg.sparkjob;

import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkConf;
import org.apache.spark.deploy.SparkHadoopUtil;
import org.apache.spark.sql.SparkSession;

/**
 * The Hadoop configuration the job's own files (its manifest, its result, a maintenance result) are
 * read and written with: the running Spark context's, else one made from this JVM's Spark
 * configuration ({@code spark.hadoop.*} from spark-submit, Dataproc's properties or the local
 * launcher's {@code -D} options). A bare {@code new Configuration()} would miss {@code
 * spark.hadoop.fs.gs.storage.root.url} and read the manifest from another endpoint than the rows.
 */
public final class JobHadoopConf {
  private JobHadoopConf() {}

  public static Configuration current() {
    scala.Option<SparkSession> session = SparkSession.getActiveSession();
    if (session.isEmpty()) {
      session = SparkSession.getDefaultSession();
    }
    if (session.isDefined()) {
      return session.get().sparkContext().hadoopConfiguration();
    }
    return SparkHadoopUtil.get().newConfiguration(new SparkConf());
  }
}
