package dev.sovereign.engine.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.lease.Beat;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.mailbox.MessageState;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.spi.RunStore;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Decision 0112: a lease row the engine cannot have written (here: an expiry a year past its TTL, typed
 * into the file from another connection) fails closed at every write that reads it — not only at grants.
 */
class CorruptLeaseFailsClosedEverywhereTest {
    private static final long A_YEAR_MS = 31_536_000_000L;

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private Engine engine;
    private Lease lease;

    @BeforeEach
    void hostTheActor() {
        engine = temp.open(clock);
        engine.actors().add("operator");
        lease = engine.leases().acquire("operator", Duration.ofSeconds(30));
    }

    private void corruptTheLease() throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
                Statement s = c.createStatement()) {
            s.execute("BEGIN IMMEDIATE");
            s.execute("UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1");
            // it presents the row's own token, so the fence guards of V0003 let the bad expiry in; since V0012 the
            // time guard refuses it, so it is lifted for this one write and put back as it was: what a deliberate
            // hand edit could do (or a row from before V0012), and why every write still checks the row
            String guard;
            try (var rs = s.executeQuery("SELECT sql FROM sqlite_master"
                    + " WHERE name = 'actor_leases_written_with_whole_times_within_a_year'")) {
                guard = rs.getString(1);
            }
            s.execute("DROP TRIGGER actor_leases_written_with_whole_times_within_a_year");
            s.execute("UPDATE actor_leases SET expires_at = expires_at + " + A_YEAR_MS + ", change_seq ="
                    + " (SELECT last_change FROM lease_change_counter WHERE id = 1), presented_token = token,"
                    + " presented_change = (SELECT last_change FROM lease_change_counter WHERE id = 1)"
                    + " WHERE actor_id = 'operator'");
            s.execute(guard);
            s.execute("COMMIT");
        }
    }

    private static void assertCorrupt(ThrowingCallable write) {
        assertThatThrownBy(write)
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.CORRUPT_LEASE_STATE));
    }

    /** The corrupt row is still there with its impossible expiry, and its one refusal is journalled. */
    private void assertKeptAsEvidenceAndJournalled(long evidence) {
        assertThat(corruptExpiry())
                .as("the impossible expiry is kept as evidence")
                .isEqualTo(evidence);
        assertThat(engine.journal().rejections(10))
                .extracting(FenceEvent::category)
                .containsExactly("corrupt_lease_state");
    }

    private long corruptExpiry() {
        return engine.leases().current("operator").orElseThrow().expiresAt();
    }

    @Test
    void theHeartbeatDoesNotRenewACorruptRowItLosesItAndJournalsWhy() throws Exception {
        corruptTheLease();
        long evidence = corruptExpiry();

        Beat beat = engine.heartbeatNow();

        assertThat(beat.lostLeases()).containsOnlyKeys("operator");
        assertKeptAsEvidenceAndJournalled(evidence);
    }

    @Test
    void aReleaseOfACorruptRowFailsClosedAndKeepsIt() throws Exception {
        corruptTheLease();

        assertCorrupt(() -> engine.leases().release("operator", lease.token()));

        assertThat(engine.leases().current("operator")).isPresent();
        assertThat(engine.journal().rejections(10))
                .extracting(FenceEvent::category)
                .containsExactly("corrupt_lease_state");
    }

    @Test
    void anExplicitRenewalOfACorruptRowFailsClosedAndKeepsIt() throws Exception {
        corruptTheLease();
        long evidence = corruptExpiry();

        assertCorrupt(() -> engine.leases().renew("operator", lease.token()));

        assertKeptAsEvidenceAndJournalled(evidence);
    }

    @Test
    void aTerminalWriteUnderACorruptRowFailsClosedAndWritesNoReceipt() throws Exception {
        Assignment x = engine.runs().assign("operator", "scripted");
        RunStore runs = Port.runs(engine);
        Attempt attempt = runs.startAttempt(x.id(), lease.token(), 30_000);
        corruptTheLease();

        assertCorrupt(() -> runs.finish(attempt, Outcome.COMPLETED, null, true, "done"));

        assertThat(engine.runs().get(x.id()))
                .get()
                .extracting(Assignment::state)
                .isEqualTo(AssignmentState.RUNNING);
        assertThat(engine.runs().receipt(x.id())).isEmpty();
    }

    @Test
    void finishingAMessageUnderACorruptRowFailsClosed() throws Exception {
        Message m = engine.mailbox().send("someone", "operator", "work", null, 1);
        Claim claim = engine.mailbox().claim(m.id(), "operator");
        corruptTheLease();

        assertCorrupt(() -> engine.mailbox().complete(m.id(), claim.token()));
        assertCorrupt(() -> engine.mailbox().deadLetter(m.id(), claim.token()));
        assertCorrupt(() -> engine.mailbox().claim(m.id(), "operator"));

        assertThat(engine.mailbox().find(m.id()))
                .get()
                .extracting(Message::state)
                .isEqualTo(MessageState.CLAIMED);
    }
}
