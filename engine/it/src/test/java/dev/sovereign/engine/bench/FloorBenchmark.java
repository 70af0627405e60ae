package dev.sovereign.engine.bench;

import dev.sovereign.engine.base.Durability;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The floor: the cheapest durable write SQLite can do on this file system — {@code BEGIN IMMEDIATE;
 * UPDATE one row; COMMIT} on a plain one-row table, through plain JDBC with the statements prepared
 * once, in a file the engine created (same page size, WAL, same pragmas). Every other figure is
 * reported as a ratio to this one, measured in the same run.
 */
@State(Scope.Benchmark)
public class FloorBenchmark {
    @Param({"FULL", "NORMAL"})
    public Durability durability;

    private Path dir;
    private Connection connection;
    private Statement control;
    private PreparedStatement update;

    @Setup(Level.Trial)
    public void setUp() throws SQLException {
        dir = BenchFiles.freshDirectory();
        Path file = BenchFiles.createEngineFile(dir, durability);
        connection = BenchFiles.plainConnection(file, durability);
        control = connection.createStatement();
        control.execute("CREATE TABLE floor_row (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)");
        control.execute("INSERT INTO floor_row (id, n) VALUES (1, 0)");
        update = connection.prepareStatement("UPDATE floor_row SET n = n + 1 WHERE id = 1");
    }

    @Benchmark
    public int beginUpdateCommit() throws SQLException {
        control.execute("BEGIN IMMEDIATE");
        int n = update.executeUpdate();
        control.execute("COMMIT");
        return n;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws SQLException {
        update.close();
        control.close();
        connection.close();
        BenchFiles.deleteRecursively(dir);
    }
}
