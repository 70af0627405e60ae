package dev.sovereign.engine.internal.postgres;

import static dev.sovereign.engine.testing.RawPg.q;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.internal.jdbc.Dialect;
import dev.sovereign.engine.internal.jdbc.JdbcHeartbeat;
import dev.sovereign.engine.lease.Beat;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.PgFenceWrites;
import dev.sovereign.engine.testing.PgTestServer;
import dev.sovereign.engine.testing.RawPg;
import dev.sovereign.engine.testing.Stripes;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Schema version 15 (decision 0919): a heartbeat's common case as one call of {@code sovereign_beat}, which sends
 * the beat's three statements from inside the server. The engine beats through it; its values are those of the
 * statements it replaces, corrupt rows included; each of its statements reads after the one before, so a takeover
 * the stamp had to wait for is seen by the session check (the property decision 0913 rests on); it runs as its
 * caller; and every open checks it like the guards.
 */
class PgBeatInOneCallTest {
    private static final Duration TTL = Duration.ofSeconds(5);

    private static Engine engine(PgTestServer.Database db) {
        return Engine.open(EngineConfig.forDatabase(db.url()).heartbeat(false).build());
    }

    @Test
    void theEngineBeatsThroughTheFunctionAndKeepsItsLeases() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Connection owner = db.connect()) {
            RawPg sql = new RawPg(owner);
            sql.exec("ALTER DATABASE " + db.name() + " SET track_functions = 'pl'"); // for the engine's session
            try (Engine e = engine(db)) {
                e.actors().add("alpha");
                e.actors().add("beta");
                Lease alpha = e.leases().acquire("alpha", TTL);
                Lease beta = e.leases().acquire("beta", TTL);
                long before =
                        sql.scalar("SELECT heartbeat_at FROM processes WHERE identity = " + q(e.processIdentity()));
                PgTestServer.pinClock(db, before + 1_000);

                Beat beat = e.heartbeatNow();

                assertThat(beat.renewedLeases())
                        .extracting(Lease::token)
                        .containsExactlyInAnyOrder(alpha.token(), beta.token());
                assertThat(beat.lostLeases()).isEmpty();
                // the session row holds the server's stamp, and that is the beat's time
                assertThat(sql.scalar("SELECT heartbeat_at FROM processes WHERE identity = " + q(e.processIdentity())))
                        .isEqualTo(before + 1_000);
                assertThat(beat.renewedLeases())
                        .allSatisfy(l -> assertThat(l.renewedAt()).isEqualTo(before + 1_000));
                e.heartbeatNow();
            }
            sql.awaitFunctionCalls("sovereign_beat", 2);
        }
    }

    /**
     * The function's values against the statements it replaced, over every kind of row the check must count or
     * leave out: attached and sane, not attached, another process's, a token above the counter, an expiry beyond its
     * renewal plus its TTL (the last two written with the guards off, in a transaction rolled back afterwards).
     */
    @Test
    void itsValuesAreThoseOfTheStatementsItReplacesCorruptRowsIncluded() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Engine e = engine(db);
                Connection c = db.connect()) {
            String me = e.processIdentity();
            for (String actor : new String[] {"a1", "a2", "a3", "a4", "other"}) {
                e.actors().add(actor);
            }
            e.leases().acquire("a1", TTL);
            e.leases().acquire("a2", TTL);
            e.leases().acquire("a3", TTL);
            RawPg sql = new RawPg(c);
            PgFenceWrites w = new PgFenceWrites(sql);
            w.process("proc_other");
            w.acquire("other", "proc_other", 5_000);
            w.acquire("a4", me, 5_000); // written by hand: not attached to the session
            c.setAutoCommit(false);
            assertThat(values(c, me)).isEqualTo(statements(c, me));
            assertThat(values(c, me)[0]).isEqualTo(3);

            sql.exec(
                    "ALTER TABLE actor_leases DISABLE TRIGGER USER",
                    "UPDATE actor_leases SET token = token + 1000 WHERE actor_id = 'a2'",
                    "UPDATE actor_leases SET expires_at = renewed_at + ttl_ms + 1 WHERE actor_id = 'a3'",
                    "UPDATE actor_leases SET attached = true WHERE actor_id = 'a4'",
                    "UPDATE actor_leases SET attached = true WHERE actor_id = 'other'",
                    "ALTER TABLE actor_leases ENABLE TRIGGER USER");
            long[] corrupt = values(c, me);
            assertThat(corrupt).isEqualTo(statements(c, me));
            assertThat(corrupt[0])
                    .as("a1 and a4; a2 and a3 are corrupt, 'other' is not mine")
                    .isEqualTo(2);
            c.rollback();
        }
    }

    /**
     * A takeover locks the lease row and then its holder's session row FOR SHARE. A beat whose stamp waits for that
     * lock must, once the takeover commits, not count the lease as still its own: the check reads after the stamp.
     * (Written as one statement, the check beside the stamp in a CTE, it read in the snapshot taken before the wait
     * and counted the lease: this test went red.)
     */
    @Test
    void aTakeoverTheStampWaitedForIsSeenByTheCheck() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Engine e = engine(db);
                Connection taker = db.connect();
                Connection beater = db.connect()) {
            String holder = e.processIdentity();
            e.actors().add("x");
            Lease held = e.leases().acquire("x", TTL);
            assertThat(values(beater, holder)[0]).isEqualTo(1); // (a beat: it stamps the session)
            long beatAt = new RawPg(beater).scalar("SELECT heartbeat_at FROM processes WHERE identity = " + q(holder));
            PgTestServer.pinClock(db, beatAt + 60_000); // the lease and its holder's session have lapsed
            new PgFenceWrites(new RawPg(taker)).process("proc_taker");
            int beaterPid = pid(beater);
            int takerPid = pid(taker);
            taker.setAutoCommit(false); // the takeover, written and not yet committed: it holds its locks
            try (Statement s = taker.createStatement()) {
                for (String statement : PgFenceWrites.takeOverStatements("x", held.token(), "proc_taker", 5_000)) {
                    s.execute(statement);
                }
            }

            CompletableFuture<long[]> beat = CompletableFuture.supplyAsync(() -> {
                try {
                    return call(beater, holder);
                } catch (SQLException ex) {
                    throw new IllegalStateException(ex);
                }
            });
            awaitBlockedBy(db, beaterPid, takerPid);
            taker.commit();

            long[] seen = beat.get(30, TimeUnit.SECONDS);
            assertThat(seen[0]).as("stamped").isEqualTo(beatAt + 60_000);
            assertThat(seen[2])
                    .as("leases the check still counts as the holder's")
                    .isZero();
            // and the engine, beating next, finds the lease lost
            assertThat(e.heartbeatNow().lostLeases()).containsOnlyKeys("x");
        }
    }

    /**
     * Every open checks the function as it checks the guards, its volatility included: made STABLE it would read in
     * one snapshot (and refuses to write); the server's clock made IMMUTABLE may be read once when a statement is
     * planned and stay frozen.
     */
    @Test
    void everyOpenRefusesALedgerWhoseBeatOrClockFunctionChangedItsVolatility() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        engine(db).close();
        try (Connection c = db.connect()) {
            RawPg sql = new RawPg(c);
            assertThat(PgMigrator.guardProblems(c)).isEmpty();
            for (String[] change : new String[][] {
                {"sovereign_beat(text)", "STABLE", "VOLATILE", "sovereign_beat"},
                {"sovereign_now_ms()", "IMMUTABLE", "VOLATILE", "sovereign_now_ms"},
                {"sovereign_acts_for(text, name)", "VOLATILE", "STABLE", "sovereign_acts_for"}
            }) {
                sql.exec("ALTER FUNCTION " + change[0] + " " + change[1]);
                assertThat(PgMigrator.guardProblems(c))
                        .as(change[0] + " made " + change[1])
                        .containsExactly(
                                "guard function " + change[3] + " runs with other settings than its migration gave it");
                sql.exec("ALTER FUNCTION " + change[0] + " " + change[2]);
                assertThat(PgMigrator.guardProblems(c)).isEmpty();
            }
            String body = sql.text("SELECT pg_get_functiondef('sovereign_beat(text)'::regprocedure)");
            sql.exec(body.replace("l.attached", "true"));
            assertThat(PgMigrator.guardProblems(c))
                    .containsExactly("guard function sovereign_beat was replaced by different code");
            sql.exec(body);
            assertThat(PgMigrator.guardProblems(c)).isEmpty();
        }
        engine(db).close();
    }

    /** It runs as its caller: a login that is not a worker may not call it, and a worker stamps only its own. */
    @Test
    void itRunsAsItsCallerAndStampsOnlyTheCallersOwnSession() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        engine(db).close();
        try (Connection owner = db.connect()) {
            RawPg sql = new RawPg(owner);
            assertThat(sql.scalar("SELECT count(*) FROM pg_proc WHERE proname = 'sovereign_beat' AND NOT prosecdef"))
                    .isEqualTo(1);
            new PgFenceWrites(sql).process("proc_owners");
            String stranger = PgTestServer.freshRole("stranger");
            sql.exec("GRANT USAGE ON SCHEMA public TO " + stranger);
            try (Connection c = db.dataSource(stranger, stranger).getConnection()) {
                new RawPg(c)
                        .refused(
                                "permission denied for function sovereign_beat",
                                "SELECT * FROM sovereign_beat('proc_owners')");
            }
            String login = PgTestServer.freshRole("host_y");
            sql.exec("GRANT sovereign_" + db.name() + "_worker TO " + login);
            try (Connection c = db.dataSource(login, login).getConnection()) {
                RawPg worker = new RawPg(c);
                new PgFenceWrites(worker).process("proc_workers");
                worker.passes("SELECT * FROM sovereign_beat('proc_workers')");
                worker.refused(
                        "a process's session row is written only by the login that registered it",
                        "SELECT * FROM sovereign_beat('proc_owners')");
            }
        }
    }

    /** A ledger of version 14 with a live session and lease migrates; the old session beats through the function. */
    @Test
    void aVersionFourteenLedgerMigratesAndItsSessionsBeatOn() throws Exception {
        PgTestServer.Database db = PgTestServer.freshDatabase();
        try (Connection c = db.connect()) {
            assertThat(new PgMigrator(false, "old", "f00", 10_000).migrateTo(c, 14))
                    .isEqualTo(14);
            RawPg sql = new RawPg(c);
            assertThat(sql.scalar("SELECT count(*) FROM pg_proc WHERE proname = 'sovereign_beat'"))
                    .isZero();
            PgFenceWrites w = new PgFenceWrites(sql);
            w.actor("alpha");
            w.process("proc_old");
            long token = w.acquire("alpha", "proc_old", 5_000);

            try (Engine e = engine(db)) {
                assertThat(PgMigrator.schemaVersion(c)).isEqualTo(PgMigrator.LATEST);
                assertThat(PgMigrator.guardProblems(c)).isEmpty();
                assertThat(PgMigrator.grantProblems(c)).isEmpty();
                long[] beat = call(c, "proc_old");
                assertThat(beat[0])
                        .isEqualTo(sql.scalar("SELECT heartbeat_at FROM processes WHERE identity = 'proc_old'"));
                // the counter is the greatest of the stripes, each seeded at or below the old one's value on its own
                // residue and never below its own number (decision 0924)
                assertThat(beat[1])
                        .isEqualTo(sql.scalar("SELECT max(last_token) FROM token_counter"))
                        .isGreaterThanOrEqualTo(token);
                e.actors().add("beta");
                assertThat(e.leases().acquire("beta", TTL).token()).isEqualTo(Stripes.nth("beta", 1));
                assertThat(e.heartbeatNow().renewedLeases())
                        .extracting(Lease::actor)
                        .containsExactly("beta");
            }
        }
    }

    // ---- helpers ----------------------------------------------------------------------------------------------

    /** {@code sovereign_beat}'s check values, in {@code c}'s transaction. */
    private static long[] values(Connection c, String process) throws SQLException {
        long[] all = call(c, process);
        return new long[] {all[2], all[3]};
    }

    /** beat_at (0 when null), last_token, attached, token_residues. */
    private static long[] call(Connection c, String process) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT beat_at, last_token, attached, token_residues FROM sovereign_beat(?::text)")) {
            ps.setString(1, process);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)};
            }
        }
    }

    /** The statement the engine sends where a backend has no such function. */
    private static long[] statements(Connection c, String process) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(JdbcHeartbeat.sessionCheck(Dialect.POSTGRES))) {
            ps.setString(1, process);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return new long[] {rs.getLong(1), rs.getLong(2)};
            }
        }
    }

    private static int pid(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_backend_pid()");
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** Waits, on a condition and not a time, until backend {@code pid} waits for a lock {@code blocker} holds. */
    private static void awaitBlockedBy(PgTestServer.Database db, int pid, int blocker) throws SQLException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("SELECT ? = ANY (pg_blocking_pids(?))")) {
            ps.setInt(1, blocker);
            ps.setInt(2, pid);
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next() && rs.getBoolean(1)) {
                        return;
                    }
                }
                Thread.onSpinWait();
            }
        }
        fail("backend " + pid + " never waited for " + blocker);
    }
}
