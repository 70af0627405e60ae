package dev.sovereign.engine.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Decision 0116 on every backend: what a lock with a deadline needs of the lease API (ShedLock's provider contract
 * asks for each): a try-acquire that answers contention without an exception, a lease that ends at its TTL though
 * its holder's engine beats, an extension that refuses an expired lease in the one statement that would extend it,
 * and a release that keeps the lease until a given time in one write. Tokens decide every write as before; the
 * clock is moved, never slept on.
 */
@Contract
abstract class LeasesForLocksContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    private final SettableClock clock = new SettableClock();
    private Engine a;
    private Engine b;

    private static final Duration TEN_S = Duration.ofSeconds(10);

    @BeforeEach
    void open() {
        a = temp.open(clock);
        b = temp.open(clock);
        a.actors().add("job");
    }

    private static void refused(ThrowingCallable call, RefusalCategory category) {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(category));
    }

    private List<FenceEvent> rejectionsOf(Engine e) {
        return a.journal().since(0, 100_000).stream()
                .filter(ev ->
                        ev.kind() == EventKind.REJECTED && e.processIdentity().equals(ev.processIdentity()))
                .toList();
    }

    private List<FenceEvent> events(Predicate<FenceEvent> which) {
        return a.journal().since(0, 100_000).stream().filter(which).toList();
    }

    @Test
    void tryAcquireAnswersContentionWithEmptyAndThrowsEveryOtherRefusal() {
        Lease held = a.leases().tryAcquire("job", TEN_S).orElseThrow();
        assertThat(held.attached()).isTrue();

        assertThat(b.leases().tryAcquire("job", TEN_S)).isEmpty();
        assertThat(b.leases().tryAcquire("job", TEN_S, LeaseKeeping.TTL)).isEmpty();
        assertThat(a.leases().tryAcquire("job", TEN_S)).isEmpty(); // its own live lease too, as acquire refuses it
        assertThat(b.leases().current("job")).contains(held);
        // contention is still a refusal the ledger records: the window's first in the journal, the next counted
        // (decision 0019), and the metrics count both
        assertThat(rejectionsOf(b))
                .hasSize(1)
                .allSatisfy(r -> assertThat(r.category()).isEqualTo("actor_lease_held"));
        assertThat(a.metrics().refusalsByCategory()).containsEntry("actor_lease_held", 3L); // b's two, a's own one

        refused(() -> b.leases().tryAcquire("no-such-job", TEN_S), RefusalCategory.UNKNOWN_ACTOR);
        refused(() -> b.leases().tryAcquire("job", Duration.ZERO), RefusalCategory.INVALID_ARGUMENT);
        refused(() -> b.leases().tryAcquire("job", TEN_S, null), RefusalCategory.INVALID_ARGUMENT);

        clock.advance(Duration.ofSeconds(11));
        a.close(); // a stops beating; its heartbeat-kept lease is released on close
        Optional<Lease> taken = b.leases().tryAcquire("job", TEN_S);
        assertThat(taken).isPresent();
        assertThat(taken.get().token()).isGreaterThan(held.token());
    }

    @Test
    void aTtlLeaseEndsAtItsTtlThoughItsHoldersEngineKeepsBeatingAndClosing() {
        Lease lock = a.leases().acquire("job", TEN_S, LeaseKeeping.TTL);
        assertThat(lock.attached()).isFalse();
        assertThat(lock.expiresAt()).isEqualTo(clock.millis() + 10_000);
        assertThat(a.leases().held()).isEmpty(); // not a belief the heartbeat keeps

        for (int i = 0; i < 9; i++) {
            clock.advance(Duration.ofSeconds(1));
            Beat beat = a.heartbeatNow();
            assertThat(beat.lostLeases()).isEmpty();
            assertThat(beat.renewedLeases()).isEmpty();
        }
        clock.advance(Duration.ofMillis(999)); // +9.999 s: still the lock's
        assertThat(b.leases().tryAcquire("job", TEN_S)).isEmpty();
        assertThat(b.leases().current("job").orElseThrow().expiresAt()).isEqualTo(lock.expiresAt());
        clock.advance(Duration.ofMillis(1)); // +10 s: its TTL, though a beat a moment ago
        Lease next = b.leases().tryAcquire("job", TEN_S, LeaseKeeping.TTL).orElseThrow();
        assertThat(next.token()).isGreaterThan(lock.token());

        // closing the holder's engine leaves a TTL lease to expire: the next lock waits for its TTL
        b.close();
        assertThat(a.leases().current("job")).contains(next);
        assertThat(a.leases().tryAcquire("job", TEN_S)).isEmpty();
    }

    @Test
    void extendRefusesAnExpiredLeaseThatNobodyTookAndJournalsItWhereRenewStillRevivesIt() {
        Lease lock = a.leases().acquire("job", TEN_S, LeaseKeeping.TTL);
        clock.advance(Duration.ofSeconds(4));
        Lease extended = a.leases().extend("job", lock.token(), Duration.ofSeconds(20));
        assertThat(extended.token()).isEqualTo(lock.token());
        assertThat(extended.expiresAt()).isEqualTo(clock.millis() + 20_000);
        assertThat(extended.attached()).as("an extension keeps the TTL way").isFalse();
        assertThat(a.leases().held()).isEmpty();

        clock.advance(Duration.ofSeconds(20)); // expired exactly now; nobody has taken it
        Lease before = a.leases().current("job").orElseThrow();
        assertThatThrownBy(() -> a.leases().extend("job", lock.token(), TEN_S))
                .isInstanceOfSatisfying(Refusal.class, r -> {
                    assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_LOST);
                    assertThat(r.getMessage()).contains("expired at").contains("not extended");
                });
        assertThat(a.leases().current("job")).contains(before);
        assertThat(rejectionsOf(a))
                .singleElement()
                .satisfies(r -> assertThat(r.presentedToken()).isEqualTo(lock.token()));

        // renew is the holder's way back into an expired lease nobody took: the token is unchanged, so it is safe
        Lease revived = a.leases().renew("job", lock.token(), TEN_S);
        assertThat(revived.token()).isEqualTo(lock.token());
        assertThat(revived.expiresAt()).isEqualTo(clock.millis() + 10_000);
    }

    @Test
    void extendAfterATakeoverIsRefusedAsLostAndChangesNothing() {
        Lease lock = a.leases().acquire("job", TEN_S, LeaseKeeping.TTL);
        clock.advance(TEN_S);
        Lease taken = b.leases().acquire("job", TEN_S, LeaseKeeping.TTL);
        assertThatThrownBy(() -> a.leases().extend("job", lock.token(), TEN_S))
                .isInstanceOfSatisfying(Refusal.class, r -> {
                    assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_LOST);
                    assertThat(r.getMessage()).contains("held by " + b.processIdentity());
                });
        assertThat(b.leases().current("job")).contains(taken);
        // and b may extend its own
        assertThat(b.leases().extend("job", taken.token(), TEN_S).expiresAt()).isEqualTo(clock.millis() + 10_000);
    }

    @Test
    void aHeartbeatLeaseExtendedStaysKeptByTheHeartbeat() {
        Lease lease = a.leases().acquire("job", TEN_S);
        clock.advance(Duration.ofSeconds(2));
        Lease extended = a.leases().extend("job", lease.token(), TEN_S);
        assertThat(extended.attached()).isTrue();
        assertThat(a.leases().held()).extracting(Lease::token).containsExactly(lease.token());
    }

    @Test
    void releaseKeepingUntilKeepsTheLeaseUntilThenInOneWriteAndItEndsThere() {
        Lease lock = a.leases().acquire("job", Duration.ofSeconds(60), LeaseKeeping.TTL);
        clock.advance(Duration.ofSeconds(2));
        long renewalsBefore = events(e -> e.kind() == EventKind.LEASE_RENEWED).size();
        Instant until = Instant.ofEpochMilli(clock.millis() + 5_000);

        assertThat(a.leases().releaseKeepingUntil("job", lock.token(), until)).isTrue();

        Lease kept = b.leases().current("job").orElseThrow();
        assertThat(kept.token()).isEqualTo(lock.token());
        assertThat(kept.process()).isEqualTo(a.processIdentity());
        assertThat(kept.expiresAt()).isEqualTo(until.toEpochMilli());
        assertThat(kept.attached()).isFalse();
        List<FenceEvent> renewals = events(e -> e.kind() == EventKind.LEASE_RENEWED);
        assertThat(renewals).hasSize((int) renewalsBefore + 1);
        assertThat(renewals.get(renewals.size() - 1).detail()).contains("kept until " + until);

        clock.advance(Duration.ofMillis(4_999));
        assertThat(b.leases().tryAcquire("job", TEN_S)).isEmpty();
        clock.advance(Duration.ofMillis(1));
        assertThat(b.leases().tryAcquire("job", TEN_S).orElseThrow().token()).isGreaterThan(lock.token());
    }

    @Test
    void releaseKeepingUntilATimeAlreadyPastIsARelease() {
        Lease lock = a.leases().acquire("job", TEN_S, LeaseKeeping.TTL);
        clock.advance(Duration.ofSeconds(3));
        assertThat(a.leases().releaseKeepingUntil("job", lock.token(), Instant.ofEpochMilli(clock.millis())))
                .isTrue();
        assertThat(b.leases().current("job")).isEmpty();
        assertThat(events(e -> e.kind() == EventKind.LEASE_RELEASED)).hasSize(1);
        assertThat(b.leases().tryAcquire("job", TEN_S)).isPresent();
    }

    @Test
    void releaseKeepingUntilOfAHeartbeatLeaseDetachesItSoTheBeatNoLongerKeepsIt() {
        Lease lease = a.leases().acquire("job", TEN_S);
        clock.advance(Duration.ofSeconds(6));
        a.heartbeatNow(); // the session now keeps it until +16 s
        assertThat(a.leases().releaseKeepingUntil("job", lease.token(), Instant.ofEpochMilli(clock.millis() + 1_000)))
                .isTrue();
        assertThat(a.leases().held()).isEmpty();
        Lease kept = b.leases().current("job").orElseThrow();
        assertThat(kept.attached()).isFalse();
        assertThat(kept.expiresAt()).isEqualTo(clock.millis() + 1_000);
        clock.advance(Duration.ofMillis(500));
        assertThat(a.heartbeatNow().lostLeases()).isEmpty();
        clock.advance(Duration.ofMillis(500));
        assertThat(b.leases().tryAcquire("job", TEN_S).orElseThrow().token()).isGreaterThan(lease.token());
    }

    @Test
    void releaseKeepingUntilWithAStaleTokenIsRefusedJournalledAndLeavesTheNewerHolderAlone() {
        Lease old = a.leases().acquire("job", TEN_S, LeaseKeeping.TTL);
        clock.advance(TEN_S);
        Lease newer = b.leases().acquire("job", TEN_S, LeaseKeeping.TTL);
        Instant until = Instant.ofEpochMilli(clock.millis() + 60_000);
        assertThat(a.leases().releaseKeepingUntil("job", old.token(), until)).isFalse();
        assertThat(b.leases().current("job")).contains(newer);
        assertThat(rejectionsOf(a)).singleElement().satisfies(r -> {
            assertThat(r.presentedToken()).isEqualTo(old.token());
            assertThat(r.currentToken()).isEqualTo(newer.token());
        });
        // nor can the newer holder be kept past what a lease may live, or until a time that cannot be
        refused(
                () -> b.leases()
                        .releaseKeepingUntil(
                                "job",
                                newer.token(),
                                Instant.ofEpochMilli(clock.millis()).plus(Duration.ofDays(366))),
                RefusalCategory.INVALID_ARGUMENT);
        refused(
                () -> b.leases().releaseKeepingUntil("job", newer.token(), Instant.MAX),
                RefusalCategory.INVALID_ARGUMENT);
        refused(() -> b.leases().releaseKeepingUntil("job", newer.token(), null), RefusalCategory.INVALID_ARGUMENT);
        assertThat(b.leases().current("job")).contains(newer);
    }
}
