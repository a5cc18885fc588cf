package io.files2iceberg.sparkjob.stage;

import static org.assertj.core.api.Assertions.assertThat;

import io.files2iceberg.core.manifest.ManifestFile;
import java.io.IOException;
import java.net.SocketException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.parquet.io.ParquetDecodingException;
import org.apache.spark.SparkException;
import org.apache.spark.sql.errors.QueryExecutionErrors;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/** The decision over an exception's cause chain: deterministic or transient, its error class, its file. */
class ClassifiedFailureTest {
  static final ManifestFile ORDERS = file("file:///landing/p1/orders[1] {x}.parquet");
  static final ManifestFile OTHER = file("file:///landing/p1/orders.parquet");
  static final List<ManifestFile> FILES = List.of(ORDERS, OTHER);

  static ManifestFile file(String uri) {
    return new ManifestFile("id-" + uri.hashCode(), uri, "p1", 1, 10, "event", Instant.EPOCH);
  }

  static SparkException jobAborted(Throwable taskError) {
    return new SparkException("Job aborted due to stage failure: Task 0 in stage 2.0 failed 1 times", taskError);
  }

  @Test
  void aDecodingErrorUnderSparksReadErrorIsDeterministicAndNamesTheFile() {
    SparkException read = new SparkException("Encountered error while reading file /landing/p1/orders[1] {x}.parquet."
        + " Details:", new ParquetDecodingException("Can not read value at 0 in block 0"));

    ClassifiedFailure classified = ClassifiedFailure.of(jobAborted(read), FILES);

    assertThat(classified.isDeterministic()).isTrue();
    assertThat(classified.cause().errorClass()).isEqualTo(ParquetDecodingException.class.getName());
    assertThat(classified.cause().file()).contains(ORDERS.uri());
    assertThat(ClassifiedFailure.isReadError(jobAborted(read))).isTrue();
  }

  @Test
  void networkTroubleIsTransientEvenUnderADecodingError() {
    Throwable error = jobAborted(new ParquetDecodingException("Can not read value",
        new SocketException("Connection reset")));

    ClassifiedFailure classified = ClassifiedFailure.of(error, FILES);

    assertThat(classified.isDeterministic()).isFalse();
    assertThat(classified.cause().errorClass()).isEqualTo(SocketException.class.getName());
    assertThat(ClassifiedFailure.isReadError(error)).isFalse();
  }

  @Test
  void aFunctionThatFailsOnARowsValueIsDeterministic() {
    // The job's own UDF refusing a row (its per-file lookup), as Spark wraps it.
    Throwable udf = QueryExecutionErrors.failedExecuteUserDefinedFunctionError("lookup", "string", "int",
        new IllegalStateException("the reader returned a row of file:///x, which is none of the 2 files"));
    Throwable cast = QueryExecutionErrors.invalidInputInCastToNumberError(DataTypes.IntegerType,
        UTF8String.fromString("abc"), null);

    ClassifiedFailure failedUdf = ClassifiedFailure.of(jobAborted(udf), FILES);
    ClassifiedFailure failedCast = ClassifiedFailure.of(jobAborted(cast), FILES);
    ClassifiedFailure udfOverNetwork = ClassifiedFailure.of(jobAborted(QueryExecutionErrors
        .failedExecuteUserDefinedFunctionError("lookup", "string", "int", new SocketException("reset"))), FILES);

    assertThat(failedUdf.isDeterministic()).isTrue();
    assertThat(failedUdf.cause().errorClass()).isEqualTo("FAILED_EXECUTE_UDF");
    assertThat(failedCast.isDeterministic()).isTrue();
    assertThat(failedCast.cause().errorClass()).isEqualTo("CAST_INVALID_INPUT");
    assertThat(udfOverNetwork.isDeterministic()).as("network trouble under it is still transient").isFalse();
  }

  @Test
  void aLostExecutorAFetchFailureAndStorageIoAreTransient() {
    ClassifiedFailure lost = ClassifiedFailure.of(new SparkException("Job aborted due to stage failure: Task 0 in"
        + " stage 3.0 failed 4 times, most recent failure: Lost task 0.3 in stage 3.0 (TID 7) (10.0.0.5 executor 2):"
        + " ExecutorLostFailure (executor 2 exited)"), FILES);
    assertThat(lost.isDeterministic()).isFalse();
    assertThat(lost.cause().errorClass()).isEqualTo("ExecutorLostFailure");
    ClassifiedFailure outOfMemory = ClassifiedFailure.of(new SparkException("Job aborted due to stage failure: Task 0"
        + " in stage 3.0 failed 1 times, most recent failure: Lost task 0.0 in stage 3.0 (TID 3) (localhost executor"
        + " driver): java.lang.OutOfMemoryError: Requested array size exceeds VM limit at x.y(Z.java:1)"), FILES);
    assertThat(outOfMemory.isDeterministic()).isFalse();
    assertThat(outOfMemory.cause().errorClass()).isEqualTo(OutOfMemoryError.class.getName());
    assertThat(ClassifiedFailure.of(jobAborted(new IOException("503 Service Unavailable")), FILES)
        .isDeterministic()).isFalse();
    assertThat(ClassifiedFailure.of(jobAborted(new OutOfMemoryError("Java heap space")), FILES)
        .cause().errorClass()).isEqualTo(OutOfMemoryError.class.getName());
  }

  @Test
  void aStagesVerdictIsDeterministicAndNamesTheFileOfItsMessage() {
    ClassifiedFailure classified = ClassifiedFailure.of(
        new BatchFailedException("cannot read file " + OTHER.uri() + ": not a Parquet file"), FILES);

    assertThat(classified.isDeterministic()).isTrue();
    assertThat(classified.cause().errorClass()).isEqualTo("BatchFailedException");
    assertThat(classified.cause().file()).contains(OTHER.uri());
  }

  @Test
  void anErrorNamingNoBatchFileHasNoFileAtFault() {
    ClassifiedFailure classified = ClassifiedFailure.of(new IllegalStateException("catalog unavailable"), FILES);

    assertThat(classified.isDeterministic()).isFalse();
    assertThat(classified.cause().file()).isEqualTo(Optional.empty());
    assertThat(classified.cause().errorClass()).isEqualTo(IllegalStateException.class.getName());
  }
}
