package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.internal.jdbc.Dialect;
import dev.sovereign.engine.internal.jdbc.JdbcAdminLeases;
import dev.sovereign.engine.internal.jdbc.JdbcReads;
import dev.sovereign.engine.internal.jdbc.JdbcTx;
import dev.sovereign.engine.internal.jdbc.JdbcTxBase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The statements every console snapshot runs for the leases ({@link JdbcAdminLeases}), prepared once per connection
 * and kept (not one {@code prepareStatement} per snapshot; decision 0511): {@link #on} hands the lease reader a
 * transaction's reads that use them. Dropped when the reader's connection was replaced after a loss, closed by
 * {@link #close}. Not thread-safe: its {@link PgAdminReader} serialises every use.
 */
final class PgKeptStatements {
    private final Map<String, PreparedStatement> kept = new HashMap<>();
    private Connection keptOn;
    private long prepared;

    /** The reads of {@code tx}, each statement run on its kept one of {@code tx}'s connection. */
    JdbcReads on(JdbcTx tx) {
        return new JdbcReads() {
            @Override
            public Dialect dialect() {
                return tx.dialect();
            }

            @Override
            public <T> List<T> query(String sql, RowMapper<T> mapper, Object... args) throws SQLException {
                return PgKeptStatements.this.query(((PgTx) tx).connection(), sql, mapper, args);
            }
        };
    }

    /**
     * Runs {@code sql} on its kept statement of connection {@code c}. A statement whose execution or mapping failed is
     * closed and forgotten (its state is unknown); the next use prepares it again.
     */
    private <T> List<T> query(Connection c, String sql, JdbcReads.RowMapper<T> mapper, Object... args)
            throws SQLException {
        if (c != keptOn) { // the first use, or the connection was lost and replaced: the kept ones are of the old one
            close();
            keptOn = c;
        }
        PreparedStatement ps = kept.remove(sql);
        if (ps == null) {
            ps = c.prepareStatement(sql);
            prepared++;
        }
        boolean completed = false;
        try {
            JdbcTxBase.bind(ps, args);
            List<T> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(mapper.map(rs));
                }
            }
            completed = true;
            return out;
        } finally {
            if (completed) {
                kept.put(sql, ps);
            } else {
                closeQuietly(ps);
            }
        }
    }

    /** Diagnostics for tests: how many statements were prepared since the reader opened. */
    long statementsPrepared() {
        return prepared;
    }

    /** For tests: the statements kept prepared now. */
    List<PreparedStatement> keptStatements() {
        return List.copyOf(kept.values());
    }

    /** Closes the kept statements (the reader closes, or its connection was replaced). */
    void close() {
        kept.values().forEach(PgKeptStatements::closeQuietly);
        kept.clear();
        keptOn = null;
    }

    private static void closeQuietly(PreparedStatement ps) {
        try {
            ps.close();
        } catch (SQLException ignored) {
            // a statement of a lost connection, or already closed: nothing to release
        }
    }
}
