package io.files2iceberg.batcher.engine;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the tables' turns of one run in parallel, up to {@link RunOptions#concurrency()} at a time,
 * on daemon threads, and waits for all of them: a turn that throws stops only its own table, and
 * is an error of the run.
 */
final class TablePool {
  private static final Logger LOG = LoggerFactory.getLogger(TablePool.class);

  private TablePool() {}

  /** @param turns each table's turn, by table */
  static void runAll(Map<String, Runnable> turns, int concurrency, RunEvents run) {
    AtomicInteger threadNumber = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(concurrency, turns.size())),
        runnable -> {
          Thread thread = new Thread(runnable, "batcher-table-" + threadNumber.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        });
    try {
      Map<String, Future<?>> running = new LinkedHashMap<>();
      turns.forEach((table, turn) -> running.put(table, pool.submit(turn)));
      for (Map.Entry<String, Future<?>> turn : running.entrySet()) {
        try {
          turn.getValue().get();
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          LOG.error("Table {}: the turn stopped: {}", turn.getKey(), cause.toString(), cause);
          run.error(turn.getKey() + ": " + cause.getMessage());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      pool.shutdownNow();
      run.error("interrupted");
    } finally {
      pool.shutdown();
    }
  }
}
