package dev.sovereign.engine.bench;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.lease.Lease;
import java.nio.file.Path;
import java.time.Duration;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/** {@link LeaseBenchmark} on PostgreSQL: acquire + release of a free lease (two transactions), and a renew (one). */
@State(Scope.Benchmark)
public class PgLeaseBenchmark {
    private Path dir;
    private Engine engine;
    private Lease renewed;

    @Setup(Level.Trial)
    public void setUp() {
        dir = BenchFiles.freshDirectory();
        engine = PgBench.openEngine(PgBench.freshDatabase(), dir);
        engine.actors().add("cycled");
        engine.actors().add("renewed");
        renewed = engine.leases().acquire("renewed", Duration.ofDays(1));
    }

    @Benchmark
    public boolean acquireRelease() {
        Lease l = engine.leases().acquire("cycled", LeaseBenchmark.TTL);
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
