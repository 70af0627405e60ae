package dev.sovereign.engine.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The PostgreSQL floor (decision 0504): {@code BEGIN; UPDATE one row; COMMIT} on a plain one-row table, over
 * the same kind of connection as the engine's (one pgjdbc connection from {@code DriverManager}, READ
 * COMMITTED, auto-commit off for the transaction as {@code PgDatabase.write} does it, the statement prepared
 * once), on the durable benchmark server ({@code synchronous_commit=on}, {@code fsync=on}). pgjdbc sends the
 * BEGIN with the UPDATE, so the floor is two round trips: UPDATE, then COMMIT (which waits for the WAL flush).
 */
@State(Scope.Benchmark)
public class PgFloorBenchmark {
    private Connection connection;
    private PreparedStatement update;

    @Setup(Level.Trial)
    public void setUp() throws SQLException {
        connection = PgBench.plainConnection(PgBench.freshDatabase());
        try (Statement s = connection.createStatement()) {
            s.execute("CREATE TABLE floor_row (id INTEGER PRIMARY KEY, n BIGINT NOT NULL)");
            s.execute("INSERT INTO floor_row (id, n) VALUES (1, 0)");
        }
        connection.setAutoCommit(false);
        update = connection.prepareStatement("UPDATE floor_row SET n = n + 1 WHERE id = 1");
    }

    @Benchmark
    public int beginUpdateCommit() throws SQLException {
        int n = update.executeUpdate();
        connection.commit();
        return n;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws SQLException {
        update.close();
        connection.close();
    }
}
