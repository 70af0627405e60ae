package dev.sovereign.engine.internal.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.lease.Beat;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.RawSql;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.Sqlite;
import dev.sovereign.engine.testing.TempDatabase;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Decision 0509 on SQLite: every lease an engine takes is attached to its holder's session (its process row),
 * so one beat — one row — keeps all of them alive, and every rule that decides when a lease is free reads the
 * holder's last beat: the engine's own takeover, the schema's guard against a hand-typed one, the supervisor's
 * worklist. Tokens still decide everything else.
 */
class SessionAttachedLeasesTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private RawSql raw;
    private Engine a;
    private Engine b;

    @BeforeEach
    void open() {
        raw = new RawSql(temp.file());
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

    /** Every stored column of every lease row: what a beat must leave alone. */
    private List<String> leaseRows() throws SQLException {
        return raw.rows("SELECT * FROM actor_leases ORDER BY actor_id");
    }

    @Test
    void aBeatWritesTheSessionRowAndNoLeaseRowHoweverManyLeasesItKeeps() throws Exception {
        List<Lease> held = acquire(a, 1_000, Duration.ofSeconds(10));
        assertThat(held).allSatisfy(l -> assertThat(l.attached()).isTrue());
        List<String> before = leaseRows();
        long changes = raw.scalar("SELECT last_change FROM lease_change_counter");
        long events = raw.scalar("SELECT count(*) FROM fence_events");

        clock.advance(Duration.ofSeconds(8));
        Beat beat = a.heartbeatNow();

        assertThat(beat.renewedLeases()).hasSize(1_000);
        assertThat(beat.lostLeases()).isEmpty();
        assertThat(leaseRows()).isEqualTo(before);
        assertThat(raw.scalar("SELECT last_change FROM lease_change_counter")).isEqualTo(changes);
        assertThat(raw.scalar("SELECT count(*) FROM fence_events")).isEqualTo(events);
        assertThat(raw.scalar("SELECT heartbeat_at FROM processes WHERE identity = '" + a.processIdentity() + "'"))
                .isEqualTo(clock.millis());
        // every reader sees each lease expiring one TTL after the beat
        assertThat(a.leases().list()).hasSize(1_000)
                .allSatisfy(l -> assertThat(l.expiresAt()).isEqualTo(clock.millis() + 10_000))
                .allSatisfy(l -> assertThat(l.renewedAt()).isEqualTo(clock.millis()));
    }

    @Test
    void whenTheHolderStopsBeatingEveryAttachedLeaseFreesAtItsLastBeatPlusItsTtlAndTheTakeoverMintsAGreaterToken() {
        List<Lease> held = acquire(a, 20, Duration.ofSeconds(10));
        clock.advance(Duration.ofSeconds(6));
        a.heartbeatNow(); // the last beat: every lease now lives until +16 s, past its own +10 s
        clock.advance(Duration.ofMillis(9_999));
        for (Lease l : held) {
            assertThatThrownBy(() -> b.leases().acquire(l.actor(), Duration.ofSeconds(10)))
                    .isInstanceOfSatisfying(Refusal.class,
                            r -> assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_HELD));
        }
        assertThat(Sqlite.ledger(b).recovery().expiredLeases()).isEmpty();
        clock.advance(Duration.ofMillis(1));
        assertThat(Sqlite.ledger(b).recovery().expiredLeases()).extracting(Lease::actor)
                .containsExactlyInAnyOrderElementsOf(held.stream().map(Lease::actor).toList());
        long lastToken = held.get(held.size() - 1).token();
        for (Lease l : held) {
            Lease taken = b.leases().acquire(l.actor(), Duration.ofSeconds(10));
            assertThat(taken.token()).isGreaterThan(lastToken);
            lastToken = taken.token();
        }
        // the old holder: refused, journalled, and its next beat finds every lease lost
        assertThat(a.leases().release(held.get(0).actor(), held.get(0).token())).isFalse();
        assertThatThrownBy(() -> a.leases().renew(held.get(1).actor(), held.get(1).token()))
                .isInstanceOfSatisfying(Refusal.class,
                        r -> assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_LOST));
        Beat beat = a.heartbeatNow();
        assertThat(beat.lostLeases()).hasSize(18);
        assertThat(a.leases().held()).isEmpty();
        List<FenceEvent> rejections = a.journal().since(0, 10_000).stream()
                .filter(e -> e.kind() == EventKind.REJECTED && a.processIdentity().equals(e.processIdentity())).toList();
        assertThat(rejections).hasSize(20);
    }

    @Test
    void theBeatFindsALostLeaseAtOnceNotOnlyAtItsPeriodicCheck() throws Exception {
        List<Lease> held = acquire(a, 3, Duration.ofSeconds(10));
        a.heartbeatNow(); // the first beat verifies; the next ones rely on the checksums until 5 s have passed
        // a takeover nobody could make through the engine while a beats: by hand, stating the fence
        raw.run(false, "BEGIN IMMEDIATE", "UPDATE processes SET heartbeat_at = 0 WHERE identity = '"
                        + a.processIdentity() + "'",
                "UPDATE token_counter SET last_token = last_token + 1",
                "UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1",
                "UPDATE actor_leases SET token = (SELECT last_token FROM token_counter), process_identity = '"
                        + b.processIdentity() + "', acquired_at = " + (clock.millis() + 20_000) + ", expires_at = "
                        + (clock.millis() + 30_000) + ", renewed_at = " + (clock.millis() + 20_000) + ","
                        + " presented_token = " + held.get(1).token() + ","
                        + " change_seq = (SELECT last_change FROM lease_change_counter),"
                        + " presented_change = (SELECT last_change FROM lease_change_counter), attached = 0"
                        + " WHERE actor_id = 'actor-1'", "COMMIT");
        clock.advance(Duration.ofMillis(100));
        Beat beat = a.heartbeatNow();
        assertThat(beat.lostLeases()).containsOnlyKeys("actor-1");
        assertThat(a.leases().held()).extracting(Lease::actor).containsExactlyInAnyOrder("actor-0", "actor-2");
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
        assertThat(b.leases().acquire(lease.actor(), Duration.ofSeconds(10)).token()).isGreaterThan(lease.token());
    }

    @Test
    void aRowAttachedToTheSessionThatTheProcessNoLongerBelievesItHoldsIsDetachedAtTheSecondLook() {
        Lease lease = acquire(a, 1, Duration.ofSeconds(10)).get(0);
        // the engine forgets the lease without writing (as after a write whose outcome it never learned)
        assertThat(Sqlite.grants(a).dropLease(lease.actor(), lease.token())).isTrue();
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
        assertThatThrownBy(() -> b.leases().acquire(lease.actor(), Duration.ofSeconds(10))).isInstanceOf(Refusal.class);
        clock.advance(Duration.ofMillis(1));
        assertThat(b.leases().acquire(lease.actor(), Duration.ofSeconds(10)).token()).isGreaterThan(lease.token());
    }

    // ---- the schema's guard: a hand-typed takeover --------------------------------------------------

    /** A hand-typed takeover of actor-0 by b, minting its token and stating the fence the way V0003 asks. */
    private String[] takeoverByHand(Lease old, String how) {
        String now = Long.toString(clock.millis());
        String minted = "(SELECT last_token FROM token_counter)";
        String change = "(SELECT last_change FROM lease_change_counter)";
        String set = "process_identity = '" + b.processIdentity() + "', token = " + minted + ", acquired_at = " + now
                + ", renewed_at = " + now + ", expires_at = " + now + " + 10000, presented_token = " + old.token()
                + ", change_seq = " + change + ", presented_change = " + change;
        String write = switch (how) {
            case "update" -> "UPDATE actor_leases SET " + set + " WHERE actor_id = 'actor-0'";
            case "update or replace" -> "UPDATE OR REPLACE actor_leases SET " + set + " WHERE actor_id = 'actor-0'";
            default -> throw new IllegalArgumentException(how);
        };
        return new String[] {"BEGIN IMMEDIATE", "UPDATE token_counter SET last_token = last_token + 1",
                "UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1", write, "COMMIT"};
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"update", "update or replace"}) // an upsert never gets this far: V0003 refuses any
    // INSERT for an actor that has a row (actor_leases_never_replaced, DatabaseEnforcedFenceTest)
    void aHandTypedTakeoverOfAnAttachedLeaseWaitsForTheHoldersSessionToo(String how) throws Exception {
        Lease old = acquire(a, 1, Duration.ofSeconds(10)).get(0);
        clock.advance(Duration.ofSeconds(6));
        a.heartbeatNow(); // the row's own expiry (+10 s) is its floor; the session keeps it until +16 s
        clock.advance(Duration.ofSeconds(5)); // +11 s: past the row's own expiry, not past the session's
        for (boolean recursive : new boolean[] {false, true}) {
            assertThatThrownBy(() -> raw.run(recursive, takeoverByHand(old, how))).isInstanceOf(SQLException.class)
                    .hasMessageContaining("waits until its holder's heartbeat has expired too");
        }
        assertThat(a.leases().current("actor-0").orElseThrow().token()).isEqualTo(old.token());
        clock.advance(Duration.ofSeconds(5)); // +16 s: the session lapsed too
        raw.run(false, takeoverByHand(old, how));
        assertThat(a.leases().current("actor-0").orElseThrow().process()).isEqualTo(b.processIdentity());
    }

    @Test
    void aLeaseIsAttachedOrDetachedByHandOnlyByAWriteThatPresentsItsToken() throws Exception {
        Lease old = acquire(a, 1, Duration.ofSeconds(10)).get(0);
        a.leases().abandon(old.actor(), old.token());
        String change = "(SELECT last_change FROM lease_change_counter)";
        String marked = ", change_seq = " + change + ", presented_change = " + change;
        Map<String, String> refusedBecause = Map.of(
                "UPDATE actor_leases SET attached = 1 WHERE actor_id = 'actor-0'", "new lease change marker",
                "UPDATE actor_leases SET attached = 1" + marked + ", presented_token = " + (old.token() + 1)
                        + " WHERE actor_id = 'actor-0'", "presents its current token");
        for (Map.Entry<String, String> write : refusedBecause.entrySet()) {
            for (boolean recursive : new boolean[] {false, true}) {
                assertThatThrownBy(() -> raw.run(recursive, "BEGIN IMMEDIATE",
                        "UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1", write.getKey(),
                        "COMMIT")).as(write.getKey()).isInstanceOf(SQLException.class)
                        .hasMessageContaining(write.getValue());
            }
        }
        assertThat(a.leases().current("actor-0").orElseThrow().attached()).isFalse();
        // stating the token, it goes through (the same power as a hand-typed renewal)
        raw.run(false, "BEGIN IMMEDIATE", "UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1",
                "UPDATE actor_leases SET attached = 1" + marked + ", presented_token = " + old.token()
                        + " WHERE actor_id = 'actor-0'", "COMMIT");
        assertThat(a.leases().current("actor-0").orElseThrow().attached()).isTrue();
    }
}
