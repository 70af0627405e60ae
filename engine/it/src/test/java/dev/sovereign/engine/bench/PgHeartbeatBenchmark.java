package dev.sovereign.engine.bench;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.lease.Beat;
import java.nio.file.Path;
import java.time.Duration;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/** {@link HeartbeatBenchmark} on PostgreSQL: one heartbeat of a process holding 1, 100 or 1,000 leases. */
@State(Scope.Benchmark)
public class PgHeartbeatBenchmark {
    @Param({"1", "100", "1000"})
    public int leases;

    private Path dir;
    private Engine engine;

    @Setup(Level.Trial)
    public void setUp() {
        dir = BenchFiles.freshDirectory();
        engine = PgBench.openEngine(PgBench.freshDatabase(), dir);
        for (int i = 0; i < leases; i++) {
            String actor = "actor-" + i;
            engine.actors().add(actor);
            engine.leases().acquire(actor, Duration.ofMinutes(10));
        }
    }

    @Benchmark
    public Beat heartbeat() {
        Beat beat = engine.heartbeatNow();
        if (beat.renewedLeases().size() != leases) {
            throw new IllegalStateException(
                    "the heartbeat renewed " + beat.renewedLeases().size() + " of " + leases);
        }
        return beat;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        engine.close();
        BenchFiles.deleteRecursively(dir);
    }
}
