package dev.sovereign.console.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.fx.CurrentThreadUiExecutor;
import dev.sovereign.console.fx.UiExecutor;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.admin.AdminReader;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 31 item 21: a poll that found nothing new wakes the FX thread at most once a second (four polls a second
 * did, each time, on an idle console); a change, a failure and the recovery after it are posted at once.
 */
class IdlePollerPostsTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    /** Counts what the poller hands to the FX thread, and runs it. */
    private static final class Counting implements UiExecutor {
        private final CurrentThreadUiExecutor now = new CurrentThreadUiExecutor();
        int posts;

        @Override
        public void onUi(Runnable action) {
            posts++;
            now.onUi(action);
        }

        @Override
        public <T> void background(Callable<T> work, Consumer<T> onSuccess, Consumer<Throwable> onFailure) {
            now.background(work, onSuccess, onFailure);
        }

        @Override
        public void close() {
            now.close();
        }
    }

    @Test
    void anIdlePollerWakesTheFxThreadOnceASecondAndAChangeAtOnce() {
        Engine worker = fx.engine("worker 7101");
        worker.actors().add("operator");
        LiveLedger ledger = new LiveLedger();
        Counting ui = new Counting();
        try (AdminReader reader = Ledgers.openReader(fx.file(), fx.clock, ZoneOffset.UTC);
                LedgerPoller poller = new LedgerPoller(reader, ledger, ui, fx.clock)) {
            poller.pollOnce(); // the first snapshot (and the storage numbers)
            int first = ui.posts;
            for (int i = 0; i < 8; i++) { // two seconds of polls four a second, nothing changing
                fx.clock.advance(Duration.ofMillis(250));
                poller.pollOnce();
            }
            assertThat(ui.posts - first).as("posts of two idle seconds").isEqualTo(2);
            assertThat(ledger.lastPollProperty().get()).isEqualTo(fx.clock.millis());

            worker.leases().acquire("operator", Duration.ofSeconds(5));
            fx.clock.advance(Duration.ofMillis(250));
            int before = ui.posts;
            poller.pollOnce();
            assertThat(ui.posts - before).as("a change is posted at once").isEqualTo(1);
            assertThat(ledger.snapshot().leases().get(0).isFree()).isFalse();
        }
    }

    /**
     * A ledger quiet for ten seconds of polls is polled once a second until it changes (decision 0427); the first
     * change brings the interval back.
     */
    @Test
    void aQuietLedgerIsPolledOnceASecondUntilItChanges() {
        Engine worker = fx.engine("worker 7101");
        worker.actors().add("operator");
        LiveLedger ledger = new LiveLedger();
        try (AdminReader reader = Ledgers.openReader(fx.file(), fx.clock, ZoneOffset.UTC);
                LedgerPoller poller = new LedgerPoller(reader, ledger, new Counting(), fx.clock)) {
            poller.pollOnce();
            for (int i = 1; i < LedgerPoller.IDLE_AFTER_POLLS; i++) {
                poller.pollOnce();
            }
            assertThat(poller.nextDelay(250)).as("39 quiet polls").isEqualTo(250);
            poller.pollOnce();
            assertThat(poller.nextDelay(250)).as("40 quiet polls").isEqualTo(1_000);
            worker.leases().acquire("operator", Duration.ofSeconds(5));
            poller.pollOnce();
            assertThat(poller.nextDelay(250)).as("after a change").isEqualTo(250);
        }
    }
}
