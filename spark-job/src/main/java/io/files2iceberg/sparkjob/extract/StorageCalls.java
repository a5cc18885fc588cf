package io.files2iceberg.sparkjob.extract;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Small calls to the storage for each file of a batch (a footer, a generation), made a few at a
 * time on the driver: each is dominated by the storage's latency, so a batch of many files waits
 * for about one call per {@link #THREADS} files instead of one per file (as Iceberg's {@code
 * Tasks.foreach(...).executeWith(pool)} does for its manifests).
 */
final class StorageCalls {
  /** Calls in flight at once. */
  static final int THREADS = 8;

  private StorageCalls() {}

  /**
   * {@code call} of each item, in the order of {@code items}. A call that throws fails the whole
   * with what it threw, as a call on this thread would: a checked exception that Scala throws
   * undeclared (Spark's {@code SparkException}) included, so that the job classifies it as it is.
   *
   * @param what what the calls do, naming their threads and an interruption
   */
  static <T, R> List<R> each(List<T> items, String what, Function<T, R> call) {
    if (items.size() <= 1) {
      return items.stream().map(call).toList();
    }
    AtomicInteger threads = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(THREADS, items.size()), runnable -> {
      Thread thread = new Thread(runnable, "files2iceberg-" + what.replace(' ', '-') + "-" + threads.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    });
    try {
      List<Future<R>> futures = new ArrayList<>();
      for (T item : items) {
        futures.add(pool.submit(() -> call.apply(item)));
      }
      List<R> results = new ArrayList<>();
      for (Future<R> future : futures) {
        results.add(future.get());
      }
      return results;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the job was reading the batch's " + what, e);
    } catch (ExecutionException e) {
      throw StorageCalls.<RuntimeException>asThrown(e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  /** Throws {@code thrown} as it is, checked or not: the compiler takes it for a {@code T}. */
  @SuppressWarnings("unchecked")
  private static <T extends Throwable> T asThrown(Throwable thrown) throws T {
    throw (T) thrown;
  }
}
