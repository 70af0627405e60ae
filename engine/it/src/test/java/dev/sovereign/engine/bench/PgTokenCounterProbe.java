package dev.sovereign.engine.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A measurement, not a test of the engine (not run by the build: run it with {@code -Dtest=PgTokenCounterProbe}):
 * how many grant + release cycles per second 1 and 16 connections get on the durable benchmark server when every
 * grant takes its token from ONE counter row held to its durable COMMIT (the engine's PostgreSQL schema, decision
 * 0900, with the lease change counter beside it), against the same transactions taking the token from a
 * SEQUENCE (no row held: concurrent commits can share an fsync). Both are hand-written one-statement
 * transactions of the engine's shape (lease upsert where free, journal row; release delete + journal row), so
 * the difference is the counter alone. Issue 16's target: 16 connections ≥ 2× one. {@link #theLedgersOwnSchema}
 * measures the same on the ledger's own schema, every guard on (its counter in 64 stripes since version 19).
 * {@link #whereAGrantsTimeGoes} and {@link #statementsInsideTheFunctions} split one connection's grant + release between
 * the contract's statements, the ledger's lease functions and the engine (decision 0926).
 */
class PgTokenCounterProbe {
    private static final long SECONDS = Long.getLong("probe.seconds", 8);

    private static final String SCHEMA = "CREATE TABLE counter (id int PRIMARY KEY, last bigint NOT NULL);"
            + " INSERT INTO counter VALUES (1, 0), (2, 0);"
            + " CREATE SEQUENCE tokens;"
            + " CREATE TABLE leases (actor text PRIMARY KEY, holder text NOT NULL, token bigint NOT NULL,"
            + " expires_at bigint NOT NULL, change_seq bigint NOT NULL);"
            + " CREATE INDEX leases_by_change ON leases (change_seq);"
            + " CREATE TABLE journal (seq bigserial PRIMARY KEY, kind text NOT NULL, actor text NOT NULL,"
            + " token bigint NOT NULL);"
            + " CREATE INDEX journal_by_actor ON journal (actor, seq)";

    /** Counter rows: token (row 1) and change marker (row 2), each held until COMMIT, as the engine's schema. */
    private static final String GRANT_COUNTER =
            "WITH t AS (UPDATE counter SET last = last + 1 WHERE id = 1 RETURNING last),"
                    + " c AS (UPDATE counter SET last = last + 1 WHERE id = 2 RETURNING last),"
                    + " l AS (INSERT INTO leases SELECT ?, ?, t.last, 0, c.last FROM t, c ON CONFLICT (actor) DO UPDATE"
                    + " SET holder = excluded.holder, token = excluded.token, change_seq = excluded.change_seq"
                    + " WHERE leases.expires_at <= 0 RETURNING token)"
                    + " INSERT INTO journal (kind, actor, token) SELECT 'LEASE_ACQUIRED', ?, token FROM l RETURNING token";

    private static final String RELEASE_COUNTER =
            "WITH c AS (UPDATE counter SET last = last + 1 WHERE id = 2 RETURNING last),"
                    + " d AS (DELETE FROM leases WHERE actor = ? AND token = ? RETURNING token)"
                    + " INSERT INTO journal (kind, actor, token) SELECT 'LEASE_RELEASED', ?, d.token FROM d, c";
    /** The same with the token and the change marker from one sequence: no row is held to the COMMIT. */
    private static final String GRANT_SEQUENCE = "WITH l AS (INSERT INTO leases SELECT ?, ?, nextval('tokens'), 0,"
            + " currval('tokens') ON CONFLICT (actor) DO UPDATE SET holder = excluded.holder, token = excluded.token,"
            + " change_seq = excluded.change_seq WHERE leases.expires_at <= 0 RETURNING token)"
            + " INSERT INTO journal (kind, actor, token) SELECT 'LEASE_ACQUIRED', ?, token FROM l RETURNING token";

    private static final String RELEASE_SEQUENCE = "WITH d AS (DELETE FROM leases WHERE actor = ? AND token = ?"
            + " RETURNING token) INSERT INTO journal (kind, actor, token) SELECT 'LEASE_RELEASED', ?, d.token FROM d";

    /** The token from the sequence, the change marker still from its row held to COMMIT. */
    private static final String GRANT_MIXED =
            "WITH c AS (UPDATE counter SET last = last + 1 WHERE id = 2 RETURNING last),"
                    + " l AS (INSERT INTO leases SELECT ?, ?, nextval('tokens'), 0, c.last FROM c ON CONFLICT (actor) DO UPDATE"
                    + " SET holder = excluded.holder, token = excluded.token, change_seq = excluded.change_seq"
                    + " WHERE leases.expires_at <= 0 RETURNING token)"
                    + " INSERT INTO journal (kind, actor, token) SELECT 'LEASE_ACQUIRED', ?, token FROM l RETURNING token";

    private enum Variant {
        COUNTER_ROWS(
                "token and change marker from their counter rows (the schema today)", GRANT_COUNTER, RELEASE_COUNTER),
        TOKEN_SEQUENCE(
                "the token from a sequence, the change marker from its counter row", GRANT_MIXED, RELEASE_COUNTER),
        SEQUENCE("token and change marker from a sequence (no row held to COMMIT)", GRANT_SEQUENCE, RELEASE_SEQUENCE);

        final String label;
        final String grant;
        final String release;

        Variant(String label, String grant, String release) {
            this.label = label;
            this.grant = grant;
            this.release = release;
        }
    }

    @Test
    void counterRowAgainstSequence() throws Exception {
        String url = PgBench.freshDatabase();
        try (Connection c = PgBench.plainConnection(url);
                Statement s = c.createStatement()) {
            s.execute(SCHEMA);
        }
        List<String> lines = new ArrayList<>();
        for (int pass = 0; pass < 2; pass++) {
            for (Variant variant : Variant.values()) {
                double one = cyclesPerSecond(url, 1, variant);
                double sixteen = cyclesPerSecond(url, 16, variant);
                String line = String.format(
                        "pass %d, %s: 1 connection %.0f cycles/s," + " 16 connections %.0f cycles/s, 16 / 1 = %.2f",
                        pass, variant.label, one, sixteen, sixteen / one);
                lines.add(line);
                System.out.println("[probe] " + line);
            }
        }
        System.out.println("[probe] server: " + PgBench.show());
        assertThat(lines).hasSize(2 * Variant.values().length);
    }

    /**
     * The ledger's own schema (the engine creates it; every guard on): 1 and 16 connections of this one JVM, each
     * granting and releasing its own actor with the contract floor's statements ({@link PgContractFloor}), so what
     * serialises them is the database alone, not the CPU of 16 engine processes on the machine's cores. Since schema
     * version 19 the actors mint from 64 stripes of the counter (decision 0924).
     */
    @Test
    void theLedgersOwnSchema() throws Exception {
        String url = PgBench.freshDatabase();
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("probe");
        List<String> actors = new ArrayList<>();
        try (dev.sovereign.engine.Engine e = PgBench.openEngine(url, dir)) {
            for (int i = 0; i < 17; i++) {
                actors.add("own-" + i);
                e.actors().add("own-" + i);
            }
        }
        List<String> lines = new ArrayList<>();
        for (int pass = 0; pass < 2; pass++) {
            double one = ledgerCyclesPerSecond(url, actors.subList(16, 17));
            double sixteen = ledgerCyclesPerSecond(url, actors.subList(0, 16));
            String line = String.format(
                    "pass %d, the ledger's schema with its guards: 1 connection %.0f cycles/s, 16 connections %.0f"
                            + " cycles/s, 16 / 1 = %.2f",
                    pass, one, sixteen, sixteen / one);
            lines.add(line);
            System.out.println("[probe] " + line);
        }
        System.out.println("[probe] server: " + PgBench.show());
        assertThat(lines).hasSize(2);
    }

    /**
     * Where one connection's grant + release goes on the ledger's own schema: the contract floor's hand-written
     * statements, the ledger's lease functions called by plain JDBC (what the engine sends in its common case), and
     * the engine's API. Floor → functions is what the functions add inside the server; functions → engine what the
     * engine adds in the client.
     */
    @Test
    void whereAGrantsTimeGoes() throws Exception {
        String url = PgBench.freshDatabase();
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("probe");
        List<String> lines = new ArrayList<>();
        try (dev.sovereign.engine.Engine e = PgBench.openEngine(url, dir)) {
            for (String a : List.of("floor", "functions", "engine")) {
                e.actors().add(a);
            }
            for (int pass = 0; pass < 3; pass++) {
                double floor = ledgerCyclesPerSecond(url, List.of("floor"));
                double functions = cyclesPerSecond(
                        1, n -> new FunctionsCycle(PgContractFloor.open(url, true, "functions"), "functions"));
                double engine = cyclesPerSecond(1, n -> new Cycle() {
                    @Override
                    public void once() {
                        e.leases()
                                .release(
                                        "engine",
                                        e.leases()
                                                .acquire("engine", LeaseBenchmark.TTL)
                                                .token());
                    }

                    @Override
                    public void close() {}
                });
                String line = String.format(
                        "pass %d, one connection: floor %.0f µs, functions %.0f µs, engine %.0f µs per grant + release;"
                                + " engine / floor = %.2f",
                        pass, 1e6 / floor, 1e6 / functions, 1e6 / engine, engine / floor);
                lines.add(line);
                System.out.println("[probe] " + line);
            }
        }
        assertThat(lines).hasSize(3);
    }

    /**
     * What the statements inside the lease functions and the guards cost, one connection: {@code pg_stat_statements}
     * with {@code track=all} (set for this session, which a superuser may) over 3,000 grant + release cycles of the
     * functions, then of the floor; the 25 costliest statements of each and every function's time, per cycle.
     */
    @Test
    void statementsInsideTheFunctions() throws Exception {
        String url = PgBench.freshDatabase();
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("probe");
        try (dev.sovereign.engine.Engine e = PgBench.openEngine(url, dir)) {
            e.actors().add("functions");
            e.actors().add("floor");
        }
        try (PgContractFloor floor = PgContractFloor.open(url, true, "floor");
                PgContractFloor functions = PgContractFloor.open(url, true, "functions")) {
            Connection c = functions.connection();
            try (Statement s = c.createStatement()) {
                s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
                s.execute("SET pg_stat_statements.track = 'all'");
                s.execute("SET track_functions = 'all'");
            }
            c.commit();
            try (Statement s = floor.connection().createStatement()) {
                s.execute("SET pg_stat_statements.track = 'all'");
                s.execute("SET track_functions = 'all'");
            }
            floor.connection().commit();
            FunctionsCycle cycle = new FunctionsCycle(functions, "functions");
            for (String variant : List.of("functions", "floor")) {
                try (Statement s = c.createStatement()) {
                    s.execute("SELECT pg_stat_statements_reset()");
                    s.execute("SELECT pg_stat_reset()");
                }
                c.commit();
                for (int i = 0; i < 3_000; i++) {
                    if (variant.equals("floor")) {
                        floor.release(floor.grant());
                        continue;
                    }
                    cycle.once();
                }
                Thread.sleep(600); // the statistics collector's flush
                try (Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("SELECT calls, round(mean_exec_time::numeric * 1000, 1),"
                                + " round(total_exec_time::numeric / 3000 * 1000, 1), toplevel,"
                                + " left(regexp_replace(query, '\\s+', ' ', 'g'), 150) FROM pg_stat_statements"
                                + " ORDER BY total_exec_time DESC LIMIT 25")) {
                    while (rs.next()) {
                        System.out.printf(
                                "[probe] %s: %6d calls, mean %7s µs, per cycle %7s µs, top %s: %s%n",
                                variant,
                                rs.getLong(1),
                                rs.getString(2),
                                rs.getString(3),
                                rs.getString(4),
                                rs.getString(5));
                    }
                }
                try (Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery(
                                "SELECT funcname, calls, round((self_time / 3000 * 1000)::numeric, 1),"
                                        + " round((total_time / 3000 * 1000)::numeric, 1) FROM pg_stat_user_functions ORDER BY total_time DESC")) {
                    while (rs.next()) {
                        System.out.printf(
                                "[probe] %s function %s: %d calls, self %s µs, total %s µs per cycle%n",
                                variant, rs.getString(1), rs.getLong(2), rs.getString(3), rs.getString(4));
                    }
                }
                c.commit();
            }
        }
    }

    private static double ledgerCyclesPerSecond(String url, List<String> actors) throws Exception {
        return cyclesPerSecond(actors.size(), n -> {
            PgContractFloor floor = PgContractFloor.open(url, true, actors.get(n));
            return new Cycle() {
                @Override
                public void once() throws SQLException {
                    floor.release(floor.grant());
                }

                @Override
                public void close() throws SQLException {
                    floor.close();
                }
            };
        });
    }

    private static double cyclesPerSecond(String url, int connections, Variant variant) throws Exception {
        return cyclesPerSecond(connections, n -> {
            String actor = "actor-" + connections + "-" + n + "-" + variant;
            Connection c = PgBench.plainConnection(url);
            c.setAutoCommit(false);
            PreparedStatement grant = c.prepareStatement(variant.grant);
            PreparedStatement release = c.prepareStatement(variant.release);
            return new Cycle() {
                @Override
                public void once() throws SQLException {
                    grant.setString(1, actor);
                    grant.setString(2, "me");
                    grant.setString(3, actor);
                    long token = grantedToken(grant, actor);
                    c.commit();
                    release.setString(1, actor);
                    release.setLong(2, token);
                    release.setString(3, actor);
                    if (release.executeUpdate() != 1) {
                        throw new IllegalStateException("not released: " + actor);
                    }
                    c.commit();
                }

                @Override
                public void close() throws SQLException {
                    c.close();
                }
            };
        });
    }

    /** Runs {@code grant} (bound for {@code actor}) and returns the token of the row it granted. */
    private static long grantedToken(PreparedStatement grant, String actor) throws SQLException {
        try (ResultSet rs = grant.executeQuery()) {
            if (!rs.next()) {
                throw new IllegalStateException("not granted: " + actor);
            }
            return rs.getLong(1);
        }
    }

    /**
     * A grant + release through the ledger's lease functions, called by plain JDBC on {@code registered}'s connection
     * (what the engine sends in its common case), each committed.
     */
    private static final class FunctionsCycle implements Cycle {
        private final PgContractFloor registered;
        private final String actor;
        private final Connection c;
        private final PreparedStatement grant;
        private final PreparedStatement release;

        FunctionsCycle(PgContractFloor registered, String actor) throws SQLException {
            this.registered = registered;
            this.actor = actor;
            this.c = registered.connection();
            grant = c.prepareStatement("SELECT token FROM sovereign_lease_grant(?::text, ?::text, ?::bigint)");
            release = c.prepareStatement("SELECT sovereign_lease_release(?::text, ?::text, ?::bigint)");
        }

        @Override
        public void once() throws SQLException {
            grant.setString(1, actor);
            grant.setString(2, PgContractFloor.PROCESS);
            grant.setLong(3, PgContractFloor.TTL_MS);
            long token = grantedToken(grant, actor);
            c.commit();
            release.setString(1, actor);
            release.setString(2, PgContractFloor.PROCESS);
            release.setLong(3, token);
            try (ResultSet rs = release.executeQuery()) {
                if (!rs.next() || !rs.getBoolean(1)) {
                    throw new IllegalStateException("not released: " + actor);
                }
            }
            c.commit();
        }

        @Override
        public void close() throws SQLException {
            registered.close();
        }
    }

    /** One connection's grant + release, committed; closed when the measurement ends. */
    private interface Cycle extends AutoCloseable {
        void once() throws SQLException;

        @Override
        void close() throws SQLException;
    }

    @FunctionalInterface
    private interface Cycles {
        Cycle open(int connection) throws SQLException;
    }

    /** {@code connections} threads each cycling its own {@link Cycle}: cycles per second after 2 s of warm-up. */
    private static double cyclesPerSecond(int connections, Cycles cycles) throws Exception {
        AtomicBoolean measuring = new AtomicBoolean(false);
        AtomicBoolean stop = new AtomicBoolean(false);
        AtomicLong done = new AtomicLong();
        CountDownLatch ready = new CountDownLatch(connections);
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            int n = i;
            Thread t = new Thread(() -> {
                try (Cycle cycle = cycles.open(n)) {
                    ready.countDown();
                    while (!stop.get()) {
                        cycle.once();
                        if (measuring.get()) {
                            done.incrementAndGet();
                        }
                    }
                } catch (SQLException | RuntimeException e) {
                    synchronized (failures) {
                        failures.add(e);
                    }
                    ready.countDown();
                }
            });
            threads.add(t);
            t.start();
        }
        ready.await();
        Thread.sleep(2_000); // warm-up
        measuring.set(true);
        long t0 = System.nanoTime();
        Thread.sleep(SECONDS * 1_000);
        measuring.set(false);
        long t1 = System.nanoTime();
        stop.set(true);
        for (Thread t : threads) {
            t.join();
        }
        assertThat(failures).isEmpty();
        return done.get() / ((t1 - t0) / 1e9);
    }
}
