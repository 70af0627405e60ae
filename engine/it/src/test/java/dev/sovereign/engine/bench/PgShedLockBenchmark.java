package dev.sovereign.engine.bench;

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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The peer on PostgreSQL: ShedLock's plain-JDBC provider (the version of {@link ShedLockBenchmark}) on the same
 * durable server, over one long-lived connection of the same kind as the engine's (a pool of one), its
 * {@code shedlock} table as ShedLock documents it for PostgreSQL. Lock = one auto-commit
 * {@code UPDATE … WHERE name = ? AND lock_until <= ?} (after the first INSERT), unlock = one auto-commit UPDATE:
 * two durable commits, one round trip each; no token, no journal, no owner check on unlock.
 */
@State(Scope.Benchmark)
public class PgShedLockBenchmark {
    private Connection connection;
    private JdbcLockProvider provider;

    @Setup(Level.Trial)
    public void setUp() throws SQLException {
        connection = PgBench.plainConnection(PgBench.freshDatabase());
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
    }
}
