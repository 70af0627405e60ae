package dev.sovereign.engine.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.Port;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Decision 0509 on every backend: every lease an engine takes is attached to its holder's session, so one beat
 * keeps all of them alive, and every rule that decides when a lease is free reads the holder's last beat — the
 * engine's own takeover and the supervisor's worklist; tokens still decide everything else. What a beat writes,
 * and the schema's guard against a hand-typed takeover, are each backend's own tests
 * ({@code SessionAttachedLeasesTest}, {@code PgSessionAttachedLeasesTest}).
 */
@Contract
abstract class SessionLeasesContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    private final SettableClock clock = new SettableClock();
    private Engine a;
    private Engine b;

    @BeforeEach
    void open() {
        a = temp.open(clock);
        b = temp.open(clock);
    }

    private List<Lease> acquire(Engine e, int n, Duration ttl) {
        List<Lease> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String actor = "actor-" + i;
            if (e.actors().find(actor).isEmpty()) {
                e.actors().add(actor);
            }
            out.add(e.leases().acquire(actor, ttl));
        }
        return out;
    }

    @Test
    void aBeatKeepsEveryLeaseOfItsProcessAliveAndJournalsNothingPerLease() {
        List<Lease> held = acquire(a, 200, Duration.ofSeconds(10));
        assertThat(held).allSatisfy(l -> assertThat(l.attached()).isTrue());
        long events = a.journal().since(0, 100_000).size();
        clock.advance(Duration.ofSeconds(8));
        Beat beat = a.heartbeatNow();
        assertThat(beat.renewedLeases()).hasSize(200);
        assertThat(beat.lostLeases()).isEmpty();
        assertThat(a.journal().since(0, 100_000)).hasSize((int) events);
        assertThat(b.leases().list())
                .hasSize(200)
                .allSatisfy(l -> assertThat(l.expiresAt()).isEqualTo(clock.millis() + 10_000))
                .allSatisfy(l -> assertThat(l.renewedAt()).isEqualTo(clock.millis()));
        clock.advance(Duration.ofSeconds(9));
        assertThat(Port.ledger(b).recovery().expiredLeases()).isEmpty();
        assertThatThrownBy(() -> b.leases().acquire("actor-7", Duration.ofSeconds(10)))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_HELD));
    }

    @Test
    void whenTheHolderStopsBeatingEveryAttachedLeaseFreesAtItsLastBeatPlusItsTtlAndTheTakeoverMintsAGreaterToken() {
        List<Lease> held = acquire(a, 20, Duration.ofSeconds(10));
        clock.advance(Duration.ofSeconds(6));
        a.heartbeatNow(); // the last beat: every lease now lives until +16 s, past its own +10 s
        clock.advance(Duration.ofMillis(9_999));
        for (Lease l : held) {
            assertThatThrownBy(() -> b.leases().acquire(l.actor(), Duration.ofSeconds(10)))
                    .isInstanceOfSatisfying(
                            Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_HELD));
        }
        assertThat(Port.ledger(b).recovery().expiredLeases()).isEmpty();
        clock.advance(Duration.ofMillis(1));
        assertThat(Port.ledger(b).recovery().expiredLeases())
                .extracting(Lease::actor)
                .containsExactlyInAnyOrderElementsOf(
                        held.stream().map(Lease::actor).toList());
        for (Lease l : held) {
            Lease taken = b.leases().acquire(l.actor(), Duration.ofSeconds(10));
            // greater than that actor's: tokens increase per resource (contract §2), not across actors
            assertThat(taken.token()).isGreaterThan(l.token());
        }
        // the old holder: refused, journalled, and its next beat finds every lease lost
        assertThat(a.leases().release(held.get(0).actor(), held.get(0).token())).isFalse();
        assertThatThrownBy(
                        () -> a.leases().renew(held.get(1).actor(), held.get(1).token()))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_LOST));
        Beat beat = a.heartbeatNow();
        assertThat(beat.lostLeases()).hasSize(18);
        assertThat(a.leases().held()).isEmpty();
        List<FenceEvent> rejections = a.journal().since(0, 10_000).stream()
                .filter(e ->
                        e.kind() == EventKind.REJECTED && a.processIdentity().equals(e.processIdentity()))
                .toList();
        assertThat(rejections).hasSize(20);
    }

    @Test
    void anAbandonedLeaseIsDetachedAndExpiresOnItsOwnThoughItsHolderKeepsBeating() {
        Lease lease = acquire(a, 1, Duration.ofSeconds(10)).get(0);
        clock.advance(Duration.ofSeconds(5));
        a.heartbeatNow(); // lives until +15 s
        clock.advance(Duration.ofSeconds(1));
        assertThat(a.leases().abandon(lease.actor(), lease.token())).isTrue();
        Lease abandoned = a.leases().current(lease.actor()).orElseThrow();
        assertThat(abandoned.attached()).isFalse();
        assertThat(abandoned.expiresAt()).isEqualTo(clock.millis() - 1_000 + 10_000);
        for (int i = 0; i < 8; i++) {
            clock.advance(Duration.ofSeconds(1));
            a.heartbeatNow();
        }
        clock.advance(Duration.ofMillis(999)); // +14.999 s: still held
        assertThatThrownBy(() -> b.leases().acquire(lease.actor(), Duration.ofSeconds(10)))
                .isInstanceOf(Refusal.class);
        clock.advance(Duration.ofMillis(1));
        assertThat(b.leases().acquire(lease.actor(), Duration.ofSeconds(10)).token())
                .isGreaterThan(lease.token());
    }

    @Test
    void aRowAttachedToTheSessionThatTheProcessNoLongerBelievesItHoldsIsDetachedAtTheSecondLook() {
        Lease lease = acquire(a, 1, Duration.ofSeconds(10)).get(0);
        // the engine forgets the lease without writing (as after a write whose outcome it never learned)
        assertThat(Port.grants(a).dropLease(lease.actor(), lease.token())).isTrue();
        clock.advance(Duration.ofSeconds(2));
        a.heartbeatNow(); // first sighting: a write in flight looks the same for a moment, so it is left alone
        assertThat(a.leases().current(lease.actor()).orElseThrow().attached()).isTrue();
        clock.advance(Duration.ofSeconds(2));
        a.heartbeatNow(); // second sighting, same token: detached with the expiry it has then (this beat + 10 s)
        Lease detached = a.leases().current(lease.actor()).orElseThrow();
        assertThat(detached.attached()).isFalse();
        assertThat(detached.expiresAt()).isEqualTo(lease.acquiredAt() + 14_000);
        clock.advance(Duration.ofSeconds(5));
        a.heartbeatNow(); // no longer extended by the session
        assertThat(a.leases().current(lease.actor()).orElseThrow().expiresAt()).isEqualTo(lease.acquiredAt() + 14_000);
        clock.advance(Duration.ofMillis(4_999));
        assertThatThrownBy(() -> b.leases().acquire(lease.actor(), Duration.ofSeconds(10)))
                .isInstanceOf(Refusal.class);
        clock.advance(Duration.ofMillis(1));
        assertThat(b.leases().acquire(lease.actor(), Duration.ofSeconds(10)).token())
                .isGreaterThan(lease.token());
    }

    /**
     * The check a beat makes between two comparisons of the rows (count and token checksum, decision 0509) must see a
     * lost lease even when an unbelieved row keeps the count equal: here the engine forgot one lease (its row stays
     * attached) and another was taken over after the session lapsed — both before the next beat, well within the
     * 5 s after the last comparison.
     */
    @Test
    void aLostLeaseIsFoundAtOnceEvenWhenAnUnbelievedRowKeepsTheCountEqual() {
        List<Lease> held = acquire(a, 3, Duration.ofSeconds(1));
        a.heartbeatNow(); // the first beat compares the rows; the next ones rely on the check until 5 s have passed
        assertThat(Port.grants(a).dropLease(held.get(0).actor(), held.get(0).token()))
                .isTrue();
        clock.advance(Duration.ofMillis(1_100));
        Lease taken = b.leases().acquire(held.get(1).actor(), Duration.ofSeconds(10));
        assertThat(taken.token()).isGreaterThan(held.get(2).token());
        clock.advance(Duration.ofMillis(100));

        Beat beat = a.heartbeatNow();

        assertThat(beat.lostLeases()).containsOnlyKeys(held.get(1).actor());
        assertThat(a.leases().held())
                .extracting(Lease::actor)
                .containsExactly(held.get(2).actor());
    }

    /**
     * A holder derives what it believes of each attached lease from its session's last committed beat (a beat
     * changes one field of its beliefs, not one per lease): that must be, after every beat, exactly what the
     * database says — for a lease granted before the beat or after it, one renewed explicitly, and after the
     * holder's clock stepped back (the session row's beat moves back, so the effective expiry the database gives
     * is shorter than the one the beat before promised; a belief that kept the later one would outlive the row).
     */
    @Test
    void whatTheHolderBelievesOfEachLeaseIsWhatTheDatabaseSaysAfterEveryBeat() {
        acquire(a, 3, Duration.ofSeconds(10));
        clock.advance(Duration.ofSeconds(6));
        a.heartbeatNow();
        assertBeliefsAreTheDatabases(3);
        a.actors().add("late");
        a.leases().acquire("late", Duration.ofSeconds(30));
        assertBeliefsAreTheDatabases(4);
        clock.advance(Duration.ofSeconds(2));
        a.heartbeatNow();
        assertBeliefsAreTheDatabases(4);
        clock.advance(Duration.ofSeconds(-5));
        a.heartbeatNow();
        assertBeliefsAreTheDatabases(4);
        Lease one = a.leases().held().stream()
                .filter(l -> l.actor().equals("actor-1"))
                .findFirst()
                .orElseThrow();
        a.leases().renew(one.actor(), one.token(), Duration.ofSeconds(20));
        assertBeliefsAreTheDatabases(4);
        clock.advance(Duration.ofSeconds(4));
        a.heartbeatNow();
        assertBeliefsAreTheDatabases(4);
    }

    private void assertBeliefsAreTheDatabases(int leases) {
        List<Lease> believed = a.leases().held();
        assertThat(believed).hasSize(leases);
        for (Lease l : believed) {
            assertThat(l)
                    .as("%s as its holder believes it and as the database has it", l.actor())
                    .isEqualTo(b.leases().current(l.actor()).orElseThrow());
        }
    }
}
