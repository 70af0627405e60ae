package dev.sovereign.console.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.fx.CurrentThreadUiExecutor;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.EngineAccess;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.internal.sqlite.SqliteLedger;
import dev.sovereign.engine.journal.EventKind;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A burst in the journal (every holder's renewals journalled at once) is taken in shares of at most
 * {@link LedgerPoller#MAX_EVENTS_PER_POLL} events per poll, so no single frame applies all of it, and
 * nothing is lost or applied twice on the way.
 */
class LedgerPollerBacklogTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    @Test
    void aBurstIsReadInBoundedSharesWithNothingLostOrRepeated() {
        Engine worker = fx.engine("worker 7101");
        worker.actors().add("operator");
        LiveLedger ledger = new LiveLedger();
        try (AdminReader reader = Ledgers.openReader(fx.file(), fx.clock, ZoneOffset.UTC);
                LedgerPoller poller = new LedgerPoller(reader, ledger, new CurrentThreadUiExecutor(), fx.clock)) {
            poller.pollOnce();
            long before = ledger.events().isEmpty()
                    ? 0
                    : ledger.events().get(ledger.events().size() - 1).seq();
            int burst = 2 * LedgerPoller.MAX_EVENTS_PER_POLL + 1_234;
            ((SqliteLedger) EngineAccess.ledger(worker)).database().write(tx -> {
                for (int i = 0; i < burst; i++) {
                    tx.journal(
                            EventKind.LEASE_RENEWED,
                            "actor",
                            "operator",
                            "operator",
                            worker.processIdentity(),
                            1L,
                            null,
                            null,
                            null,
                            "burst " + i);
                }
                return null;
            });

            int[] applied = new int[4];
            for (int poll = 0; poll < applied.length; poll++) {
                int size = ledger.events().size();
                poller.pollOnce();
                applied[poll] = ledger.events().size() - size;
            }

            assertThat(applied)
                    .containsExactly(LedgerPoller.MAX_EVENTS_PER_POLL, LedgerPoller.MAX_EVENTS_PER_POLL, 1_234, 0);
            long expected = before;
            for (JournalEntry e : ledger.events()) {
                if (e.seq() > before) {
                    assertThat(e.seq()).isEqualTo(++expected);
                }
            }
            assertThat(expected).isEqualTo(before + burst);
        }
    }
}
