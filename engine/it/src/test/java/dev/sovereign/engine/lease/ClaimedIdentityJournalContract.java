package dev.sovereign.engine.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.mailbox.Message;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.time.Duration;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An engine acting as another process's identity journals the claim once, in its first transaction that changes
 * something, <b>before</b> that change's own rows (decision 0802): read in order, the journal says who took the
 * identity and then what was done with it. Checked for each kind of first change a claiming call can make, on
 * every backend.
 */
@Contract
abstract class ClaimedIdentityJournalContract {
    private static final Duration TTL = Duration.ofMinutes(1);

    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    private final SettableClock clock = new SettableClock();

    /**
     * A worker holds a lease on {@code held}; {@code prepare} may write more as the worker and returns the call that
     * a second engine, acting as the worker's identity, makes; the rows that call wrote, oldest first.
     */
    private List<FenceEvent> rowsOfAClaimingCall(BiFunction<Engine, Lease, Consumer<Engine>> prepare) {
        Engine worker = temp.open(temp.config(clock).processKind("worker").build());
        worker.actors().add("held");
        worker.actors().add("free");
        Lease held = worker.leases().acquire("held", TTL);
        Consumer<Engine> call = prepare.apply(worker, held);
        long before = worker.journal().lastSeq();
        try (Engine claimant =
                temp.open(temp.config(clock).actAs(worker.processIdentity()).build())) {
            call.accept(claimant);
        }
        return worker.journal().since(before, 100);
    }

    private static void claimComesFirst(List<FenceEvent> rows, EventKind change) {
        assertThat(rows).extracting(FenceEvent::kind).contains(change);
        assertThat(rows.get(0).kind())
                .as("the first row the claiming call wrote, of %s", rows)
                .isEqualTo(EventKind.PROCESS_STARTED);
        assertThat(rows.get(0).category()).isEqualTo("identity_claimed");
        assertThat(rows)
                .filteredOn(e -> "identity_claimed".equals(e.category()))
                .hasSize(1);
    }

    @Test
    void aGrantUnderAClaimedIdentityJournalsTheClaimFirst() {
        claimComesFirst(
                rowsOfAClaimingCall((worker, held) -> c -> c.leases().acquire("free", TTL)), EventKind.LEASE_ACQUIRED);
    }

    @Test
    void anExplicitRenewalUnderAClaimedIdentityJournalsTheClaimFirst() {
        claimComesFirst(
                rowsOfAClaimingCall((worker, held) -> c -> c.leases().renew("held", held.token(), TTL)),
                EventKind.LEASE_RENEWED);
    }

    @Test
    void aReleaseUnderAClaimedIdentityJournalsTheClaimFirst() {
        claimComesFirst(
                rowsOfAClaimingCall((worker, held) -> c -> c.leases().release("held", held.token())),
                EventKind.LEASE_RELEASED);
    }

    @Test
    void aMessageClaimUnderAClaimedIdentityJournalsTheClaimFirst() {
        claimComesFirst(
                rowsOfAClaimingCall((worker, held) -> {
                    Message m = worker.mailbox().send("someone", "held", "s", "b");
                    return c -> c.mailbox().claim(m.id(), "held");
                }),
                EventKind.CLAIM_GRANTED);
    }

    @Test
    void anAttemptStartUnderAClaimedIdentityJournalsTheClaimFirst() {
        claimComesFirst(
                rowsOfAClaimingCall((worker, held) -> {
                    Assignment x = worker.runs().assign("held", "scripted");
                    return c -> Port.runs(c).startAttempt(x.id(), held.token(), 30_000);
                }),
                EventKind.ATTEMPT_STARTED);
    }
}
