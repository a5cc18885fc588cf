package io.files2iceberg.sparkjob.stage;

import io.files2iceberg.core.ledger.FailureCause;
import io.files2iceberg.core.manifest.ManifestFile;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.SparkException;
import org.apache.spark.SparkThrowable;

/**
 * Why a batch failed, decided once from the exception the job caught: whether the same batch
 * would fail the same way again ({@link #isDeterministic()}: the job exits REJECTED and the batch is
 * not retried) or may load when run again (FAILED, retried), Spark's error class or the root
 * exception's class, and the one file at fault when the error names one.
 *
 * <p>Spark's {@code SparkException} and {@code AnalysisException} are checked exceptions that
 * Scala throws undeclared, so the exception is any {@link Throwable} the job caught, and the
 * decision walks its whole cause chain (a task's error reaches the driver wrapped in "Job aborted
 * due to stage failure", and a reader's in "Encountered error while reading file"):
 *
 * <ol>
 *   <li>Network trouble anywhere in the chain (a refused or reset connection, an unknown host, a
 *       timeout) is transient, whatever wraps it: it says nothing about the file.
 *   <li>Input the job cannot take is deterministic: a stage's {@link BatchFailedException}, an
 *       {@code AnalysisException}, a {@code SparkUpgradeException} (a calendar or format Spark
 *       refuses to guess), a Parquet, ORC or Avro decoding error, a column the reader cannot
 *       convert, an error Spark classes as a value's (a function of the job's refusing a row,
 *       {@code CAST_INVALID_INPUT}, {@code ARITHMETIC_OVERFLOW}, {@code raise_error} in a
 *       transform).
 *   <li>Everything else is transient: a lost executor, a fetch failure, out of memory in a task,
 *       a storage I/O error, and any error not named above (retried at most {@code
 *       job.max-attempts} times, then its partitions are FAILED with the cause).
 * </ol>
 */
public record ClassifiedFailure(boolean isDeterministic, FailureCause cause) {

  /**
   * Exceptions (by class name, matched on the class and its superclasses) a reader throws about the
   * content of one file.
   */
  private static final Set<String> READ_ERRORS = Set.of(
      "org.apache.spark.SparkUpgradeException",
      "org.apache.parquet.io.ParquetDecodingException",
      "org.apache.parquet.io.InvalidRecordException",
      "org.apache.parquet.schema.InvalidSchemaException",
      "org.apache.parquet.crypto.ParquetCryptoRuntimeException",
      "org.apache.spark.sql.execution.datasources.SchemaColumnConvertNotSupportedException",
      "org.apache.spark.sql.execution.QueryExecutionException",
      "org.apache.orc.FileFormatException",
      "org.apache.avro.AvroRuntimeException",
      "org.apache.spark.sql.avro.IncompatibleSchemaException");

  /** Exceptions of input the job cannot take: the read errors, and the batch's own refusals. */
  private static final Set<String> DETERMINISTIC = Stream.concat(READ_ERRORS.stream(), Stream.of(
      "org.apache.spark.sql.AnalysisException",
      "io.files2iceberg.sparkjob.stage.BatchFailedException")).collect(Collectors.toUnmodifiableSet());

  /**
   * Spark's error classes for a value an expression cannot take (a function of the job's that
   * refuses a row, a cast or arithmetic on a value): about the rows, so a retry fails alike.
   */
  private static final Set<String> VALUE_ERROR_CLASSES = Set.of("FAILED_EXECUTE_UDF", "CAST_INVALID_INPUT",
      "CAST_OVERFLOW", "CAST_OVERFLOW_IN_TABLE_INSERT", "ARITHMETIC_OVERFLOW", "DIVIDE_BY_ZERO",
      "NUMERIC_VALUE_OUT_OF_RANGE", "USER_RAISED_EXCEPTION", "DATETIME_OVERFLOW");

  /**
   * The packages of the decoders under Spark's readers: an exception of theirs, or one they throw
   * (a plain {@code IOException} "can not read class PageHeader", a truncated column chunk), is
   * about the bytes of the file, not about the storage that served them.
   */
  private static final List<String> DECODER_PACKAGES = List.of("org.apache.parquet.", "shaded.parquet.",
      "org.apache.orc.", "org.apache.avro.", "org.xerial.snappy.", "com.github.luben.zstd.", "io.airlift.compress.",
      "net.jpountz.lz4.", "org.apache.spark.sql.execution.datasources.parquet.",
      "org.apache.spark.sql.execution.datasources.orc.", "org.apache.spark.sql.avro.");

  /** Network trouble: transient, whatever wraps it. */
  private static final Set<String> NETWORK = Set.of(
      "java.net.SocketException",
      "java.net.UnknownHostException",
      "java.net.SocketTimeoutException",
      "java.io.InterruptedIOException",
      "java.nio.channels.ClosedByInterruptException");

  /** Spark's error classes of a reader's failure, which name the file in their message. */
  private static final List<String> FILE_MESSAGE_PREFIXES = List.of(
      "Encountered error while reading file ", "cannot be converted in file ", "Error while reading file ");

  /** What a stage failure names as its last task's failure: {@code ...): java.lang.OutOfMemoryError: ...}. */
  private static final Pattern TASK_FAILURE =
      Pattern.compile("^Job aborted due to stage failure: .*?most recent failure: .*?\\): ([A-Za-z_$][\\w.$]*)");

  public ClassifiedFailure {
    Objects.requireNonNull(cause, "cause");
  }

  /**
   * Classifies an exception of the job on a batch.
   *
   * @param files the files the batch read: the one whose path the error names is the file at fault
   */
  public static ClassifiedFailure of(Throwable error, Collection<ManifestFile> files) {
    List<Throwable> chain = chain(error);
    boolean network = chain.stream().anyMatch(t -> isA(t, NETWORK));
    boolean deterministic = !network
        && chain.stream().anyMatch(t -> isA(t, DETERMINISTIC) || isFromDecoder(t) || isAboutAValue(t));
    return new ClassifiedFailure(deterministic, new FailureCause(errorClass(chain), fileAtFault(chain, files)));
  }

  /**
   * Whether the error is a reader's about the content of one file (a decoding error, a column it
   * cannot convert, a calendar it refuses to guess), not about the batch as a whole.
   */
  public static boolean isReadError(Throwable error) {
    List<Throwable> chain = chain(error);
    return chain.stream().noneMatch(t -> isA(t, NETWORK))
        && chain.stream().anyMatch(t -> isA(t, READ_ERRORS) || isFromDecoder(t));
  }

  /** Whether Spark names the error as one a row's value causes: the same rows fail the same way again. */
  private static boolean isAboutAValue(Throwable t) {
    return t instanceof SparkThrowable spark && spark.getErrorClass() != null
        && VALUE_ERROR_CLASSES.contains(spark.getErrorClass());
  }

  /** The error class of the failure, as {@link FailureCause#errorClass} describes it. */
  static String errorClass(List<Throwable> chain) {
    // The deepest of Spark's named error classes; its legacy numbered ones say less than the
    // exception's class under them.
    for (int i = chain.size() - 1; i >= 0; i--) {
      if (chain.get(i) instanceof SparkThrowable spark) {
        String errorClass = spark.getErrorClass();
        if (errorClass != null && !errorClass.startsWith("_LEGACY_ERROR") && !errorClass.equals("INTERNAL_ERROR")) {
          return errorClass;
        }
      }
    }
    Throwable root = chain.get(chain.size() - 1);
    if (root instanceof SparkException && root.getMessage() != null) {
      // A task's failure that reached the driver as text only: a fatal error (out of memory), a
      // lost executor ("ExecutorLostFailure"), a fetch failure ("FetchFailed").
      Matcher task = TASK_FAILURE.matcher(root.getMessage());
      if (task.find()) {
        return task.group(1);
      }
    }
    if (root instanceof BatchFailedException && root.getCause() == null) {
      return BatchFailedException.class.getSimpleName();
    }
    return root.getClass().getName();
  }

  /**
   * The batch file whose path an error of the chain names, when exactly one does: Spark's read
   * errors carry the path (as a Hadoop path, percent-decoded), the job's own name the URI.
   */
  static Optional<String> fileAtFault(List<Throwable> chain, Collection<ManifestFile> files) {
    List<String> messages = new ArrayList<>();
    for (Throwable t : chain) {
      if (t.getMessage() != null) {
        messages.add(t.getMessage());
      }
    }
    // A reader's own message names the one file it read; prefer it to a wrapper that lists others.
    for (String prefix : FILE_MESSAGE_PREFIXES) {
      for (String message : messages) {
        int at = message.indexOf(prefix);
        if (at >= 0) {
          Optional<String> named = named(message.substring(at + prefix.length()), files);
          if (named.isPresent()) {
            return named;
          }
        }
      }
    }
    for (String message : messages) {
      Optional<String> named = named(message, files);
      if (named.isPresent()) {
        return named;
      }
    }
    return Optional.empty();
  }

  /** The file the text names: the longest path or URI of a batch file it holds, when only one is longest. */
  private static Optional<String> named(String text, Collection<ManifestFile> files) {
    ManifestFile best = null;
    int bestLength = 0;
    boolean tie = false;
    for (ManifestFile file : files) {
      // An archived file is read, and so named by the reader's errors, at its archive.
      List<String> forms = new ArrayList<>(forms(file.uri()));
      if (file.archive().isPresent()) {
        forms.addAll(forms(file.readUri()));
      }
      for (String form : forms) {
        if (form.length() > bestLength && text.contains(form)) {
          best = file;
          bestLength = form.length();
          tie = false;
        } else if (form.length() == bestLength && best != null && best != file && text.contains(form)) {
          tie = true;
        }
      }
    }
    return best == null || tie ? Optional.empty() : Optional.of(best.uri());
  }

  /** The ways an error may spell a file: its URI, its path, its path percent-encoded. */
  private static List<String> forms(String uri) {
    List<String> forms = new ArrayList<>(List.of(uri));
    try {
      URI parsed = new URI(uri.replace(" ", "%20"));
      if (parsed.getPath() != null) {
        forms.add(parsed.getPath());
      }
      if (parsed.getRawPath() != null) {
        forms.add(parsed.getRawPath());
      }
    } catch (URISyntaxException e) {
      int scheme = uri.indexOf(":/");
      if (scheme > 0) {
        forms.add(uri.substring(scheme + 1).replaceFirst("^//[^/]*", ""));
      }
    }
    return forms;
  }

  /** The exception and its causes, outermost first (a cycle is cut). */
  static List<Throwable> chain(Throwable error) {
    List<Throwable> chain = new ArrayList<>();
    for (Throwable t = Objects.requireNonNull(error, "error"); t != null && !chain.contains(t); t = t.getCause()) {
      chain.add(t);
    }
    return chain;
  }

  /** An exception of a decoder's, or thrown by one (its top frame); not a wrapper Spark adds. */
  private static boolean isFromDecoder(Throwable error) {
    if (error instanceof SparkThrowable) {
      return false;
    }
    String type = error.getClass().getName();
    StackTraceElement[] frames = error.getStackTrace();
    String thrower = frames.length == 0 ? "" : frames[0].getClassName();
    return DECODER_PACKAGES.stream().anyMatch(p -> type.startsWith(p) || thrower.startsWith(p));
  }

  private static boolean isA(Throwable error, Set<String> classNames) {
    for (Class<?> type = error.getClass(); type != null; type = type.getSuperclass()) {
      if (classNames.contains(type.getName())) {
        return true;
      }
    }
    return false;
  }
}
