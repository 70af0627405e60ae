package dev.sovereign.engine.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.internal.sqlite.Database;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.provider.ProviderResult;
import dev.sovereign.engine.spi.RunStore;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.Sqlite;
import dev.sovereign.engine.testing.TempDatabase;
import java.time.Duration;
import java.util.List;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 16 (decision 0508): on SQLite a run writes in two transactions, not four — the actor lease with the
 * attempt and RUNNING, and the terminal write with the release of a lease the run took — and the journal
 * records the same rows in the same order. Counted with the backend's own counter of committed write
 * transactions ({@link Database#batchesCommitted()}); the engines beat by hand, so nothing else writes.
 */
class RunTransactionsTest {
    private static final Duration TTL = Duration.ofSeconds(30);

    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private Engine a;
    private Engine b;

    @BeforeEach
    void open() {
        a = temp.open(clock);
        b = temp.open(clock);
        a.actors().add("operator");
    }

    private static List<EventKind> kindsSince(Engine e, long seq) {
        return e.journal().since(seq, 100).stream().map(FenceEvent::kind).toList();
    }

    @Test
    void aRunThatTakesTheLeaseCommitsTwoTransactionsAndJournalsTheSameFourRows() {
        Assignment x = a.runs().assign("operator", "scripted:ms=0,outcome=completed");
        Database db = Sqlite.database(a);
        long batches = db.batchesCommitted();
        long seq = a.journal().lastSeq();

        RunResult r = a.runs().runAssignment(x.id(), TTL);

        assertThat(r.assignment().state()).isEqualTo(AssignmentState.COMPLETED);
        assertThat(r.warnings()).isEmpty();
        assertThat(db.batchesCommitted() - batches)
                .as("write transactions of one run")
                .isEqualTo(2);
        List<FenceEvent> events = a.journal().since(seq, 100);
        assertThat(events)
                .extracting(FenceEvent::kind)
                .containsExactly(
                        EventKind.LEASE_ACQUIRED,
                        EventKind.ATTEMPT_STARTED,
                        EventKind.ATTEMPT_DONE,
                        EventKind.LEASE_RELEASED);
        assertThat(events)
                .extracting(FenceEvent::token)
                .containsExactly(
                        r.attempt().leaseToken(),
                        r.attempt().token(),
                        r.attempt().token(),
                        r.attempt().leaseToken());
        assertThat(a.leases().current("operator")).isEmpty();
        assertThat(a.leases().held()).isEmpty();
        assertThat(Port.grants(a).attempts()).isEmpty();

        // the lease is free again for the next run, which takes it the same way
        RunResult next = a.runs()
                .runAssignment(a.runs().assign("operator", "scripted:ms=0").id(), TTL);
        assertThat(next.attempt().leaseToken()).isGreaterThan(r.attempt().token());
        assertThat(a.leases().current("operator")).isEmpty();
    }

    @Test
    void aRunUnderALeaseTheEngineHoldsCommitsTwoTransactionsAndLeavesTheLeaseHeld() {
        Lease hosting = a.leases().acquire("operator", Duration.ofMinutes(1));
        Assignment x = a.runs().assign("operator", "scripted:ms=0,outcome=completed");
        Database db = Sqlite.database(a);
        long batches = db.batchesCommitted();
        long seq = a.journal().lastSeq();

        RunResult r = a.runs().runAssignment(x.id(), TTL);

        assertThat(r.attempt().leaseToken()).isEqualTo(hosting.token());
        assertThat(db.batchesCommitted() - batches)
                .as("write transactions of one run")
                .isEqualTo(2);
        assertThat(kindsSince(a, seq))
                .containsExactly(EventKind.LEASE_RENEWED, EventKind.ATTEMPT_STARTED, EventKind.ATTEMPT_DONE);
        assertThat(a.leases().current("operator")).get().satisfies(l -> {
            assertThat(l.token()).isEqualTo(hosting.token());
            assertThat(l.ttlMs()).isEqualTo(Duration.ofMinutes(1).toMillis()); // decision 0110
        });
        assertThat(a.leases().held()).extracting(Lease::token).containsExactly(hosting.token());
    }

    @Test
    void aRefusedAttemptRollsBackTheLeaseItsTransactionTookAndJournalsOnlyTheRefusal() {
        // b's lease expires while its attempt (a longer TTL) is still live: the lease is free to take over,
        // the assignment is not free to run
        Assignment x = a.runs().assign("operator", "scripted:ms=0");
        Lease old = b.leases().acquire("operator", Duration.ofSeconds(10));
        Attempt live = Port.runs(b).startAttempt(x.id(), old.token(), 60_000);
        clock.advance(Duration.ofSeconds(11));
        RunStore store = Port.runs(a);
        assertThat(store.writesRunsInFewerTransactions()).isTrue();
        Database db = Sqlite.database(a);
        long batches = db.batchesCommitted();
        long seq = a.journal().lastSeq();

        assertThatThrownBy(() -> store.startAttemptUnderTheLease(x.id(), TTL, 10_000))
                .isInstanceOfSatisfying(Refusal.class, r -> {
                    assertThat(r.category()).isEqualTo(RefusalCategory.EXECUTION_ATTEMPT_HELD);
                    assertThat(r.currentToken()).isEqualTo(live.token());
                });

        // the takeover that came first in the transaction was rolled back with the refused attempt
        assertThat(a.leases().current("operator")).contains(old);
        assertThat(a.leases().held()).isEmpty();
        assertThat(a.runs().attempts(x.id()))
                .extracting(Attempt::id, Attempt::state)
                .containsExactly(Tuple.tuple(live.id(), AttemptState.ACTIVE));
        assertThat(a.runs().get(x.id()))
                .get()
                .extracting(Assignment::currentAttempt)
                .isEqualTo(live.id());
        List<FenceEvent> events = a.journal().since(seq, 100);
        assertThat(events).extracting(FenceEvent::kind).containsExactly(EventKind.REJECTED);
        assertThat(events.get(0).category()).isEqualTo("execution_attempt_held");
        assertThat(db.batchesCommitted() - batches)
                .as("only the rejection's transaction")
                .isEqualTo(1);
    }

    @Test
    void aRefusedTerminalWriteReleasesNothingInItsTransactionAndTheRunReleasesAfterwards() {
        a.providers().register("thief", arg -> job -> {
            b.runs().stealFence(job.assignmentId());
            return ProviderResult.completed("too late");
        });
        Assignment x = a.runs().assign("operator", "thief");
        long seq = a.journal().lastSeq();

        assertThatThrownBy(() -> a.runs().runAssignment(x.id(), TTL))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.EXECUTION_ATTEMPT_LOST));

        assertThat(kindsSince(a, seq))
                .containsExactly(
                        EventKind.LEASE_ACQUIRED,
                        EventKind.ATTEMPT_STARTED,
                        EventKind.ATTEMPT_STOLEN,
                        EventKind.REJECTED,
                        EventKind.LEASE_RELEASED);
        assertThat(a.runs().receipt(x.id())).isEmpty();
        assertThat(a.leases().current("operator")).isEmpty();
    }
}
