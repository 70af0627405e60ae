package dev.sovereign.engine.bench;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Message;
import java.nio.file.Path;
import java.time.Duration;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/** {@link MailboxBenchmark} on PostgreSQL: claim a NEW message, then complete it (two transactions). */
@State(Scope.Benchmark)
public class PgMailboxBenchmark {
    private Path dir;
    private Engine engine;
    private String next;

    @Setup(Level.Trial)
    public void setUp() {
        dir = BenchFiles.freshDirectory();
        engine = PgBench.openEngine(PgBench.freshDatabase(), dir);
        engine.actors().add("worker");
        engine.leases().acquire("worker", Duration.ofDays(1));
    }

    @Setup(Level.Invocation)
    public void sendOne() {
        next = engine.mailbox().send("bench", "worker", "job", null).id();
    }

    @Benchmark
    public Message claimComplete() {
        Claim claim = engine.mailbox().claim(next, "worker", Duration.ofMinutes(5));
        return engine.mailbox().complete(next, claim.token());
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        engine.close();
        BenchFiles.deleteRecursively(dir);
    }
}
