package dev.sovereign.engine.attack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.RawSql;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 26 item 1, the same habit elsewhere: since schema version 7 a lease attached to its holder's session lives
 * as long as the holder's {@code processes.heartbeat_at} says (decision 0509), and the takeover guard reads it — but
 * nothing guarded that row. From a plain connection (the sqlite3 shell; {@code foreign_keys} off, as there by
 * default) a bare statement on the session row expired every attached lease of a live holder, and any engine then
 * took them over. Version 8 guards the session row: the beat only moves forward and is an integer, the identity
 * never changes, the row is never replaced, and it is never deleted while a lease names it.
 */
class SessionRowGuardsTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private final SettableClock clock = new SettableClock();
    private RawSql raw;
    private Engine holder;
    private Engine other;
    private Lease held;

    /** A lease whose own expiry has passed: only its holder's session (three beats since) keeps it alive. */
    @BeforeEach
    void open() {
        raw = new RawSql(temp.file());
        holder = temp.open(clock);
        other = temp.open(clock);
        holder.actors().add("w");
        held = holder.leases().acquire("w", Duration.ofSeconds(10));
        for (int i = 0; i < 3; i++) {
            clock.advance(Duration.ofSeconds(5));
            holder.heartbeatNow();
        }
        assertThat(held.expiresAt()).isLessThan(clock.millis());
    }

    private String me() {
        return "'" + holder.processIdentity() + "'";
    }

    private void refused(boolean recursive, String... statements) {
        assertThatThrownBy(() -> raw.run(recursive, statements))
                .as(String.join("; ", statements))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("fence: ");
    }

    /** The lease is still the holder's: another engine is refused, the holder's beat keeps it. */
    private void stillHeld() {
        assertThatThrownBy(() -> other.leases().acquire("w", Duration.ofSeconds(10)))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.ACTOR_LEASE_HELD));
        assertThat(holder.heartbeatNow().lostLeases()).isEmpty();
        assertThat(holder.leases().current("w")).get().extracting(Lease::token).isEqualTo(held.token());
    }

    @ParameterizedTest(name = "heartbeat_at = {0}")
    @ValueSource(strings = {"0", "heartbeat_at - 1", "'abc'", "x'01'", "0.5", "NULL"})
    void aBareUpdateCannotMoveALiveSessionBackOrOutOfItsType(String value) {
        refused(false, "UPDATE processes SET heartbeat_at = " + value + " WHERE identity = " + me());
        refused(
                true,
                "BEGIN IMMEDIATE",
                "UPDATE processes SET heartbeat_at = " + value + " WHERE identity = " + me(),
                "COMMIT");
        stillHeld();
    }

    @Test
    void theSessionRowIsNeverDeletedWhileALeaseNamesIt() {
        refused(false, "DELETE FROM processes WHERE identity = " + me());
        refused(true, "DELETE FROM processes");
        stillHeld();
    }

    @Test
    void theSessionRowNeverChangesItsIdentity() {
        refused(false, "UPDATE processes SET identity = 'proc_someone-else' WHERE identity = " + me());
        stillHeld();
    }

    /** REPLACE would delete the row and insert an earlier beat (its implicit delete fires no trigger): nothing changes. */
    @Test
    void theSessionRowIsNeverReplaced() throws Exception {
        String before = raw.text("SELECT heartbeat_at || ' ' || started_at FROM processes WHERE identity = " + me());
        for (String verb : new String[] {"REPLACE INTO", "INSERT OR REPLACE INTO"}) {
            raw.run(
                    false,
                    verb + " processes (identity, pid, host, kind, started_at, heartbeat_at,"
                            + " heartbeat_interval_ms) VALUES (" + me() + ", 1, 'h', 'worker', 0, 0, 1000)");
        }
        raw.run(
                false,
                "INSERT INTO processes (identity, pid, host, kind, started_at, heartbeat_at, heartbeat_interval_ms)"
                        + " VALUES (" + me()
                        + ", 1, 'h', 'worker', 0, 0, 1000) ON CONFLICT (identity) DO UPDATE SET heartbeat_at = 0");

        assertThat(raw.text("SELECT heartbeat_at || ' ' || started_at FROM processes WHERE identity = " + me()))
                .isEqualTo(before);
        stillHeld();
    }

    /** A beat whose clock stepped back keeps the session already stamped (decision 0600), and is not refused. */
    @Test
    void aBeatAfterAClockStepBackKeepsTheLaterSession() throws Exception {
        long stamped = raw.scalar("SELECT heartbeat_at FROM processes WHERE identity = " + me());
        clock.advance(Duration.ofSeconds(-30));

        assertThat(holder.heartbeatNow().lostLeases()).isEmpty();

        assertThat(raw.scalar("SELECT heartbeat_at FROM processes WHERE identity = " + me()))
                .isEqualTo(stamped);
        clock.advance(Duration.ofSeconds(32));
        holder.heartbeatNow();
        assertThat(raw.scalar("SELECT heartbeat_at FROM processes WHERE identity = " + me()))
                .isEqualTo(clock.millis());
    }

    /** What the guard leaves to the file's permissions: a session stamped far ahead pins the holder's leases. */
    @Test
    void aSessionStampedFarAheadIsAcceptedThereIsNoClockToBoundIt() throws Exception {
        raw.run(false, "UPDATE processes SET heartbeat_at = 4000000000000000 WHERE identity = " + me());
        stillHeld();
    }
}
