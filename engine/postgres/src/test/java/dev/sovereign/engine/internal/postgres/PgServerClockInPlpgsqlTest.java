package dev.sovereign.engine.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.PgFenceWrites;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.RawPg;
import java.sql.Connection;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Schema version 6 (decision 0910): the server's clock {@code sovereign_now_ms()} is PL/pgSQL, so its plan lives
 * for the session instead of being parsed and planned again in every transaction. It reads the same time (the
 * pinned one, else the server's own), runs with the same settings, every open checks its new body, and a ledger
 * of version 5 with a live lease migrates with every guard that decides on the clock still refusing.
 */
class PgServerClockInPlpgsqlTest {
    private static final Duration TTL = Duration.ofSeconds(30);
    private static final long YEAR_MS = 365L * 24 * 3600 * 1000;

    private static Engine engine(PgTestServer.Database db) {
        return Engine.open(EngineConfig.forDatabase(db.url()).heartbeat(false).build());
    }

    @Test
    void theClockIsPlpgsqlWithItsPinnedPathAndReadsThePinnedTimeOrTheServersOwn() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        engine(db).close();
        try (Connection c = db.connect()) {
            RawPg sql = new RawPg(c);
            assertThat(PgMigrator.schemaVersion(c)).isEqualTo(PgMigrator.LATEST);
            assertThat(sql.text("SELECT l.lanname || ' ' || p.provolatile::text || ' ' || p.prosecdef::text || ' '"
                            + " || array_to_string(p.proconfig, '|') FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang"
                            + " WHERE p.proname = 'sovereign_now_ms'"))
                    .isEqualTo("plpgsql v false search_path=pg_catalog, public, pg_temp");
            long before = System.currentTimeMillis();
            long server = sql.scalar("SELECT sovereign_now_ms()");
            assertThat(Math.abs(server - before)).isLessThan(60_000);
            // whole milliseconds, floored: two reads in one statement never go backwards
            assertThat(sql.scalar("SELECT count(*) FROM (SELECT sovereign_now_ms() AS a, sovereign_now_ms() AS b) x"
                            + " WHERE b >= a"))
                    .isEqualTo(1);
            PgTestServer.pinClock(db, 42);
            assertThat(sql.scalar("SELECT sovereign_now_ms()")).isEqualTo(42);
            // in one transaction a new pin is seen by the next call (a new snapshot per call, as before)
            c.setAutoCommit(false);
            sql.exec("UPDATE server_clock SET pinned_ms = 43 WHERE id = 1");
            assertThat(sql.scalar("SELECT sovereign_now_ms()")).isEqualTo(43);
            c.rollback();
            c.setAutoCommit(true);
            sql.exec("UPDATE server_clock SET pinned_ms = NULL WHERE id = 1");
            assertThat(sql.scalar("SELECT sovereign_now_ms()")).isGreaterThanOrEqualTo(before);
        }
    }

    @Test
    void everyOpenRefusesTheOldSqlClockAFastClockOrAnUnpinnedOne() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        engine(db).close();
        try (Connection c = db.connect()) {
            RawPg sql = new RawPg(c);
            assertThat(PgMigrator.guardProblems(c)).isEmpty();
            String body = sql.text("SELECT pg_get_functiondef('sovereign_now_ms()'::regprocedure)");

            // version 5's SQL body, put back by hand: not what this schema version says
            sql.exec("CREATE OR REPLACE FUNCTION sovereign_now_ms() RETURNS bigint LANGUAGE sql VOLATILE"
                    + " SET search_path = pg_catalog, public, pg_temp AS $$"
                    + "\n    SELECT coalesce((SELECT pinned_ms FROM server_clock WHERE id = 1),"
                    + "\n                    floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint)\n$$");
            assertThat(PgMigrator.guardProblems(c))
                    .containsExactly("guard function sovereign_now_ms was replaced by different code");
            assertThatThrownBy(() -> engine(db))
                    .hasMessageContaining("sovereign_now_ms was replaced by different code");

            // a clock a year ahead would make every live lease look expired to the takeover guard
            sql.exec(body.replace("* 1000)::bigint)", "* 1000)::bigint + " + YEAR_MS + ")"));
            assertThat(PgMigrator.guardProblems(c))
                    .containsExactly("guard function sovereign_now_ms was replaced by different code");

            sql.exec(body, "ALTER FUNCTION sovereign_now_ms() RESET search_path");
            assertThat(PgMigrator.guardProblems(c))
                    .containsExactly(
                            "guard function sovereign_now_ms runs with other settings than its migration gave it");
            sql.exec(body);
            assertThat(PgMigrator.guardProblems(c)).isEmpty();
        }
        engine(db).close();
    }

    @Test
    void aVersionFiveLedgerWithALiveLeaseMigratesAndTheGuardsThatReadTheClockStillRefuse() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Connection c = db.connect()) {
            assertThat(new PgMigrator(false, "old", "f00", 10_000).migrateTo(c, 5))
                    .isEqualTo(5);
            RawPg sql = new RawPg(c);
            assertThat(sql.text("SELECT l.lanname FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang"
                            + " WHERE p.proname = 'sovereign_now_ms'"))
                    .isEqualTo("sql");
            PgFenceWrites w = new PgFenceWrites(sql);
            w.actor("alpha");
            w.actor("beta");
            w.process("proc_old");
            w.process("proc_thief");
            // held by a version-5 engine through its function when the upgrade came
            long old = sql.scalar("SELECT token FROM sovereign_lease_grant('alpha', 'proc_old', 60000)");
            w.send("m1", "alpha");
            long claim = w.claim("m1", "alpha", "proc_old", 60_000);

            try (Engine e = engine(db)) {
                assertThat(PgMigrator.schemaVersion(c)).isEqualTo(PgMigrator.LATEST);
                assertThat(PgMigrator.guardProblems(c)).isEmpty();
                assertThat(PgMigrator.grantProblems(c)).isEmpty();
                assertThat(sql.text("SELECT l.lanname FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang"
                                + " WHERE p.proname = 'sovereign_now_ms'"))
                        .isEqualTo("plpgsql");

                // the live lease still refuses the engine and a raw takeover (the guard reads the new clock) ...
                assertThatThrownBy(() -> e.leases().acquire("alpha", TTL))
                        .isInstanceOf(Refusal.class)
                        .satisfies(
                                r -> assertThat(((Refusal) r).category()).isEqualTo(RefusalCategory.ACTOR_LEASE_HELD));
                String[] takeOver = PgFenceWrites.takeOverStatements("alpha", old, "proc_thief", 5_000);
                takeOver[1] = takeOver[1].replace(" AND expires_at <= sovereign_now_ms()", "");
                sql.refused("fence: a takeover needs an expired lease", takeOver);
                // ... as do a bare release, a counter moved back, a journal row rewritten and a live claim swept
                sql.refused(
                        "fence: a lease is released only by the transaction that presents its current token",
                        "DELETE FROM actor_leases WHERE actor_id = 'alpha'");
                sql.refused("the fencing-token counter only increases", "UPDATE token_counter SET last_token = 0");
                sql.refused("the fence journal is append-only", "UPDATE fence_events SET token = 99");
                sql.refused(
                        "fence: a live claim is not swept",
                        "UPDATE messages SET state = 'NEW', claim_actor = NULL,"
                                + " claim_process = NULL, claim_token = NULL, claim_expires_at = NULL WHERE id = 'm1'");

                // once the server's clock passes the expiry (pinned by the owner), the same takeover is allowed
                PgTestServer.pinClock(db, sql.scalar("SELECT expires_at FROM actor_leases WHERE actor_id = 'alpha'"));
                sql.passes(takeOver);
                assertThat(w.leaseToken("alpha")).isGreaterThan(old);
                sql.exec("UPDATE server_clock SET pinned_ms = NULL WHERE id = 1");

                // the lease functions of version 5 go on with the new clock: a grant's times are the server's
                Lease beta = e.leases().acquire("beta", TTL);
                long now = sql.scalar("SELECT sovereign_now_ms()");
                assertThat(beta.acquiredAt()).isBetween(now - 60_000, now);
                assertThat(sql.scalar("SELECT expires_at - acquired_at FROM actor_leases WHERE actor_id = 'beta'"))
                        .isEqualTo(TTL.toMillis());
                assertThat(e.leases().release("beta", beta.token())).isTrue();
                assertThat(claim).isPositive();
            }
        }
    }
}
