package dev.sovereign.engine.attack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.RawSql;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 26 item 1 on SQLite: a lease row is deleted only by its release, whatever the last operation on the
 * ledger was. Before the release marker the delete guard compared the row's last presented change
 * marker with the lease change counter, and since a beat no longer moves that counter (decision 0509) the marker
 * of a renewal, a takeover or a detach stayed "current": a bare {@code DELETE} freed the live lease, and a
 * {@code DELETE} + mint + {@code INSERT} took it over with nothing in the journal. Every statement here comes
 * from a plain connection, as the sqlite3 shell would send it, with and without {@code recursive_triggers}.
 */
class LeaseRowDeletionTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private static final Duration TEN_MINUTES = Duration.ofMinutes(10);
    private RawSql raw;
    private Engine a;
    private Engine b;

    @BeforeEach
    void open() {
        raw = new RawSql(temp.file());
        a = temp.open(clock);
        b = temp.open(clock);
        a.actors().add("w");
        a.actors().add("other");
    }

    /** Every kind of operation that can come before the attack; each leaves a live lease on {@code w}. */
    enum Before {
        GRANT,
        RENEW,
        BEAT,
        RENEW_THEN_BEAT,
        TAKEOVER,
        WRITE_TO_ANOTHER_LEASE,
        RELEASE_AND_REACQUIRE,
        DETACH;
    }

    /** The holder of {@code w} and its token after {@code op}. */
    private record Held(Engine holder, long token) {}

    private Held after(Before op) {
        Lease granted = a.leases().acquire("w", TEN_MINUTES);
        clock.advance(Duration.ofSeconds(1));
        return switch (op) {
            case GRANT -> new Held(a, granted.token());
            case RENEW -> new Held(a, a.leases().renew("w", granted.token()).token());
            case BEAT -> {
                a.heartbeatNow();
                yield new Held(a, granted.token());
            }
            case RENEW_THEN_BEAT -> {
                a.leases().renew("w", granted.token());
                clock.advance(Duration.ofSeconds(1));
                a.heartbeatNow();
                yield new Held(a, granted.token());
            }
            case TAKEOVER -> {
                clock.advance(TEN_MINUTES.plusSeconds(1)); // a's lease and session expired
                yield new Held(b, b.leases().acquire("w", TEN_MINUTES).token());
            }
            case WRITE_TO_ANOTHER_LEASE -> {
                a.leases().renew("w", granted.token());
                b.leases().acquire("other", TEN_MINUTES);
                yield new Held(a, granted.token());
            }
            case RELEASE_AND_REACQUIRE -> {
                assertThat(a.leases().release("w", granted.token())).isTrue();
                yield new Held(a, a.leases().acquire("w", TEN_MINUTES).token());
            }
            case DETACH -> {
                a.leases().abandon("w", granted.token()); // still live until its own expiry, ten minutes on
                yield new Held(a, granted.token());
            }
        };
    }

    private void refused(boolean recursive, String... statements) {
        assertThatThrownBy(() -> raw.run(recursive, statements))
                .as(String.join("; ", statements))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("fence: a lease is released only");
    }

    private String leaseRow() throws SQLException {
        return raw.text("SELECT process_identity || ' ' || token FROM actor_leases WHERE actor_id = 'w'");
    }

    /**
     * After every kind of operation, neither a bare {@code DELETE} nor {@code DELETE} + mint + {@code INSERT} naming
     * another process in one transaction frees or takes over the live lease, and neither writes a journal row.
     */
    @ParameterizedTest(name = "after {0}")
    @EnumSource(Before.class)
    void aLiveLeaseRowIsNeverDeletedButByItsRelease(Before op) throws Exception {
        Held held = after(op);
        Engine thief = held.holder() == a ? b : a;
        long now = clock.millis();
        String row = leaseRow();
        long events = raw.scalar("SELECT count(*) FROM fence_events");

        for (boolean recursive : new boolean[] {false, true}) {
            refused(recursive, "DELETE FROM actor_leases WHERE actor_id = 'w'");
            refused(recursive, "DELETE FROM actor_leases");
            refused(
                    recursive,
                    "BEGIN IMMEDIATE",
                    "DELETE FROM actor_leases WHERE actor_id = 'w'",
                    "UPDATE token_counter SET last_token = last_token + 1 WHERE id = 1",
                    "UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1",
                    "INSERT INTO actor_leases (actor_id, process_identity, token, ttl_ms, acquired_at, renewed_at,"
                            + " expires_at, renewals, renewal_journalled_at, change_seq, attached) SELECT 'w', '"
                            + thief.processIdentity() + "', t.last_token, 600000, " + now + ", " + now + ", "
                            + (now + 600_000) + ", 0, " + now + ", c.last_change, 1"
                            + " FROM token_counter t, lease_change_counter c",
                    "COMMIT");
        }

        assertThat(leaseRow()).isEqualTo(row).isEqualTo(held.holder().processIdentity() + " " + held.token());
        assertThat(raw.scalar("SELECT count(*) FROM fence_events")).isEqualTo(events);
        // the holder still holds it: its next beat keeps it (a detached lease is no longer believed, only live)
        assertThat(held.holder().heartbeatNow().lostLeases()).isEmpty();
        if (op != Before.DETACH) {
            assertThat(held.holder().leases().held()).extracting(Lease::token).contains(held.token());
        }
    }

    /** A release through the engine is journalled once: by the database, with the engine's time and process. */
    @Test
    void anEngineReleaseIsJournalledExactlyOnce() {
        Lease l = a.leases().acquire("w", TEN_MINUTES);
        clock.advance(Duration.ofSeconds(3));
        long at = clock.millis();

        assertThat(a.leases().release("w", l.token())).isTrue();

        List<FenceEvent> released = a.journal().since(0, 100).stream()
                .filter(e -> e.kind() == EventKind.LEASE_RELEASED)
                .toList();
        assertThat(released).singleElement().satisfies(e -> {
            assertThat(e.at()).isEqualTo(at);
            assertThat(e.resourceId()).isEqualTo("w");
            assertThat(e.actorId()).isEqualTo("w");
            assertThat(e.processIdentity()).isEqualTo(a.processIdentity());
            assertThat(e.token()).isEqualTo(l.token());
            assertThat(e.detail()).isNull();
        });
        assertThat(a.leases().current("w")).isEmpty();
    }

    /**
     * What the guard cannot stop: someone who reads the token from the file and writes the whole release by hand.
     * The database journals it all the same, so a hand-made release followed by a grant to another process shows
     * as a release and a new grant, never as nothing.
     */
    @ParameterizedTest(name = "recursive_triggers={0}")
    @ValueSource(booleans = {false, true})
    void aReleaseForgedWithTheTokenReadFromTheFileIsJournalled(boolean recursive) throws Exception {
        Lease l = a.leases().acquire("w", TEN_MINUTES);
        a.leases().renew("w", l.token());
        long now = clock.millis();

        raw.run(
                recursive,
                "BEGIN IMMEDIATE",
                "UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1",
                "UPDATE actor_leases SET change_seq = (SELECT last_change FROM lease_change_counter),"
                        + " presented_token = token, presented_change = (SELECT last_change FROM lease_change_counter),"
                        + " released_at = " + now + " WHERE actor_id = 'w'",
                "COMMIT");

        assertThat(a.leases().current("w")).isEmpty();
        assertThat(a.journal().since(0, 100))
                .filteredOn(e -> e.kind() == EventKind.LEASE_RELEASED)
                .singleElement()
                .satisfies(e -> {
                    assertThat(e.token()).isEqualTo(l.token());
                    assertThat(e.processIdentity()).isEqualTo(a.processIdentity());
                    assertThat(e.at()).isEqualTo(now);
                });
        // the holder learns it at its next beat
        assertThat(a.heartbeatNow().lostLeases()).containsKey("w");
    }
}
