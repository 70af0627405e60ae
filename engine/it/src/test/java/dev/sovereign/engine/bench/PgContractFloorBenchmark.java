package dev.sovereign.engine.bench;

import dev.sovereign.engine.Engine;
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
 * {@link ContractFloorBenchmark} on PostgreSQL ({@link PgContractFloor}): the hand-written grant + release on a
 * database the engine created, on the durable benchmark server, with the guards ({@code guards=ON}) and with every
 * trigger on the ledger's tables dropped ({@code guards=OFF}); beside it the report sets
 * {@code PgLeaseBenchmark.acquireRelease}.
 */
@State(Scope.Benchmark)
public class PgContractFloorBenchmark {
    @Param({"ON", "OFF"})
    public String guards;

    private Path dir;
    private PgContractFloor floor;

    @Setup(Level.Trial)
    public void setUp() throws SQLException {
        dir = BenchFiles.freshDirectory();
        String url = PgBench.freshDatabase();
        try (Engine e = PgBench.openEngine(url, dir)) {
            e.actors().add(PgContractFloor.ACTOR);
        }
        floor = PgContractFloor.open(url, "ON".equals(guards));
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
