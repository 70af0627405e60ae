package dev.sovereign.engine.internal.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.lease.Beat;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.RawSql;
import dev.sovereign.engine.testing.SettableClock;
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
 * Decision 0509, what only SQLite shows (the contract part is {@code SessionLeasesContract}): a beat writes its
 * session row and no lease row, finds a lost lease at once, and the schema's guard refuses a hand-typed takeover of
 * an attached lease while its holder's session lives, and an attach or detach that does not present the token.
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
        assertThat(a.leases().list())
                .hasSize(1_000)
                .allSatisfy(l -> assertThat(l.expiresAt()).isEqualTo(clock.millis() + 10_000))
                .allSatisfy(l -> assertThat(l.renewedAt()).isEqualTo(clock.millis()));
    }

    @Test
    void theBeatFindsALostLeaseAtOnceNotOnlyAtItsPeriodicCheck() throws Exception {
        List<Lease> held = acquire(a, 3, Duration.ofSeconds(10));
        a.heartbeatNow(); // the first beat verifies; the next ones rely on the checksums until 5 s have passed
        // a takeover nobody could make through the engine while a beats: by hand, stating the fence
        // (stamped 20 s ahead: the session only moves forward, so the hand-made write dates itself past it)
        raw.run(
                false,
                "BEGIN IMMEDIATE",
                "UPDATE token_counter SET last_token = last_token + 1",
                "UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1",
                "UPDATE actor_leases SET token = (SELECT last_token FROM token_counter), process_identity = '"
                        + b.processIdentity() + "', acquired_at = " + (clock.millis() + 20_000) + ", expires_at = "
                        + (clock.millis() + 30_000) + ", renewed_at = " + (clock.millis() + 20_000) + ","
                        + " presented_token = " + held.get(1).token() + ","
                        + " change_seq = (SELECT last_change FROM lease_change_counter),"
                        + " presented_change = (SELECT last_change FROM lease_change_counter), attached = 0"
                        + " WHERE actor_id = 'actor-1'",
                "COMMIT");
        clock.advance(Duration.ofMillis(100));
        Beat beat = a.heartbeatNow();
        assertThat(beat.lostLeases()).containsOnlyKeys("actor-1");
        assertThat(a.leases().held()).extracting(Lease::actor).containsExactlyInAnyOrder("actor-0", "actor-2");
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
        return new String[] {
            "BEGIN IMMEDIATE",
            "UPDATE token_counter SET last_token = last_token + 1",
            "UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1",
            write,
            "COMMIT"
        };
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
            assertThatThrownBy(() -> raw.run(recursive, takeoverByHand(old, how)))
                    .isInstanceOf(SQLException.class)
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
                "UPDATE actor_leases SET attached = 1 WHERE actor_id = 'actor-0'",
                "new lease change marker",
                "UPDATE actor_leases SET attached = 1" + marked + ", presented_token = " + (old.token() + 1)
                        + " WHERE actor_id = 'actor-0'",
                "presents its current token");
        for (Map.Entry<String, String> write : refusedBecause.entrySet()) {
            for (boolean recursive : new boolean[] {false, true}) {
                assertThatThrownBy(() -> raw.run(
                                recursive,
                                "BEGIN IMMEDIATE",
                                "UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1",
                                write.getKey(),
                                "COMMIT"))
                        .as(write.getKey())
                        .isInstanceOf(SQLException.class)
                        .hasMessageContaining(write.getValue());
            }
        }
        assertThat(a.leases().current("actor-0").orElseThrow().attached()).isFalse();
        // stating the token, it goes through (the same power as a hand-typed renewal)
        raw.run(
                false,
                "BEGIN IMMEDIATE",
                "UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1",
                "UPDATE actor_leases SET attached = 1" + marked + ", presented_token = " + old.token()
                        + " WHERE actor_id = 'actor-0'",
                "COMMIT");
        assertThat(a.leases().current("actor-0").orElseThrow().attached()).isTrue();
    }
}
