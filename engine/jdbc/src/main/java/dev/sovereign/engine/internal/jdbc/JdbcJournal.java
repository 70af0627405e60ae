package dev.sovereign.engine.internal.jdbc;

import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.journal.Journal;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * Reads of the append-only {@code fence_events} table, for both backends. On PostgreSQL its {@code seq} is
 * increasing in call order, not commit order (decision 0900): a reader tailing with {@link #since} may see a lower
 * seq commit after a higher one it already read; on SQLite, whose writers take turns, the two orders are one.
 * Thread-safe.
 */
public final class JdbcJournal implements Journal {
    public static final String COLUMNS = "seq, at, kind, resource_type, resource_id, actor_id, process_identity, token,"
            + " presented_token, current_token, category, detail";

    private final Transactions db;

    public JdbcJournal(Transactions db) {
        this.db = db;
    }

    public static FenceEvent map(ResultSet rs) throws SQLException {
        return new FenceEvent(
                rs.getLong("seq"),
                rs.getLong("at"),
                EventKind.valueOf(rs.getString("kind")),
                rs.getString("resource_type"),
                rs.getString("resource_id"),
                rs.getString("actor_id"),
                rs.getString("process_identity"),
                JdbcTx.nullableLong(rs, "token"),
                JdbcTx.nullableLong(rs, "presented_token"),
                JdbcTx.nullableLong(rs, "current_token"),
                rs.getString("category"),
                rs.getString("detail"));
    }

    @Override
    public List<FenceEvent> since(long afterSeq, int limit) {
        return db.read(tx -> tx.query(
                "SELECT " + COLUMNS + " FROM fence_events WHERE seq > ? ORDER BY seq LIMIT ?",
                JdbcJournal::map,
                afterSeq,
                limit));
    }

    @Override
    public List<FenceEvent> rejections(int limit) {
        return db.read(tx -> tx.query(
                "SELECT " + COLUMNS + " FROM fence_events WHERE kind = 'REJECTED'" + " ORDER BY seq DESC LIMIT ?",
                JdbcJournal::map,
                limit));
    }

    @Override
    public List<FenceEvent> forResource(String resourceType, String resourceId) {
        return db.read(tx -> tx.query(
                "SELECT " + COLUMNS + " FROM fence_events WHERE resource_type = ?"
                        + " AND resource_id = ? ORDER BY seq",
                JdbcJournal::map,
                resourceType,
                resourceId));
    }

    @Override
    public long lastSeq() {
        return db.read(tx -> tx.scalarLong("SELECT coalesce(max(seq), 0) FROM fence_events"));
    }
}
