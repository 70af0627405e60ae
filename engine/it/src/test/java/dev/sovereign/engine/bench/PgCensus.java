package dev.sovereign.engine.bench;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.lease.Lease;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.provider.jdbc.JdbcLockProvider;

/**
 * Counts what each PostgreSQL operation sends to the server, with {@code pg_stat_statements} (preloaded on the
 * benchmark server, {@code track=top}: statements the client sent, not those run inside functions or
 * triggers): for each operation a fresh database and engine, the operation run {@value #RUNS} times between a
 * reset and a read of the statistics of that database. pgjdbc sends {@code BEGIN} in the same message batch as
 * a transaction's first statement, and every transaction it begins ends with one {@code COMMIT} (or
 * {@code ROLLBACK}) round trip, so <b>round trips</b> = statements other than BEGIN, COMMIT, ROLLBACK, plus one per
 * BEGIN. (The COMMITs are counted from the BEGINs, not read: {@code pg_stat_statements} recorded pgjdbc's COMMIT for
 * almost none of the transactions on this server.) Auto-commit statements (ShedLock's) are one round trip each.
 */
final class PgCensus {
    static final int RUNS = 50;

    /**
     * Per-operation counts, per run of the operation; {@code walBytes} = how far the server's WAL insert position moved
     * (the whole cluster's, nothing else running: the operation's records, its commits included);
     * {@code top} = the most frequent statements, for the notes.
     */
    record Count(double roundTrips, double statements, double transactions, double walBytes, List<String> top) {
        /** The same counts with the round trips the client itself counted (statement batches + BEGINs, per run). */
        Count withRoundTrips(double trips) {
            return new Count(trips, statements, transactions, walBytes, top);
        }
    }

    private PgCensus() {}

    interface Op {
        void prepare(Engine e, int runs) throws Exception;

        void run(Engine e, int i) throws Exception;
    }

    static Map<String, Count> take() throws Exception {
        try (Connection admin = DriverManager.getConnection(PgBench.url("postgres"));
                Statement s = admin.createStatement()) {
            s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
        }
        Map<String, Count> out = new LinkedHashMap<>();
        out.put("floor", floor());
        for (boolean guards : new boolean[] {true, false}) {
            out.put(ContractFloor.label(guards), contractFloor(guards));
        }
        out.put("lease acquire + release", engineOp(new Op() {
            public void prepare(Engine e, int runs) {
                e.actors().add("cycled");
            }

            public void run(Engine e, int i) {
                Lease l = e.leases().acquire("cycled", LeaseBenchmark.TTL);
                e.leases().release("cycled", l.token());
            }
        }));
        Lease[] renewed = new Lease[1];
        out.put("lease renew", engineOp(new Op() {
            public void prepare(Engine e, int runs) {
                e.actors().add("renewed");
                renewed[0] = e.leases().acquire("renewed", Duration.ofDays(1));
            }

            public void run(Engine e, int i) {
                e.leases().renew("renewed", renewed[0].token());
            }
        }));
        for (int n : new int[] {1, 100, 1000}) {
            out.put(PgSection.heartbeatLabel(n), engineOp(new Op() {
                public void prepare(Engine e, int runs) {
                    for (int i = 0; i < n; i++) {
                        e.actors().add("actor-" + i);
                        e.leases().acquire("actor-" + i, Duration.ofMinutes(10));
                    }
                }

                public void run(Engine e, int i) {
                    e.heartbeatNow();
                }
            }));
        }
        List<String> messages = new ArrayList<>();
        out.put("message claim + complete", engineOp(new Op() {
            public void prepare(Engine e, int runs) {
                e.actors().add("worker");
                e.leases().acquire("worker", Duration.ofDays(1));
                for (int i = 0; i < runs; i++) {
                    messages.add(
                            e.mailbox().send("bench", "worker", "job", null).id());
                }
            }

            public void run(Engine e, int i) {
                String id = messages.get(i);
                e.mailbox()
                        .complete(
                                id,
                                e.mailbox()
                                        .claim(id, "worker", Duration.ofMinutes(5))
                                        .token());
            }
        }));
        out.put(PgSection.SHEDLOCK, shedLock());
        List<String> assignments = new ArrayList<>();
        out.put("runAssignment, scripted provider 0 ms", engineOp(new Op() {
            public void prepare(Engine e, int runs) {
                e.actors().add("runner");
                for (int i = 0; i < runs; i++) {
                    assignments.add(e.runs()
                            .assign("runner", "scripted:ms=0,outcome=completed")
                            .id());
                }
            }

            public void run(Engine e, int i) {
                e.runs().runAssignment(assignments.get(i));
            }
        }));
        return out;
    }

    private static Count floor() throws SQLException {
        String url = PgBench.freshDatabase();
        try (Connection c = PgBench.plainConnection(url)) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE floor_row (id INTEGER PRIMARY KEY, n BIGINT NOT NULL)");
                s.execute("INSERT INTO floor_row (id, n) VALUES (1, 0)");
            }
            c.setAutoCommit(false);
            try (PreparedStatement u = c.prepareStatement("UPDATE floor_row SET n = n + 1 WHERE id = 1")) {
                String lsn = reset();
                for (int i = 0; i < RUNS; i++) {
                    u.executeUpdate();
                    c.commit();
                }
                return read(url, lsn);
            }
        }
    }

    /**
     * The contract floor's grant + release ({@link PgContractFloor}). Its release sends two statements (three without
     * the guards) in one batch, which {@code pg_stat_statements} counts one by one: its round trips are the batches
     * the floor sent plus its BEGINs.
     */
    private static Count contractFloor(boolean guards) throws SQLException {
        Path dir = BenchFiles.freshDirectory();
        String url = PgBench.freshDatabase();
        try {
            try (Engine e = PgBench.openEngine(url, dir)) {
                e.actors().add(PgContractFloor.ACTOR);
            }
            try (PgContractFloor floor = PgContractFloor.open(url, guards)) {
                floor.release(floor.grant()); // the first run prepares the statements
                long before = floor.batches();
                String lsn = reset();
                for (int i = 0; i < RUNS; i++) {
                    floor.release(floor.grant());
                }
                Count count = read(url, lsn);
                return count.withRoundTrips((double) (floor.batches() - before) / RUNS + count.transactions());
            }
        } finally {
            BenchFiles.deleteRecursively(dir);
        }
    }

    private static Count shedLock() throws SQLException {
        String url = PgBench.freshDatabase();
        try (Connection c = PgBench.plainConnection(url)) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE shedlock (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL,"
                        + " locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
            }
            JdbcLockProvider provider = new JdbcLockProvider(new SingleConnectionDataSource(c));
            LockConfiguration config =
                    new LockConfiguration(ClockProvider.now(), "bench-lock", Duration.ofMinutes(10), Duration.ZERO);
            provider.lock(config).orElseThrow().unlock(); // the first lock INSERTs the row; later ones UPDATE it
            String lsn = reset();
            for (int i = 0; i < RUNS; i++) {
                provider.lock(new LockConfiguration(
                                ClockProvider.now(), "bench-lock", Duration.ofMinutes(10), Duration.ZERO))
                        .orElseThrow()
                        .unlock();
            }
            return read(url, lsn);
        }
    }

    private static Count engineOp(Op op) throws Exception {
        Path dir = BenchFiles.freshDirectory();
        String url = PgBench.freshDatabase();
        try (Engine e = PgBench.openEngine(url, dir)) {
            op.prepare(e, RUNS);
            String lsn = reset();
            for (int i = 0; i < RUNS; i++) {
                op.run(e, i);
            }
            return read(url, lsn);
        } finally {
            BenchFiles.deleteRecursively(dir);
        }
    }

    /** Resets the statement statistics; the server's WAL insert position then. */
    private static String reset() throws SQLException {
        try (Connection c = DriverManager.getConnection(PgBench.url("postgres"));
                Statement s = c.createStatement()) {
            s.execute("SELECT pg_stat_statements_reset()");
            try (ResultSet rs = s.executeQuery("SELECT pg_current_wal_insert_lsn()::text")) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    private static Count read(String url, String lsnBefore) throws SQLException {
        String db = url.substring(url.lastIndexOf('/') + 1, url.indexOf('?'));
        double statements = 0;
        double begins = 0;
        double commits = 0;
        double rollbacks = 0;
        List<String> top = new ArrayList<>();
        double walBytes;
        try (Connection c = DriverManager.getConnection(PgBench.url("postgres"));
                PreparedStatement wal =
                        c.prepareStatement("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), ?::pg_lsn)")) {
            wal.setString(1, lsnBefore);
            try (ResultSet rs = wal.executeQuery()) {
                rs.next();
                walBytes = rs.getDouble(1) / RUNS;
            }
        }
        try (Connection c = DriverManager.getConnection(PgBench.url("postgres"));
                PreparedStatement ps =
                        c.prepareStatement("SELECT query, calls FROM pg_stat_statements s JOIN pg_database d"
                                + " ON d.oid = s.dbid WHERE d.datname = ? ORDER BY calls DESC, query")) {
            ps.setString(1, db);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String q = rs.getString(1).strip();
                    long calls = rs.getLong(2);
                    String head = q.toUpperCase(Locale.ROOT);
                    if (head.startsWith("BEGIN")) {
                        begins += calls;
                    } else if (head.startsWith("COMMIT")) {
                        commits += calls;
                    } else if (head.startsWith("ROLLBACK")) {
                        rollbacks += calls;
                    }
                    statements += calls;
                    top.add(String.format(Locale.ROOT, "%.2f × %s", (double) calls / RUNS, q.replaceAll("\\s+", " ")));
                }
            }
        }
        double others = statements - begins - commits - rollbacks;
        return new Count((others + begins) / RUNS, others / RUNS, begins / RUNS, walBytes, top);
    }
}
