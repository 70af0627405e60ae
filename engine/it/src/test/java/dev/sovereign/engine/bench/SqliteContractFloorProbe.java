package dev.sovereign.engine.bench;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Durability;
import dev.sovereign.engine.lease.Lease;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.sqlite.SQLiteConnection;

/**
 * A measurement, not a test of the engine (not run by the build: run it with {@code -Dtest=SqliteContractFloorProbe}):
 * the engine's acquire + release against the contract's own floor ({@link ContractFloor}, guards on) on SQLite, in
 * one JVM, alternating rounds of {@code probe.seconds} each on files of one directory, so that all share the
 * machine's drift. Prints each round's median per cycle. Besides the floor as the report measures it: the floor on a
 * connection without the driver's generated keys, and with {@code -Dprobe.shapes=reads,savepoints,reads+savepoints}
 * the floor written in the engine's shape (its reads, its savepoint per work, every statement kept prepared), to
 * split the engine's extra time between its statements. With {@code -Dprobe.jfr=FILE} it records execution and native
 * samples every millisecond into one JFR file, the contenders told apart by thread name.
 *
 * <p>Checkpoints (decision 0513), each a floor without generated keys: {@code -Dprobe.autocheckpoint=4000,10000} with
 * SQLite's automatic checkpoint at those many pages ({@code -Dprobe.sizeLimit}: the log's {@code journal_size_limit});
 * {@code -Dprobe.checkpointEvery=N} with a {@code PASSIVE} checkpoint on another thread every N cycles and the
 * automatic one at {@code -Dprobe.backstop} pages (0: off; it prints every pass that was busy or saw more than 3,000
 * frames).
 */
class SqliteContractFloorProbe {
    private static final long SECONDS = Long.getLong("probe.seconds", 3);
    private static final int ROUNDS = Integer.getInteger("probe.rounds", 6);

    @Test
    void engineAgainstTheContractFloor() throws Exception {
        Durability durability = Durability.valueOf(System.getProperty("probe.durability", "FULL"));
        Path dir = BenchFiles.freshDirectory();
        String jfr = System.getProperty("probe.jfr");
        Recording recording = null;
        if (jfr != null) {
            recording = new Recording();
            recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(1));
            recording.enable("jdk.NativeMethodSample").withPeriod(Duration.ofMillis(1));
            recording.start();
        }
        List<String> names = new ArrayList<>();
        List<Cycle> cycles = new ArrayList<>();
        List<AutoCloseable> open = new ArrayList<>();
        try {
            Engine engine = BenchFiles.openEngine(dir.resolve("engine.db"), durability);
            open.add(engine);
            engine.actors().add("cycled");
            names.add("engine");
            cycles.add(() -> {
                Lease l = engine.leases().acquire("cycled", LeaseBenchmark.TTL);
                engine.leases().release("cycled", l.token());
            });
            ContractFloor floor = floor(dir, "floor", durability, true);
            open.add(floor);
            names.add("floor");
            cycles.add(() -> floor.release(floor.grant()));
            ContractFloor keysOff = floor(dir, "floor-keys-off", durability, false);
            open.add(keysOff);
            names.add("floor-keys-off");
            cycles.add(() -> keysOff.release(keysOff.grant()));
            for (String pages : System.getProperty("probe.autocheckpoint", "").split(",")) {
                if (pages.isBlank()) {
                    continue;
                }
                ContractFloor f = floor(dir, "floor-ckpt-" + pages, durability, false);
                open.add(f);
                try (var s = f.connection().createStatement()) {
                    s.execute("PRAGMA wal_autocheckpoint = " + pages);
                    s.execute("PRAGMA journal_size_limit = " + Long.getLong("probe.sizeLimit", -1));
                }
                names.add("floor-ckpt-" + pages);
                cycles.add(() -> f.release(f.grant()));
            }
            int every = Integer.getInteger("probe.checkpointEvery", 0);
            if (every > 0) {
                ContractFloor bg = floor(dir, "floor-bg-checkpoint", durability, false);
                open.add(bg);
                try (var s = bg.connection().createStatement()) {
                    s.execute("PRAGMA wal_autocheckpoint = " + Integer.getInteger("probe.backstop", 0));
                }
                AtomicLong done = new AtomicLong();
                Connection ck = BenchFiles.plainConnection(
                        dir.resolve("floor-bg-checkpoint").resolve("sovereign.db"), durability);
                open.add(ck);
                Thread checkpointer = new Thread(
                        () -> {
                            long last = 0;
                            try (var s = ck.createStatement()) {
                                while (!Thread.currentThread().isInterrupted()) {
                                    long now = done.get();
                                    if (now - last >= every) {
                                        last = now;
                                        try (ResultSet rs = s.executeQuery("PRAGMA wal_checkpoint(PASSIVE)")) {
                                            rs.next();
                                            if (rs.getInt(1) != 0 || rs.getInt(2) > 3000) {
                                                System.out.println("PROBE checkpoint busy " + rs.getInt(1) + " log "
                                                        + rs.getInt(2) + " done " + rs.getInt(3));
                                            }
                                        }
                                    } else {
                                        LockSupport.parkNanos(200_000);
                                    }
                                }
                            } catch (SQLException e) {
                                // closed at the end
                            }
                        },
                        "probe-checkpointer");
                checkpointer.setDaemon(true);
                checkpointer.start();
                open.add(
                        0,
                        () -> { // first: before the connections it uses close
                            checkpointer.interrupt();
                            checkpointer.join();
                        });
                names.add("floor-bg-checkpoint");
                cycles.add(() -> {
                    bg.release(bg.grant());
                    done.incrementAndGet();
                });
            }
            for (String shape : System.getProperty("probe.shapes", "").split(",")) {
                if (shape.isBlank()) {
                    continue;
                }
                ContractFloor f = floor(dir, "shaped-" + shape, durability, false);
                open.add(f);
                Shaped shaped = new Shaped(f.connection(), shape.contains("savepoints"), shape.contains("reads"));
                names.add("shaped-" + shape);
                cycles.add(shaped::cycle);
            }
            double[][] medians = new double[names.size()][ROUNDS];
            for (int round = 0; round < ROUNDS; round++) {
                StringBuilder line = new StringBuilder("round " + round + ":");
                for (int i = 0; i < names.size(); i++) {
                    medians[i][round] = timed("probe-" + names.get(i), cycles.get(i));
                    line.append(String.format(" %s %.1f us;", names.get(i), medians[i][round]));
                }
                System.out.println("PROBE " + durability + " " + line);
            }
            StringBuilder line = new StringBuilder("medians of rounds:");
            for (int i = 0; i < names.size(); i++) {
                Arrays.sort(medians[i]);
                line.append(String.format(" %s %.1f us;", names.get(i), medians[i][ROUNDS / 2]));
            }
            System.out.println("PROBE " + durability + " " + line);
        } finally {
            for (AutoCloseable c : open) {
                c.close();
            }
            if (recording != null) {
                recording.stop();
                recording.dump(Path.of(jfr));
                recording.close();
            }
            BenchFiles.deleteRecursively(dir);
        }
    }

    private static ContractFloor floor(Path dir, String name, Durability durability, boolean generatedKeys)
            throws Exception {
        Files.createDirectories(dir.resolve(name));
        ContractFloor f =
                ContractFloor.open(ContractFloor.createLedger(dir.resolve(name), durability), durability, true);
        f.connection().unwrap(SQLiteConnection.class).getConnectionConfig().setGetGeneratedKeys(generatedKeys);
        return f;
    }

    interface Cycle {
        void run() throws Exception;
    }

    /**
     * The contract floor's grant and release in the engine's shape: every statement prepared once (transaction control
     * too), optionally a savepoint around the work as group commit opens one, and optionally the engine's reads (the
     * actor, the lease row, the counter for the sanity rule) and its RETURNING of the granted row.
     */
    static final class Shaped {
        private final boolean savepoints;
        private final boolean reads;
        private final PreparedStatement begin;
        private final PreparedStatement commit;
        private final PreparedStatement savepoint;
        private final PreparedStatement release;
        private final PreparedStatement actor;
        private final PreparedStatement lease;
        private final PreparedStatement lastToken;
        private final PreparedStatement mint;
        private final PreparedStatement raise;
        private final PreparedStatement grant;
        private final PreparedStatement journal;
        private final PreparedStatement stateRelease;

        Shaped(Connection c, boolean savepoints, boolean reads) throws SQLException {
            this.savepoints = savepoints;
            this.reads = reads;
            begin = c.prepareStatement("BEGIN IMMEDIATE");
            commit = c.prepareStatement("COMMIT");
            savepoint = c.prepareStatement("SAVEPOINT sovereign_work");
            release = c.prepareStatement("RELEASE sovereign_work");
            actor = c.prepareStatement("SELECT id, created_at FROM actors WHERE id = ?");
            lease = c.prepareStatement("SELECT * FROM actor_leases WHERE actor_id = ?");
            lastToken = c.prepareStatement("SELECT last_token FROM token_counter WHERE id = 1");
            mint = c.prepareStatement(ContractFloor.MINT);
            raise = c.prepareStatement(ContractFloor.RAISE_CHANGE);
            grant = c.prepareStatement(reads ? ContractFloor.GRANT + " RETURNING *" : ContractFloor.GRANT);
            journal = c.prepareStatement(ContractFloor.JOURNAL);
            stateRelease = c.prepareStatement(ContractFloor.STATE_RELEASE);
        }

        void cycle() throws SQLException {
            begin.executeUpdate();
            if (savepoints) {
                savepoint.executeUpdate();
            }
            if (reads) {
                rows(actor, ContractFloor.ACTOR);
                rows(lease, ContractFloor.ACTOR);
            }
            long now = System.currentTimeMillis();
            long token = one(mint);
            long change = one(raise);
            grant.setString(1, ContractFloor.ACTOR);
            grant.setString(2, ContractFloor.PROCESS);
            grant.setLong(3, token);
            grant.setLong(4, ContractFloor.TTL_MS);
            grant.setLong(5, now);
            grant.setLong(6, now);
            grant.setLong(7, now + ContractFloor.TTL_MS);
            grant.setLong(8, now);
            grant.setLong(9, change);
            if (reads) {
                try (ResultSet rs = grant.executeQuery()) {
                    rs.next();
                }
            } else {
                grant.executeUpdate();
            }
            journal.setLong(1, now);
            journal.setString(2, "LEASE_ACQUIRED");
            journal.setString(3, ContractFloor.ACTOR);
            journal.setString(4, ContractFloor.ACTOR);
            journal.setString(5, ContractFloor.PROCESS);
            journal.setLong(6, token);
            journal.setString(7, "ttl " + ContractFloor.TTL_MS + " ms");
            journal.executeUpdate();
            if (savepoints) {
                release.executeUpdate();
            }
            commit.executeUpdate();

            begin.executeUpdate();
            if (savepoints) {
                savepoint.executeUpdate();
            }
            if (reads) {
                rows(lease, ContractFloor.ACTOR);
                one(lastToken);
            }
            now = System.currentTimeMillis();
            change = one(raise);
            stateRelease.setLong(1, change);
            stateRelease.setLong(2, token);
            stateRelease.setLong(3, change);
            stateRelease.setLong(4, now);
            stateRelease.setString(5, ContractFloor.ACTOR);
            stateRelease.setString(6, ContractFloor.PROCESS);
            stateRelease.setLong(7, token);
            if (stateRelease.executeUpdate() != 1) {
                throw new IllegalStateException("not released");
            }
            if (savepoints) {
                release.executeUpdate();
            }
            commit.executeUpdate();
        }

        private static void rows(PreparedStatement ps, String key) throws SQLException {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rs.getString(1);
                }
            }
        }

        private static long one(PreparedStatement ps) throws SQLException {
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Runs {@code cycle} for {@link #SECONDS} on a thread named {@code name}; the median cycle in microseconds. */
    private static double timed(String name, Cycle cycle) throws Exception {
        double[] median = new double[1];
        Exception[] failed = new Exception[1];
        Thread t = new Thread(
                () -> {
                    long[] samples = new long[1 << 20];
                    int n = 0;
                    long end = System.nanoTime() + Duration.ofSeconds(SECONDS).toNanos();
                    try {
                        while (System.nanoTime() < end && n < samples.length) {
                            long t0 = System.nanoTime();
                            cycle.run();
                            samples[n++] = System.nanoTime() - t0;
                        }
                    } catch (Exception e) {
                        failed[0] = e;
                        return;
                    }
                    long sum = 0;
                    for (int i = 0; i < n; i++) {
                        sum += samples[i];
                    }
                    Arrays.sort(samples, 0, n);
                    median[0] = samples[n / 2] / 1000.0;
                    System.out.printf(
                            "PROBE %s: median %.1f us, mean %.1f us, p99 %.1f us, max %.1f us, %d cycles%n",
                            name,
                            median[0],
                            sum / 1000.0 / n,
                            samples[(int) (n * 0.99)] / 1000.0,
                            samples[n - 1] / 1000.0,
                            n);
                },
                name);
        t.start();
        t.join();
        if (failed[0] != null) {
            throw failed[0];
        }
        return median[0];
    }
}
