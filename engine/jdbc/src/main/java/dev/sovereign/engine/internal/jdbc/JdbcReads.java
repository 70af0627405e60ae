package dev.sovereign.engine.internal.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * Statements that only read, as the shared readers see them: on a {@link JdbcTx} (an engine's transaction or read),
 * or on a connection a backend keeps for the operators' reads alone (SQLite's query-only connection, PostgreSQL's
 * kept statements of the console's session). The reader states what it reads; the backend decides on which
 * connection, with which prepared statements and in which transaction. Not thread-safe.
 */
public interface JdbcReads {
    /** Maps the current row of a result set. */
    @FunctionalInterface
    interface RowMapper<T> {
        T map(ResultSet rs) throws SQLException;
    }

    /** The backend's words for what differs (function names, booleans, row locks, orders). */
    Dialect dialect();

    <T> List<T> query(String sql, RowMapper<T> mapper, Object... args) throws SQLException;

    default <T> Optional<T> one(String sql, RowMapper<T> mapper, Object... args) throws SQLException {
        List<T> rows = query(sql, mapper, args);
        if (rows.size() > 1) {
            throw new IllegalStateException("expected at most one row, got " + rows.size() + " for: " + sql);
        }
        return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
    }

    default long scalarLong(String sql, Object... args) throws SQLException {
        return one(sql, rs -> rs.getLong(1), args).orElseThrow(() -> new IllegalStateException("no row for: " + sql));
    }
}
