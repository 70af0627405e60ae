package dev.sovereign.engine.internal.sqlite;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The engine connection's prepared statements, kept per SQL text so a transaction does not compile
 * its statements again every time (with sqlite-jdbc each prepare is a native {@code sqlite3_prepare}
 * call; it cost a quarter of a lease acquire). A statement is taken out while in use and given back
 * after its result set is closed, so a re-entrant use of the same SQL simply prepares a second one;
 * a statement that failed is closed, not given back. At most {@link #CAPACITY} idle statements are
 * kept, least recently used first out.
 *
 * <p>Not thread-safe: used only under the {@link Database}'s lock.
 */
final class StatementCache implements AutoCloseable {
    static final int CAPACITY = 128;

    private final Connection connection;
    private final LinkedHashMap<String, PreparedStatement> idle = new LinkedHashMap<>(64, 0.75f, true);
    private long prepared;

    StatementCache(Connection connection) {
        this.connection = connection;
    }

    /** The statement for {@code sql}, taken out of the cache (or prepared now). */
    PreparedStatement take(String sql) throws SQLException {
        PreparedStatement ps = idle.remove(sql);
        if (ps != null) {
            return ps;
        }
        ps = connection.prepareStatement(sql);
        prepared++;
        return ps;
    }

    /** Diagnostics: how many statements this cache has prepared since it was made. */
    long prepared() {
        return prepared;
    }

    /** Diagnostics: the statements kept idle now (a copy). */
    List<PreparedStatement> idle() {
        return List.copyOf(idle.values());
    }

    /** Gives back a statement that completed normally (its result set, if any, closed). */
    void giveBack(String sql, PreparedStatement ps) {
        PreparedStatement previous = idle.put(sql, ps);
        if (previous != null && previous != ps) {
            closeQuietly(previous);
        }
        if (idle.size() > CAPACITY) {
            Iterator<Map.Entry<String, PreparedStatement>> eldest =
                    idle.entrySet().iterator();
            closeQuietly(eldest.next().getValue());
            eldest.remove();
        }
    }

    /** A use of a kept statement. */
    @FunctionalInterface
    interface Use<T> {
        T with(PreparedStatement ps) throws SQLException;
    }

    /**
     * Runs {@code use} on the statement for {@code sql}: given back when it completed (its result set closed by then),
     * discarded when it failed (its state is unknown).
     */
    <T> T use(String sql, Use<T> use) throws SQLException {
        PreparedStatement ps = take(sql);
        boolean completed = false;
        try {
            T result = use.with(ps);
            completed = true;
            return result;
        } finally {
            if (completed) {
                giveBack(sql, ps);
            } else {
                discard(ps);
            }
        }
    }

    /** Runs a statement without parameters or rows (transaction control: BEGIN, COMMIT, ROLLBACK), kept like the others. */
    void execute(String sql) throws SQLException {
        use(sql, PreparedStatement::executeUpdate);
    }

    /** Closes a statement whose execution failed: its state is unknown, so it is not reused. */
    void discard(PreparedStatement ps) {
        closeQuietly(ps);
    }

    @Override
    public void close() {
        List<PreparedStatement> all = new ArrayList<>(idle.values());
        idle.clear();
        all.forEach(StatementCache::closeQuietly);
    }

    private static void closeQuietly(PreparedStatement ps) {
        try {
            ps.close();
        } catch (SQLException ignored) {
            // closing a statement cannot fail in a way that matters here
        }
    }
}
