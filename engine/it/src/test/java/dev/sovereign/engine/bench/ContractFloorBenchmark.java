package dev.sovereign.engine.bench;

import dev.sovereign.engine.base.Durability;
import java.nio.file.Path;
import java.sql.SQLException;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The contract's own floor (issue 28): a grant + release of a free actor written by hand ({@link ContractFloor}: the
 * token minted from the counter, the change marker, the lease row, the journal rows; two transactions), with the
 * schema's guards installed ({@code guards=ON}) and with every trigger dropped ({@code guards=OFF}), on an
 * engine-created file with the engine connection's pragmas. The engine's {@code LeaseBenchmark.acquireRelease} does the
 * same work through the API; the report sets the three side by side.
 */
@State(Scope.Benchmark)
public class ContractFloorBenchmark {
    @Param({"FULL", "NORMAL"})
    public Durability durability;

    @Param({"ON", "OFF"})
    public String guards;

    private Path dir;
    private ContractFloor floor;

    @Setup(Level.Trial)
    public void setUp() throws SQLException {
        dir = BenchFiles.freshDirectory();
        floor = ContractFloor.open(ContractFloor.createLedger(dir, durability), durability, "ON".equals(guards));
    }

    @Benchmark
    public long grantRelease() throws SQLException {
        long token = floor.grant();
        floor.release(token);
        return token;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws SQLException {
        floor.close();
        BenchFiles.deleteRecursively(dir);
    }
}
