package dev.sovereign.engine.internal.jdbc;

import dev.sovereign.engine.admin.ConnectionSecurity;
import dev.sovereign.engine.admin.LedgerHistory;
import dev.sovereign.engine.admin.LedgerSummary;
import dev.sovereign.engine.base.LedgerLocation;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a {@link LedgerSummary} for both backends: counts only, no writes. The backend opens the read (SQLite's
 * read on the engine's connection; PostgreSQL's one {@code REPEATABLE READ} snapshot, so its counts agree) and
 * brings what it reads its own way ({@link Own}); the counts every ledger has are read here. Stateless.
 */
public final class JdbcLedgerSummary {
    static final List<String> ASSIGNMENT_STATES = List.of("CREATED", "RUNNING", "COMPLETED", "BLOCKED", "FAILED");
    static final List<String> MESSAGE_STATES = List.of("NEW", "CLAIMED", "DONE", "DEAD");

    /**
     * What a backend reads its own way, in the same read: where the ledger is and what protects the connection to
     * it (decision 0906), its schema version, the token counter ({@code -1} when it holds no whole number: never a
     * damaged counter shown as 0), its history, and where it was moved to (null: it was not).
     */
    public record Own(
            LedgerLocation location,
            ConnectionSecurity connection,
            int schemaVersion,
            long lastToken,
            LedgerHistory history,
            String movedTo) {}

    private JdbcLedgerSummary() {}

    /** The summary, read in {@code tx} with the backend's {@code own} values. */
    public static LedgerSummary read(JdbcTx tx, Own own) throws SQLException {
        return new LedgerSummary(
                own.location(),
                own.connection(),
                own.schemaVersion(),
                lastMigration(tx),
                own.lastToken(),
                tx.scalarLong("SELECT coalesce(max(seq), 0) FROM fence_events"),
                tx.scalarLong("SELECT count(*) FROM fence_events"),
                tx.scalarLong("SELECT count(*) FROM fence_events WHERE kind = 'REJECTED'"),
                tx.scalarLong("SELECT count(*) FROM actors"),
                tx.scalarLong("SELECT count(*) FROM execution_attempts WHERE state = 'ACTIVE'"),
                countByState(tx, "assignments", ASSIGNMENT_STATES),
                countByState(tx, "messages", MESSAGE_STATES),
                tx.now(),
                own.history(),
                own.movedTo());
    }

    private static LedgerSummary.LastMigration lastMigration(JdbcTx tx) throws SQLException {
        return tx.one(
                        "SELECT schema_version, sovereign_version, sovereign_commit, migrated_at FROM schema_migrations"
                                + " ORDER BY schema_version DESC LIMIT 1",
                        rs -> new LedgerSummary.LastMigration(
                                rs.getInt(1), rs.getString(2), rs.getString(3), rs.getLong(4)))
                .orElse(null);
    }

    private static Map<String, Long> countByState(JdbcTx tx, String table, List<String> states) throws SQLException {
        Map<String, Long> counts = new LinkedHashMap<>();
        states.forEach(s -> counts.put(s, 0L));
        // table is one of two constants above, never input.
        tx.query(
                "SELECT state, count(*) FROM " + table + " GROUP BY state",
                rs -> counts.put(rs.getString(1), rs.getLong(2)));
        return counts;
    }
}
