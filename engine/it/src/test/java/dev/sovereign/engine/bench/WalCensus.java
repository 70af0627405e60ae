package dev.sovereign.engine.bench;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Durability;
import dev.sovereign.engine.internal.sqlite.WalFrames;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.mailbox.Claim;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbc.JdbcLockProvider;

/**
 * Counts the WAL pages each measured operation writes (see {@link WalFrames}): a figure that does
 * not depend on the machine's load and explains the time ratios at {@code synchronous=NORMAL}, where
 * a commit costs roughly its pages (and the checkpoints they bring) rather than one fsync.
 */
final class WalCensus {
    private static final int TIMES = 200;

    private WalCensus() {}

    /** Label → WAL pages per operation. */
    static Map<String, Double> take() throws Exception {
        Map<String, Double> out = new LinkedHashMap<>();
        Path dir = BenchFiles.freshDirectory();
        try {
            Path floorDir = dir.resolve("floor");
            floorDir.toFile().mkdirs();
            Path floorFile = BenchFiles.createEngineFile(floorDir, Durability.NORMAL);
            try (Connection c = BenchFiles.plainConnection(floorFile, Durability.NORMAL);
                    Statement s = c.createStatement()) {
                s.execute("CREATE TABLE floor_row (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)");
                s.execute("INSERT INTO floor_row (id, n) VALUES (1, 0)");
                try (PreparedStatement up = c.prepareStatement("UPDATE floor_row SET n = n + 1 WHERE id = 1")) {
                    out.put(
                            "floor",
                            WalFrames.perOperation(
                                    c,
                                    floorFile,
                                    TIMES,
                                    () -> sql(() -> {
                                        s.execute("BEGIN IMMEDIATE");
                                        up.executeUpdate();
                                        s.execute("COMMIT");
                                    })));
                }
            }

            Path engineDir = dir.resolve("engine");
            engineDir.toFile().mkdirs();
            try (Engine e = BenchFiles.openEngine(engineDir.resolve("sovereign.db"), Durability.NORMAL)) {
                e.actors().add("cycled");
                e.actors().add("renewed");
                e.actors().add("worker");
                Lease renewed = e.leases().acquire("renewed", Duration.ofDays(1));
                out.put("lease acquire + release", WalFrames.perOperation(e, TIMES, () -> {
                    Lease l = e.leases().acquire("cycled", Duration.ofMinutes(10));
                    e.leases().release("cycled", l.token());
                }));
                out.put(
                        "lease renew",
                        WalFrames.perOperation(e, TIMES, () -> e.leases().renew("renewed", renewed.token())));
                out.put("heartbeat, 1 lease", WalFrames.perOperation(e, TIMES, e::heartbeatNow));
                e.leases().acquire("worker", Duration.ofDays(1));
                Deque<String> messages = new ArrayDeque<>();
                for (int i = 0; i < TIMES + 1; i++) {
                    messages.add(
                            e.mailbox().send("bench", "worker", "job", null).id());
                }
                out.put("message claim + complete", WalFrames.perOperation(e, TIMES, () -> {
                    String m = messages.pop();
                    Claim claim = e.mailbox().claim(m, "worker", Duration.ofMinutes(5));
                    e.mailbox().complete(m, claim.token());
                }));
                e.actors().add("runner");
                double assign = WalFrames.perOperation(
                        e, 50, () -> e.runs().assign("runner", "scripted:ms=0,outcome=completed"));
                double assignAndRun = WalFrames.perOperation(
                        e,
                        50,
                        () -> e.runs()
                                .runAssignment(e.runs()
                                        .assign("runner", "scripted:ms=0,outcome=completed")
                                        .id()));
                out.put("runAssignment, scripted provider 0 ms", assignAndRun - assign);
                out.put(BenchmarkReport.IDLE_TICK, WalFrames.perOperation(e, 50, e.supervisor()::tick));
            }
            for (boolean guards : new boolean[] {true, false}) {
                Path floorDirOf = dir.resolve(guards ? "contract-floor-on" : "contract-floor-off");
                floorDirOf.toFile().mkdirs();
                Path file = ContractFloor.createLedger(floorDirOf, Durability.NORMAL);
                try (ContractFloor floor = ContractFloor.open(file, Durability.NORMAL, guards)) {
                    out.put(
                            ContractFloor.label(guards),
                            WalFrames.perOperation(
                                    floor.connection(), file, TIMES, () -> sql(() -> floor.release(floor.grant()))));
                }
            }
            for (int leases : new int[] {100, 1000}) {
                Path hbDir = dir.resolve("heartbeat-" + leases);
                hbDir.toFile().mkdirs();
                try (Engine e = BenchFiles.openEngine(hbDir.resolve("sovereign.db"), Durability.NORMAL)) {
                    for (int i = 0; i < leases; i++) {
                        e.actors().add("actor-" + i);
                        e.leases().acquire("actor-" + i, Duration.ofMinutes(10));
                    }
                    out.put(
                            "heartbeat, " + (leases == 1000 ? "1,000" : "100") + " leases",
                            WalFrames.perOperation(e, 20, e::heartbeatNow));
                }
            }

            Path peerDir = dir.resolve("peer");
            peerDir.toFile().mkdirs();
            Path peerFile = BenchFiles.createEngineFile(peerDir, Durability.NORMAL);
            try (Connection c = BenchFiles.plainConnection(peerFile, Durability.NORMAL)) {
                try (Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE shedlock (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL,"
                            + " locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
                }
                JdbcLockProvider provider = new JdbcLockProvider(new SingleConnectionDataSource(c));
                out.put("peer: ShedLock JDBC lock + unlock", WalFrames.perOperation(c, peerFile, TIMES, () -> {
                    Optional<SimpleLock> lock = provider.lock(new LockConfiguration(
                            ClockProvider.now(), "bench-lock", Duration.ofMinutes(10), Duration.ZERO));
                    lock.orElseThrow().unlock();
                }));
            }
        } finally {
            BenchFiles.deleteRecursively(dir);
        }
        return out;
    }

    private interface SqlBody {
        void run() throws SQLException;
    }

    private static void sql(SqlBody body) {
        try {
            body.run();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
