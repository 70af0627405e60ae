package dev.sovereign.engine.bench;

import dev.sovereign.engine.base.Durability;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbc.JdbcLockProvider;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The peer: ShedLock's plain-JDBC lock provider (5.16.0) doing the same job — take a named lock,
 * give it back — on an engine database file with the same pragmas, its {@code shedlock} table created
 * as ShedLock documents. ShedLock's lock is one autocommit {@code UPDATE ... WHERE lock_until <= now}
 * (after the first {@code INSERT}), its unlock one autocommit {@code UPDATE}; it mints no token and
 * journals nothing, and its unlock checks no owner.
 */
@State(Scope.Benchmark)
public class ShedLockBenchmark {
    @Param({"FULL", "NORMAL"})
    public Durability durability;

    private Path dir;
    private Connection connection;
    private JdbcLockProvider provider;

    @Setup(Level.Trial)
    public void setUp() throws SQLException {
        dir = BenchFiles.freshDirectory();
        Path file = BenchFiles.createEngineFile(dir, durability);
        connection = BenchFiles.plainConnection(file, durability);
        try (Statement s = connection.createStatement()) {
            s.execute("CREATE TABLE shedlock (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL,"
                    + " locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
        }
        provider = new JdbcLockProvider(new SingleConnectionDataSource(connection));
    }

    @Benchmark
    public void lockUnlock() {
        Optional<SimpleLock> lock = provider.lock(
                new LockConfiguration(ClockProvider.now(), "bench-lock", Duration.ofMinutes(10), Duration.ZERO));
        lock.orElseThrow(() -> new IllegalStateException("ShedLock did not grant a free lock"))
                .unlock();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws SQLException {
        connection.close();
        BenchFiles.deleteRecursively(dir);
    }
}
