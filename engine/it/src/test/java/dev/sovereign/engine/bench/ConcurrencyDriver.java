package dev.sovereign.engine.bench;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Durability;
import dev.sovereign.engine.internal.sqlite.Database;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.Sqlite;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbc.JdbcLockProvider;
import net.javacrumbs.shedlock.support.LockException;

/**
 * Throughput under concurrency in ONE JVM (issue 16, decision 0505): N threads, each looping "take my own
 * lease, give it back" for a fixed time, no think time.
 * <ul>
 *   <li><b>engine</b>: one engine (one SQLite connection, group commit of decision 0503), thread i acquires and
 *       releases actor {@code t-i}; the engine's batches are counted ({@link Database#batchesCommitted()}), so
 *       the report can say how many writes one commit carried;</li>
 *   <li><b>peer, a connection per thread</b>: ShedLock's {@link JdbcLockProvider} on a SQLite file, thread i
 *       locks and unlocks the lock named {@code lock-i}, each thread on its own connection (a pool as big as the
 *       threads): the threads contend for SQLite's write lock, and a write that waited out the
 *       {@code busy_timeout} fails with SQLITE_BUSY, which ShedLock reports as a {@link LockException}; the
 *       thread then tries again (counted as a busy retry);</li>
 *   <li><b>peer, one shared connection</b>: the same, but the threads share one connection handed out by a
 *       pool of one (a thread waits for it), the way the engine's threads share its one connection — SQLite
 *       admits one writer anyway.</li>
 * </ul>
 * A cycle's time is from asking for the lock to having given it back, retries included. Every case runs on a
 * fresh engine-created file with the engine's pragmas ({@link BenchFiles}).
 */
final class ConcurrencyDriver {
    static final Duration TTL = Duration.ofMinutes(10);
    static final int[] THREADS = {1, 16};

    enum System {
        ENGINE("engine: acquire + release"),
        PEER_OWN("ShedLock, a connection per thread"),
        PEER_SHARED("ShedLock, one shared connection");

        final String label;

        System(String label) {
            this.label = label;
        }
    }

    record Case(System system, Durability durability, int threads) {
        @Override
        public String toString() {
            return system + " " + durability + " " + threads + " thread(s)";
        }
    }

    /**
     * One measured run of a case.
     *
     * @param cycles          completed acquire + release (lock + unlock) cycles in the measured time
     * @param seconds         the measured time
     * @param cycleNanos      every measured cycle's time, sorted
     * @param batches         engine only: write transactions the engine committed in the measured time
     * @param busyRetries     peer only: lock or unlock calls that failed with SQLITE_BUSY and were tried again
     */
    record Run(Case scenario, long cycles, double seconds, long[] cycleNanos, long batches, long busyRetries) {
        double perSecond() {
            return cycles / seconds;
        }

        double percentileMillis(double p) {
            if (cycleNanos.length == 0) {
                return Double.NaN;
            }
            int i = (int) Math.min(cycleNanos.length - 1, Math.ceil(p / 100.0 * cycleNanos.length) - 1);
            return cycleNanos[Math.max(0, i)] / 1e6;
        }
    }

    private final Duration warmup;
    private final Duration measured;

    ConcurrencyDriver(Duration warmup, Duration measured) {
        this.warmup = warmup;
        this.measured = measured;
    }

    /**
     * The unrecorded warm-up of each case: 2 s in a full run (each case is a fresh file in the same JVM; the first
     * round also warms the JIT), the quick run's contention warm-up otherwise.
     */
    static Duration warmup(BenchmarkReport.Settings s) {
        return s == BenchmarkReport.QUICK ? s.contentionWarmup() : Duration.ofSeconds(2);
    }

    /** Every case, in one order; the report runs this several times (rounds) so the cases share the drift. */
    static List<Case> cases() {
        List<Case> out = new ArrayList<>();
        for (Durability d : List.of(Durability.FULL, Durability.NORMAL)) {
            for (int n : THREADS) {
                out.add(new Case(System.ENGINE, d, n));
                out.add(new Case(System.PEER_OWN, d, n));
                if (n > 1) { // with one thread both peers are the same: one connection
                    out.add(new Case(System.PEER_SHARED, d, n));
                }
            }
        }
        return out;
    }

    Run run(Case c) throws Exception {
        Path dir = BenchFiles.freshDirectory();
        try {
            return c.system() == System.ENGINE ? engine(c, dir) : peer(c, dir);
        } finally {
            BenchFiles.deleteRecursively(dir);
        }
    }

    /** What one thread does once per cycle; returns the busy retries it needed. */
    private interface Cycle {
        long once() throws Exception;
    }

    private Run engine(Case c, Path dir) throws Exception {
        try (Engine engine = BenchFiles.openEngine(dir.resolve("sovereign.db"), c.durability())) {
            Database db = Sqlite.database(engine);
            List<Cycle> cycles = new ArrayList<>();
            for (int i = 0; i < c.threads(); i++) {
                String actor = "t-" + i;
                engine.actors().add(actor);
                cycles.add(() -> {
                    Lease l = engine.leases().acquire(actor, TTL);
                    if (!engine.leases().release(actor, l.token())) {
                        throw new IllegalStateException("a release of " + actor + " was not done");
                    }
                    return 0;
                });
            }
            return drive(c, cycles, db::batchesCommitted);
        }
    }

    private Run peer(Case c, Path dir) throws Exception {
        Path file = BenchFiles.createEngineFile(dir, c.durability());
        List<Connection> connections = new ArrayList<>();
        try {
            int count = c.system() == System.PEER_SHARED ? 1 : c.threads();
            for (int i = 0; i < count; i++) {
                connections.add(BenchFiles.plainConnection(file, c.durability()));
            }
            try (Statement s = connections.get(0).createStatement()) {
                s.execute("CREATE TABLE shedlock (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL,"
                        + " locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
            }
            DataSource shared = c.system() == System.PEER_SHARED ? new PoolOfOne(connections.get(0)) : null;
            List<Cycle> cycles = new ArrayList<>();
            for (int i = 0; i < c.threads(); i++) {
                String name = "lock-" + i;
                DataSource ds = shared != null ? shared : new SingleConnectionDataSource(connections.get(i));
                JdbcLockProvider provider = new JdbcLockProvider(ds);
                // the lock's row is created by its first lock, alone, before the threads start: measured is the
                // steady state, where a lock is one UPDATE (ShedLock swallows a busy INSERT and then reports the
                // lock as not granted, which a first lock under contention would otherwise measure)
                provider.lock(new LockConfiguration(ClockProvider.now(), name, TTL, Duration.ZERO))
                        .orElseThrow(() -> new IllegalStateException("ShedLock did not create " + name))
                        .unlock();
                cycles.add(() -> {
                    long retries = 0;
                    SimpleLock lock = null;
                    while (lock == null) {
                        try {
                            Optional<SimpleLock> l =
                                    provider.lock(new LockConfiguration(ClockProvider.now(), name, TTL, Duration.ZERO));
                            if (l.isPresent()) {
                                lock = l.get();
                            } else if (++retries > 100_000) { // not expected: only this thread uses the name
                                throw new IllegalStateException("ShedLock keeps refusing " + name);
                            }
                        } catch (LockException busy) {
                            retries++;
                        }
                    }
                    while (true) {
                        try {
                            lock.unlock();
                            return retries;
                        } catch (LockException busy) {
                            retries++;
                        }
                    }
                });
            }
            return drive(c, cycles, () -> 0L);
        } finally {
            for (Connection con : connections) {
                con.close();
            }
        }
    }

    private interface Counter {
        long get();
    }

    /** Runs every thread's cycle in a loop: warm-up unrecorded, then the measured time. */
    private Run drive(Case c, List<Cycle> cycles, Counter batches) throws Exception {
        int n = cycles.size();
        long[][] times = new long[n][];
        int[] counts = new int[n];
        long[] measuredRetries = new long[n];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch ready = new CountDownLatch(n);
        // 0 = warm-up, 1 = measuring, 2 = stop
        AtomicInteger phase = new AtomicInteger();
        Thread[] threads = new Thread[n];
        for (int i = 0; i < n; i++) {
            int me = i;
            times[me] = new long[1 << 14];
            threads[i] = new Thread(
                    () -> {
                        ready.countDown();
                        try {
                            while (true) {
                                int p = phase.get();
                                if (p == 2) {
                                    return;
                                }
                                long start = java.lang.System.nanoTime();
                                long r = cycles.get(me).once();
                                long took = java.lang.System.nanoTime() - start;
                                if (p == 1) {
                                    if (counts[me] == times[me].length) {
                                        times[me] = Arrays.copyOf(times[me], times[me].length * 2);
                                    }
                                    times[me][counts[me]++] = took;
                                    measuredRetries[me] += r;
                                }
                            }
                        } catch (Throwable t) {
                            failure.compareAndSet(null, t);
                        }
                    },
                    "concurrency-" + c.system() + "-" + i);
            threads[i].setDaemon(true);
            threads[i].start();
        }
        ready.await();
        Thread.sleep(warmup.toMillis());
        long batches0 = batches.get();
        long t0 = java.lang.System.nanoTime();
        phase.set(1);
        Thread.sleep(measured.toMillis());
        phase.set(2);
        long t1 = java.lang.System.nanoTime();
        long batches1 = batches.get();
        for (Thread t : threads) {
            t.join(Duration.ofMinutes(2).toMillis());
            if (t.isAlive()) {
                throw new IllegalStateException(t.getName() + " did not stop within 2 minutes");
            }
        }
        if (failure.get() != null) {
            throw new IllegalStateException("case " + c + " failed", failure.get());
        }
        int total = Arrays.stream(counts).sum();
        long[] all = new long[total];
        int at = 0;
        for (int i = 0; i < n; i++) {
            java.lang.System.arraycopy(times[i], 0, all, at, counts[i]);
            at += counts[i];
        }
        Arrays.sort(all);
        return new Run(
                c,
                total,
                (t1 - t0) / 1e9,
                all,
                batches1 - batches0,
                Arrays.stream(measuredRetries).sum());
    }

    /**
     * A pool of one connection: {@code getConnection()} waits until the connection is free, and the handle's
     * {@code close()} gives it back (ShedLock closes the connection after each statement).
     */
    static final class PoolOfOne implements DataSource {
        private final Connection target;
        private final Semaphore free = new Semaphore(1, true);

        PoolOfOne(Connection target) {
            this.target = target;
        }

        @Override
        public Connection getConnection() throws SQLException {
            try {
                free.acquire();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException("interrupted while waiting for the connection", e);
            }
            boolean[] closed = {false};
            return (Connection) Proxy.newProxyInstance(
                    Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                        if (method.getName().equals("close")) {
                            if (!closed[0]) {
                                closed[0] = true;
                                free.release();
                            }
                            return null;
                        }
                        if (method.getName().equals("isClosed")) {
                            return closed[0];
                        }
                        try {
                            return method.invoke(target, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            return getConnection();
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {
            // no logging
        }

        @Override
        public void setLoginTimeout(int seconds) {
            // not applicable
        }

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            throw new SQLFeatureNotSupportedException();
        }

        @Override
        public <T> T unwrap(Class<T> iface) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return false;
        }
    }
}
