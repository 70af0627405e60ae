package dev.sovereign.console.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.AttemptRow;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.admin.MessageRow;
import dev.sovereign.engine.admin.ProcessRef;
import dev.sovereign.engine.base.LedgerLocation;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Issue 17, item 15: the console ticks ten times a second only while a countdown needs it — within a minute
 * of its expiry, where durations show tenths, or for a span short enough that its bar moves visibly — and
 * once a second otherwise. Each case is checked on both sides of its edge, through {@link LiveLedger}.
 */
class FineTicksTest {
    private static final ProcessRef P = new ProcessRef("proc_a", "worker a", 7100L, "host");
    private static final long HOUR = 3_600_000;

    @Test
    void aLongLeaseWantsFineTicksOnlyInTheMinuteAroundItsExpiry() {
        LiveLedger ledger =
                ledgerWith(List.of(lease("a", HOUR, 10_000 + HOUR), LeaseRow.free("free")), List.of(), List.of());
        long expiry = 10_000 + HOUR;
        assertThat(ledger.wantsFineTicks(20_000))
                .as("59 min before expiry: whole seconds shown")
                .isFalse();
        assertThat(ledger.wantsFineTicks(expiry - 60_001)).isFalse();
        assertThat(ledger.wantsFineTicks(expiry - 60_000))
                .as("the last minute shows tenths")
                .isTrue();
        assertThat(ledger.wantsFineTicks(expiry - 1)).isTrue();
        assertThat(ledger.wantsFineTicks(expiry + 59_999))
                .as("'expired 59.9 s ago' shows tenths")
                .isTrue();
        assertThat(ledger.wantsFineTicks(expiry + 60_001))
                .as("'expired 1 min 00 s ago' does not")
                .isFalse();
    }

    @Test
    void aShortLeaseWantsFineTicksForItsWholeLife() {
        long expiry = 10_000 + 300_000;
        LiveLedger ledger = ledgerWith(List.of(lease("a", 300_000, expiry)), List.of(), List.of());
        assertThat(ledger.wantsFineTicks(10_000))
                .as("a 5-minute bar moves visibly every second")
                .isTrue();
        assertThat(ledger.wantsFineTicks(expiry + 60_000)).isTrue();
        assertThat(ledger.wantsFineTicks(expiry + 60_001)).isFalse();
    }

    @Test
    void anActiveAttemptAndAMessageClaimCountEndedAndFinishedOnesDoNot() {
        long expiry = 10_000 + HOUR;
        AttemptRow active =
                new AttemptRow("att_1", "asg_1", "a", P, 5, 4, "ACTIVE", true, HOUR, 10_000, 10_000, expiry, null);
        AttemptRow done =
                new AttemptRow("att_0", "asg_0", "a", P, 3, 2, "DONE", false, HOUR, 10_000, 10_000, expiry, 11_000L);
        assertThat(ledgerWith(List.of(), List.of(active), List.of()).wantsFineTicks(expiry - 30_000))
                .isTrue();
        assertThat(ledgerWith(List.of(), List.of(done), List.of()).wantsFineTicks(expiry - 30_000))
                .isFalse();
        assertThat(ledgerWith(List.of(), List.of(active), List.of()).wantsFineTicks(expiry - 120_000))
                .isFalse();

        MessageRow claimed = new MessageRow("msg_1", "ops", "a", "job", "CLAIMED", "a", P, 9L, expiry, 0, 3, 1, 1);
        MessageRow done2 = new MessageRow("msg_2", "ops", "a", "job", "DONE", null, null, null, null, 0, 3, 1, 1);
        assertThat(ledgerWith(List.of(), List.of(), List.of(claimed, done2)).wantsFineTicks(expiry + 10_000))
                .isTrue();
        assertThat(ledgerWith(List.of(), List.of(), List.of(claimed, done2)).wantsFineTicks(expiry - 61_000))
                .isFalse();
    }

    @Test
    void nothingAttachedWantsNothingAndANewSnapshotReplacesTheOldDemand() {
        LiveLedger ledger = new LiveLedger();
        assertThat(ledger.wantsFineTicks(10_000)).isFalse();
        long expiry = 70_000;
        apply(ledger, List.of(lease("a", HOUR, expiry)), List.of(), List.of());
        assertThat(ledger.wantsFineTicks(20_000)).isTrue();
        apply(ledger, List.of(LeaseRow.free("a")), List.of(), List.of()); // released
        assertThat(ledger.wantsFineTicks(20_000)).isFalse();
        apply(ledger, List.of(lease("a", HOUR, expiry)), List.of(), List.of());
        ledger.detached();
        assertThat(ledger.wantsFineTicks(20_000)).isFalse();
    }

    /**
     * Issue 31 item 21: only the ticker moves the clock of an idle console. A poll that found nothing new (four a
     * second) moved it too, so every clocked text changed at the poll's phase as well as the tick's: two redraws a
     * second. A poll that brings a snapshot still brings the clock up to its own time.
     */
    @Test
    void anIdlePollMovesNoClockAPollThatBringsASnapshotDoes() {
        LiveLedger ledger = new LiveLedger();
        ledger.tick(500);
        long[] moves = {0};
        ledger.nowProperty().addListener(o -> moves[0]++);
        ledger.apply(new PollResult(900, 1, null, List.of(), List.of()));
        assertThat(ledger.now()).isEqualTo(500);
        assertThat(moves[0]).isZero();
        apply(ledger, List.of(LeaseRow.free("a")), List.of(), List.of()); // polled at 1,000 with a snapshot
        assertThat(ledger.now()).isEqualTo(1_000);
        ledger.tick(2_000);
        assertThat(ledger.now()).isEqualTo(2_000);
    }

    private static LeaseRow lease(String actor, long ttl, long expiresAt) {
        return new LeaseRow(actor, P, 7, ttl, expiresAt - ttl, expiresAt - ttl, expiresAt, 0);
    }

    private static LiveLedger ledgerWith(List<LeaseRow> leases, List<AttemptRow> attempts, List<MessageRow> messages) {
        LiveLedger ledger = new LiveLedger();
        apply(ledger, leases, attempts, messages);
        return ledger;
    }

    private static long polls;

    private static void apply(
            LiveLedger ledger, List<LeaseRow> leases, List<AttemptRow> attempts, List<MessageRow> messages) {
        polls++;
        AdminSnapshot s = new AdminSnapshot(
                LedgerLocation.file(Path.of("x.db")),
                4,
                polls,
                1_000,
                0,
                7,
                leases,
                List.of(),
                List.of(),
                attempts,
                messages,
                Optional.empty());
        ledger.apply(new PollResult(1_000, polls, s, List.of(), List.of()));
    }
}
