package io.files2iceberg.listener;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.files2iceberg.core.ledger.Ledger;
import io.files2iceberg.core.ledger.sqlite.SqliteLedger;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.HealthResult;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import org.slf4j.LoggerFactory;

/**
 * Where {@code /health} shows no details (a listener the network reaches), the reason the ledger
 * is DOWN is in the log: once when it goes DOWN, once when it is UP again, not once per probe.
 */
class LedgerHealthIndicatorTest {
  @TempDir Path home;

  @Test
  void theReasonIsLoggedOnceWhenTheLedgerGoesDownAndOnceWhenItIsBack() {
    Logger logger = (Logger) LoggerFactory.getLogger(HealthLog.class);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    try (SqliteLedger answering = SqliteLedger.open(home.resolve("ledger.db"), Clock.systemUTC())) {
      // A closed ledger answers nothing: what an unreachable store looks like to the listener.
      SqliteLedger closed = SqliteLedger.open(home.resolve("closed.db"), Clock.systemUTC());
      closed.close();
      AtomicBoolean down = new AtomicBoolean();
      Ledger switching = (Ledger) Proxy.newProxyInstance(Ledger.class.getClassLoader(), new Class<?>[] {Ledger.class},
          (proxy, method, args) -> {
            try {
              return method.invoke(down.get() ? closed : answering, args);
            } catch (InvocationTargetException e) {
              throw e.getCause();
            }
          });
      LedgerHealthIndicator indicator = new LedgerHealthIndicator(switching);

      HealthStatus up = status(indicator);
      status(indicator);
      down.set(true);
      HealthStatus wentDown = status(indicator);
      status(indicator);
      status(indicator);
      down.set(false);
      HealthStatus upAgain = status(indicator);
      status(indicator);

      assertThat(up).isEqualTo(HealthStatus.UP);
      assertThat(wentDown).isEqualTo(HealthStatus.DOWN);
      assertThat(upAgain).isEqualTo(HealthStatus.UP);
      assertThat(logged.list).extracting(ILoggingEvent::getLevel).containsExactly(Level.WARN, Level.INFO);
      assertThat(logged.list.get(0).getFormattedMessage())
          .startsWith("/health is DOWN (ledger): The ledger " + home.resolve("closed.db") + " is closed");
      assertThat(logged.list.get(1).getFormattedMessage()).isEqualTo("/health is UP again (ledger)");
    } finally {
      logger.detachAppender(logged);
    }
  }

  private static HealthStatus status(LedgerHealthIndicator indicator) {
    AtomicReference<HealthResult> result = new AtomicReference<>();
    indicator.getResult().subscribe(new Subscriber<HealthResult>() {
      @Override
      public void onSubscribe(Subscription subscription) {
        subscription.request(1);
      }

      @Override
      public void onNext(HealthResult next) {
        result.set(next);
      }

      @Override
      public void onError(Throwable error) {
        throw new AssertionError(error);
      }

      @Override
      public void onComplete() {}
    });
    return result.get().getStatus();
  }
}
