package dev.sovereign.engine.internal.postgres;

import static dev.sovereign.engine.testing.RawPg.CHANGE;
import static dev.sovereign.engine.testing.RawPg.LEASE_TOKEN;
import static dev.sovereign.engine.testing.RawPg.MINT;
import static dev.sovereign.engine.testing.RawPg.NOW;
import static dev.sovereign.engine.testing.RawPg.q;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.lease.Beat;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.PgFenceWrites;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.RawPg;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Decision 0509 on PostgreSQL, what only this backend shows (the contract part is {@code SessionLeasesContract}): a beat
 * writes its session row and no lease row and finds a lost lease at once; schema version 7's guard refuses a
 * hand-typed takeover of an attached lease while its holder's session lives on the server's clock, by every statement
 * form, and lets it through once the session lapsed; attaching or detaching by hand must present the token.
 */
class PgSessionAttachedLeasesTest {
    private static final String B = "proc_b";

    private PgTestServer.Database db;
    private Connection owner;
    private RawPg sql;
    private Engine a;

    @BeforeEach
    void open() throws Exception {
        db = PgTestServer.freshDatabase();
        a = Engine.open(EngineConfig.forDatabase(db.url()).heartbeat(false).build());
        owner = db.connect();
        sql = new RawPg(owner);
        new PgFenceWrites(sql).process(B);
    }

    @AfterEach
    void close() throws Exception {
        a.close();
        owner.close();
    }

    private List<Lease> acquire(int n, Duration ttl) {
        List<Lease> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            a.actors().add("actor-" + i);
            out.add(a.leases().acquire("actor-" + i, ttl));
        }
        return out;
    }

    /** Every stored column of every lease row, one text per row. */
    private String leaseRows() {
        return sql.text("SELECT string_agg(l::text, E'\\n' ORDER BY actor_id) FROM actor_leases l");
    }

    /** Pins the server's clock {@code ms} from now (the owner may; decision 0901). */
    private void pinAhead(long ms) {
        sql.passes(
                "UPDATE server_clock SET pinned_ms = (SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint)"
                        + " + " + ms + " WHERE id = 1");
    }

    private void moveClock(long ms) {
        sql.passes("UPDATE server_clock SET pinned_ms = pinned_ms + " + ms + " WHERE id = 1");
    }

    @Test
    void aBeatWritesTheSessionRowAndNoLeaseRowHoweverManyLeasesItKeeps() {
        pinAhead(0);
        List<Lease> held = acquire(300, Duration.ofSeconds(10));
        assertThat(held).allSatisfy(l -> assertThat(l.attached()).isTrue());
        assertThat(sql.scalar("SELECT count(*) FROM actor_leases WHERE attached"))
                .isEqualTo(300);
        String before = leaseRows();
        long changes = sql.scalar("SELECT max(change_seq) FROM actor_leases");
        long events = sql.scalar("SELECT count(*) FROM fence_events");

        moveClock(8_000);
        Beat beat = a.heartbeatNow();

        assertThat(beat.renewedLeases()).hasSize(300);
        assertThat(leaseRows()).isEqualTo(before);
        assertThat(sql.scalar("SELECT max(change_seq) FROM actor_leases")).isEqualTo(changes);
        assertThat(sql.scalar("SELECT count(*) FROM fence_events")).isEqualTo(events);
        long now = sql.scalar("SELECT " + NOW);
        assertThat(sql.scalar("SELECT heartbeat_at FROM processes WHERE identity = " + q(a.processIdentity())))
                .isEqualTo(now);
        assertThat(a.leases().list()).allSatisfy(l -> assertThat(l.expiresAt()).isEqualTo(now + 10_000));
    }

    @Test
    void theBeatFindsALostLeaseAtOnceNotOnlyAtItsPeriodicCheck() {
        pinAhead(0);
        List<Lease> held = acquire(3, Duration.ofSeconds(1));
        a.heartbeatNow(); // the first beat compares the rows; the next ones rely on the checksums for 5 s
        // a takeover by hand once the row and the session both lapsed (nobody can wind a's session back: version 8
        // stamps the server's clock on it), well inside the 5 s between periodic comparisons
        moveClock(1_000);
        sql.passes(
                MINT,
                "UPDATE actor_leases SET token = " + LEASE_TOKEN + ", process_identity = " + q(B)
                        + ", acquired_at = " + NOW + ", renewed_at = " + NOW + ", expires_at = " + NOW
                        + " + 10000, ttl_ms = 10000,"
                        + " presented_token = " + held.get(1).token() + ", change_seq = " + CHANGE
                        + ", presented_change = "
                        + CHANGE + ", attached = false WHERE actor_id = 'actor-1'");
        moveClock(100);
        Beat beat = a.heartbeatNow();
        assertThat(beat.lostLeases()).containsOnlyKeys("actor-1");
        assertThat(a.leases().held()).extracting(Lease::actor).containsExactlyInAnyOrder("actor-0", "actor-2");
    }

    /**
     * A hand-typed takeover of actor-0 by B, minting its token and stating the fence the way version 1 asks. (An
     * upsert never gets this far: version 1 refuses any INSERT for an actor that has a row.)
     */
    private String[] takeoverByHand(Lease old) {
        return new String[] {
            MINT,
            "UPDATE actor_leases SET process_identity = " + q(B) + ", token = " + LEASE_TOKEN
                    + ", acquired_at = " + NOW + ", renewed_at = " + NOW + ", expires_at = " + NOW
                    + " + 10000, ttl_ms = 10000,"
                    + " presented_token = " + old.token() + ", change_seq = " + CHANGE + ", presented_change = "
                    + CHANGE
                    + " WHERE actor_id = 'actor-0'"
        };
    }

    @Test
    void aHandTypedTakeoverOfAnAttachedLeaseWaitsForTheHoldersSessionToo() {
        pinAhead(0);
        Lease old = acquire(1, Duration.ofSeconds(10)).get(0);
        moveClock(6_000);
        a.heartbeatNow(); // the row's own expiry (+10 s) is its floor; the session keeps it until +16 s
        moveClock(5_000); // +11 s: past the row's own expiry, not past the session's
        sql.refused("waits until its holder's heartbeat has expired too", takeoverByHand(old));
        sql.refused(
                "waits until its holder's heartbeat has expired too",
                "SET CONSTRAINTS ALL DEFERRED",
                takeoverByHand(old)[0],
                takeoverByHand(old)[1],
                takeoverByHand(old)[1]);
        assertThat(a.leases().current("actor-0").orElseThrow().token()).isEqualTo(old.token());
        moveClock(5_000); // +16 s: the session lapsed too
        sql.passes(takeoverByHand(old));
        assertThat(a.leases().current("actor-0").orElseThrow().process()).isEqualTo(B);
    }

    @Test
    void aLeaseIsAttachedByHandOnlyByAWriteThatPresentsItsToken() {
        Lease old = acquire(1, Duration.ofSeconds(10)).get(0);
        a.leases().abandon(old.actor(), old.token());
        assertThat(a.leases().current("actor-0").orElseThrow().attached()).isFalse();
        String marked = ", change_seq = " + CHANGE + ", presented_change = " + CHANGE;
        sql.refused("change marker", "UPDATE actor_leases SET attached = true WHERE actor_id = 'actor-0'");
        sql.refused(
                "presents its current token",
                "UPDATE actor_leases SET attached = true" + marked + ", presented_token = " + (old.token() + 1)
                        + " WHERE actor_id = 'actor-0'");
        assertThat(a.leases().current("actor-0").orElseThrow().attached()).isFalse();
        sql.passes("UPDATE actor_leases SET attached = true" + marked + ", presented_token = " + old.token()
                + " WHERE actor_id = 'actor-0'");
        assertThat(a.leases().current("actor-0").orElseThrow().attached()).isTrue();
    }

    @Test
    void aVersionSixLedgerWithALiveLeaseMigratesAndThatLeaseLivesByItsOwnExpiryAsBefore() throws Exception {
        PgTestServer.Database old = PgTestServer.freshDatabase();
        try (Connection c = old.connect()) {
            assertThat(new PgMigrator(false, "old", "f00", 10_000).migrateTo(c, 6))
                    .isEqualTo(6);
            RawPg raw = new RawPg(c);
            PgFenceWrites w = new PgFenceWrites(raw);
            w.actor("alpha");
            w.process("proc_old");
            long token = w.acquire("alpha", "proc_old", 5_000); // held by a version-6 engine when the upgrade came
            try (Engine e = Engine.open(
                    EngineConfig.forDatabase(old.url()).heartbeat(false).build())) {
                assertThat(PgMigrator.schemaVersion(c)).isEqualTo(PgMigrator.LATEST);
                assertThat(PgMigrator.guardProblems(c)).isEmpty();
                assertThat(PgMigrator.grantProblems(c)).isEmpty();
                Lease migrated = e.leases().current("alpha").orElseThrow();
                assertThat(migrated.attached()).isFalse();
                assertThat(migrated.token()).isEqualTo(token);
                // the server's clock at the grant, then 4.999 s on with its old holder's session beating: still held
                raw.passes(
                        "UPDATE server_clock SET pinned_ms = (SELECT acquired_at FROM actor_leases) + 4999 WHERE id = 1",
                        "UPDATE processes SET heartbeat_at = " + NOW + " WHERE identity = 'proc_old'");
                assertThatThrownBy(() -> e.leases().acquire("alpha", Duration.ofSeconds(10)))
                        .isInstanceOf(Refusal.class);
                // a beat does not extend a lease that is not attached: it expires by its own expires_at, as before
                raw.passes("UPDATE server_clock SET pinned_ms = pinned_ms + 1 WHERE id = 1");
                Lease taken = e.leases().acquire("alpha", Duration.ofSeconds(10));
                assertThat(taken.token()).isGreaterThan(token);
                assertThat(taken.attached()).isTrue();
            }
        }
    }
}
