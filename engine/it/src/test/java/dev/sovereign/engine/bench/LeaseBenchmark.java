package dev.sovereign.engine.bench;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Durability;
import dev.sovereign.engine.lease.Lease;
import java.nio.file.Path;
import java.time.Duration;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Single-lease engine operations through the public API, one process, no contention:
 * <ul>
 *   <li>{@code acquireRelease}: acquire a free actor (mint a token, insert the lease, journal
 *       {@code LEASE_ACQUIRED}) then release it (CAS delete, journal {@code LEASE_RELEASED}) — two
 *       transactions, compared with two floors;</li>
 *   <li>{@code renew}: an explicit renewal of a held lease (CAS update, journal {@code LEASE_RENEWED}).</li>
 * </ul>
 */
@State(Scope.Benchmark)
public class LeaseBenchmark {
    static final Duration TTL = Duration.ofMinutes(10);

    @Param({"FULL", "NORMAL"})
    public Durability durability;

    private Path dir;
    private Engine engine;
    private Lease renewed;

    @Setup(Level.Trial)
    public void setUp() {
        dir = BenchFiles.freshDirectory();
        engine = BenchFiles.openEngine(dir.resolve("sovereign.db"), durability);
        engine.actors().add("cycled");
        engine.actors().add("renewed");
        renewed = engine.leases().acquire("renewed", Duration.ofDays(1));
    }

    @Benchmark
    public boolean acquireRelease() {
        Lease l = engine.leases().acquire("cycled", TTL);
        return engine.leases().release("cycled", l.token());
    }

    @Benchmark
    public Lease renew() {
        return engine.leases().renew("renewed", renewed.token());
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        engine.close();
        BenchFiles.deleteRecursively(dir);
    }
}
