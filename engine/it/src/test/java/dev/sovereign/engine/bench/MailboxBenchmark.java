package dev.sovereign.engine.bench;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Durability;
import dev.sovereign.engine.mailbox.Claim;
import dev.sovereign.engine.mailbox.Message;
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
 * Mailbox work by a process hosting the recipient actor: claim a NEW message (checks the hosting
 * lease, mints a token, journals {@code CLAIM_GRANTED}) then complete it with that token (one guarded
 * statement, journals {@code MESSAGE_DONE}) — two transactions, compared with two floors. The message
 * is sent before each invocation, outside the measured time.
 */
@State(Scope.Benchmark)
public class MailboxBenchmark {
    @Param({"FULL", "NORMAL"})
    public Durability durability;

    private Path dir;
    private Engine engine;
    private String next;

    @Setup(Level.Trial)
    public void setUp() {
        dir = BenchFiles.freshDirectory();
        engine = BenchFiles.openEngine(dir.resolve("sovereign.db"), durability);
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
