package dev.sovereign.engine.bench;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Durability;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.RunResult;
import java.nio.file.Path;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A whole {@code runAssignment} (contract §6, in its order: lease, attempt + RUNNING, workspace, provider,
 * terminal write + receipt, receipt file, workspace reclaim, release) with the {@code scripted}
 * provider sleeping 0 ms, so what is measured is the engine's own work. The assignment is created
 * before each invocation, outside the measured time.
 */
@State(Scope.Benchmark)
public class RunAssignmentBenchmark {
    @Param({"FULL", "NORMAL"})
    public Durability durability;

    private Path dir;
    private Engine engine;
    private String next;

    @Setup(Level.Trial)
    public void setUp() {
        dir = BenchFiles.freshDirectory();
        engine = BenchFiles.openEngine(dir.resolve("sovereign.db"), durability);
        engine.actors().add("runner");
    }

    @Setup(Level.Invocation)
    public void assignOne() {
        next = engine.runs().assign("runner", "scripted:ms=0,outcome=completed").id();
    }

    @Benchmark
    public RunResult runAssignment() {
        RunResult r = engine.runs().runAssignment(next);
        if (r.assignment().state() != AssignmentState.COMPLETED) {
            throw new IllegalStateException(
                    "the scripted run ended " + r.assignment().state());
        }
        return r;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        engine.close();
        BenchFiles.deleteRecursively(dir);
    }
}
