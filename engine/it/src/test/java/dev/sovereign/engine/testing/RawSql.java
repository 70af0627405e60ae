package dev.sovereign.engine.testing;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * Statements from a plain JDBC connection of their own — no engine, no pragmas but the ones asked for —
 * the way a hand-typed statement in the sqlite3 shell or a buggy client would reach the file. For the
 * tests of the database's own guards (contract §14).
 */
public final class RawSql {
    private final Path file;

    public RawSql(Path file) {
        this.file = file;
    }

    /** A connection with {@code recursive_triggers} as given (SQLite's default is OFF). */
    public Connection connect(boolean recursiveTriggers) throws SQLException {
        Properties p = new Properties();
        p.setProperty("busy_timeout", "5000");
        Connection c = DriverManager.getConnection("jdbc:sqlite:" + file, p);
        try (Statement s = c.createStatement()) {
            s.execute("PRAGMA recursive_triggers = " + (recursiveTriggers ? "ON" : "OFF"));
        }
        return c;
    }

    /** Runs the statements in order on one connection; a failure rolls back whatever was open, then throws. */
    public void run(boolean recursiveTriggers, String... statements) throws SQLException {
        try (Connection c = connect(recursiveTriggers);
                Statement s = c.createStatement()) {
            try {
                for (String st : statements) {
                    s.execute(st);
                }
            } catch (SQLException e) {
                try {
                    s.execute("ROLLBACK");
                } catch (SQLException ignored) {
                    // nothing was open
                }
                throw e;
            }
        }
    }

    public long scalar(String query) throws SQLException {
        try (Connection c = connect(false);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(query)) {
            return rs.next() ? rs.getLong(1) : -1;
        }
    }

    public String text(String query) throws SQLException {
        try (Connection c = connect(false);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(query)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    /** Every row of {@code query}, each as its columns joined by {@code |}. */
    public List<String> rows(String query) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = connect(false);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(query)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder row = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    row.append(rs.getString(i)).append('|');
                }
                out.add(row.toString());
            }
        }
        return out;
    }
}
