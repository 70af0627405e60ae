package dev.sovereign.engine.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Durability;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import dev.sovereign.engine.testing.Together;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * contract §16: a committed beat and a committed takeover of the same lease exclude each other. Issue 26 items 3 and 4: on
 * PostgreSQL a late beat racing a takeover at the lease's effective expiry left both holders believing (64 of 280
 * tries: B's takeover committed, A's beat committed without seeing it, A's {@code held()} still naming the lease), and
 * sometimes ended B's acquire in a storage error instead of a refusal. Here, at the boundary (A's lease at its
 * effective expiry + 0-2 ms, on the test's clock, which pins the server's on PostgreSQL), A beats while B acquires,
 * released together, many times: afterwards at most one of them believes it holds the lease, and it is the one the
 * row names; B's acquire either took the lease over or was refused {@code actor_lease_held}, journalled; A's beat
 * never fails. {@code -Dsovereign.long=true} runs 1,000 tries instead of 100 (docs/reliability.md).
 */
@Contract
abstract class BeatAgainstTakeoverRaceContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    static final int TRIES = Boolean.getBoolean("sovereign.long") ? 1_000 : 100;
    private static final Duration TTL = Duration.ofSeconds(1);

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    @Test
    void aCommittedBeatAndACommittedTakeoverOfTheSameLeaseNeverBothBelieveTheyHoldIt() throws Exception {
        SettableClock clock = new SettableClock();
        // the race does not depend on fsync: SQLite's NORMAL durability keeps a try to a few milliseconds
        Engine a = temp.open(temp.config(clock).durability(Durability.NORMAL).build());
        Engine b = temp.open(temp.config(clock).durability(Durability.NORMAL).build());
        int takenOver = 0;
        int refused = 0;
        List<String> violations = new ArrayList<>();
        for (int i = 0; i < TRIES; i++) {
            String actor = "race-" + i;
            a.actors().add(actor);
            a.heartbeatNow(); // the session's last beat now: the lease's effective expiry is its own
            Lease held = a.leases().acquire(actor, TTL);
            clock.advance(TTL.plusMillis(i % 3)); // at its effective expiry + 0..2 ms
            List<Object> outcome = Together.run(List.<Supplier<Object>>of(
                    () -> outcomeOf(a::heartbeatNow),
                    () -> outcomeOf(() -> b.leases().acquire(actor, TTL))));
            Object beat = outcome.get(0);
            Object acquired = outcome.get(1);
            Lease row = b.leases().current(actor).orElseThrow();
            boolean aBelieves =
                    a.leases().held().stream().anyMatch(l -> l.actor().equals(actor) && l.token() == held.token());
            String at = "try " + i + ": ";
            if (!(beat instanceof Beat)) {
                violations.add(at + "A's beat failed: " + beat);
            }
            if (acquired instanceof Lease taken) {
                takenOver++;
                if (aBelieves) {
                    violations.add(at + "both believe: B's takeover (token " + taken.token() + ") committed and A"
                            + " still holds token " + held.token() + " in its beliefs");
                }
                if (!row.process().equals(b.processIdentity()) || row.token() != taken.token()) {
                    violations.add(at + "B was told it took the lease over but the row is " + row);
                }
                b.leases().release(actor, taken.token());
            } else if (acquired instanceof Refusal r && r.category() == RefusalCategory.ACTOR_LEASE_HELD) {
                refused++;
                if (!row.process().equals(a.processIdentity()) || !aBelieves) {
                    violations.add(at + "B was refused, yet A does not hold the lease: row " + row + ", A believes "
                            + aBelieves);
                }
                if (!journalledRefusal(b, actor)) {
                    violations.add(at + "B's refusal was not journalled");
                }
                a.leases().release(actor, held.token());
            } else {
                violations.add(at + "B's acquire ended neither in a takeover nor in actor_lease_held: " + acquired);
                a.leases().abandon(actor, held.token());
            }
        }
        System.out.println("beat against takeover on " + backend().name() + ": " + TRIES + " tries, "
                + takenOver + " takeovers, " + refused + " refusals (journalled), " + violations.size()
                + " violations");
        assertThat(violations)
                .as("%d tries: %d takeovers, %d refusals", TRIES, takenOver, refused)
                .isEmpty();
    }

    /** The value {@code action} returned, or what it threw. */
    static Object outcomeOf(Supplier<?> action) {
        try {
            return action.get();
        } catch (RuntimeException e) {
            return e;
        }
    }

    private static boolean journalledRefusal(Engine reader, String actor) {
        for (FenceEvent e : reader.journal().forResource("actor", actor)) {
            if (e.kind() == EventKind.REJECTED
                    && RefusalCategory.ACTOR_LEASE_HELD.code().equals(e.category())) {
                return true;
            }
        }
        return false;
    }
}
