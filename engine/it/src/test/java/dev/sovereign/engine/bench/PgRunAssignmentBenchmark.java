package dev.sovereign.engine.bench;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.RunResult;
import java.nio.file.Path;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * {@link RunAssignmentBenchmark} on PostgreSQL: a whole {@code runAssignment} with the scripted provider
 * sleeping 0 ms (workspaces and receipt files in a temporary data directory).
 */
@State(Scope.Benchmark)
public class PgRunAssignmentBenchmark {
    private Path dir;
    private Engine engine;
    private String next;

    @Setup(Level.Trial)
    public void setUp() {
        dir = BenchFiles.freshDirectory();
        engine = PgBench.openEngine(PgBench.freshDatabase(), dir);
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
