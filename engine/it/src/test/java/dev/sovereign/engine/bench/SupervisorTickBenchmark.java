package dev.sovereign.engine.bench;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Durability;
import dev.sovereign.engine.supervisor.TickReport;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * An idle supervisor tick on a long history ({@link LedgerHistory}: 1,000,000 journal rows, 100,000
 * finished assignments with their attempts and receipts, 10,000 finished messages, 200 stopped
 * processes) plus 100 live leases of the benchmarking process: nothing is due, so the tick must read
 * only the worklists (via their indexes) and write its own report row.
 */
@State(Scope.Benchmark)
public class SupervisorTickBenchmark {
    @Param({"FULL", "NORMAL"})
    public Durability durability;

    private Path dir;
    private Engine engine;

    @Setup(Level.Trial)
    public void setUp() throws SQLException, IOException {
        dir = BenchFiles.freshDirectory();
        Path file = LedgerHistory.standardHistoryIn(dir);
        try (Connection c = BenchFiles.plainConnection(file, durability);
                Statement s = c.createStatement()) {
            requireAtLeast(s, "SELECT count(*) FROM fence_events", LedgerHistory.JOURNAL_ROWS);
            requireAtLeast(
                    s, "SELECT count(*) FROM execution_attempts WHERE state = 'DONE'", LedgerHistory.FINISHED_ATTEMPTS);
        }
        engine = BenchFiles.openEngine(file, durability);
        for (int i = 0; i < 100; i++) {
            engine.leases().acquire(LedgerHistory.actor(i), Duration.ofDays(1));
        }
    }

    private static void requireAtLeast(Statement s, String sql, long expected) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            if (rs.getLong(1) < expected) {
                throw new IllegalStateException(sql + " gave " + rs.getLong(1) + ", expected at least " + expected);
            }
        }
    }

    /** Keeps this process from turning stale (its heartbeat thread is off), so the tick stays idle. */
    @Setup(Level.Iteration)
    public void beat() {
        engine.heartbeatNow();
    }

    @Benchmark
    public TickReport idleTick() {
        TickReport r = engine.supervisor().tick();
        if (!r.expiredLeases().isEmpty()
                || !r.staleProcesses().isEmpty()
                || !r.sweptClaims().isEmpty()
                || !r.recovered().isEmpty()
                || !r.retired().isEmpty()
                || !r.failures().isEmpty()) {
            throw new IllegalStateException("the tick was not idle: " + r);
        }
        return r;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        engine.close();
        BenchFiles.deleteRecursively(dir);
    }
}
