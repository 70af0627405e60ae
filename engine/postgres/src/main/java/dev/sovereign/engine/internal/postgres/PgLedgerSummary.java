package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.internal.jdbc.JdbcTx;
import dev.sovereign.engine.admin.LedgerSummary;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a {@link LedgerSummary}: counts only, no writes; its location is the server's URL (shown without its
 * secrets), its connection what protects this engine's session (decision 0906). Thread-safe.
 */
public final class PgLedgerSummary {
    static final List<String> ASSIGNMENT_STATES = List.of("CREATED", "RUNNING", "COMPLETED", "BLOCKED", "FAILED");
    static final List<String> MESSAGE_STATES = List.of("NEW", "CLAIMED", "DONE", "DEAD");

    private PgLedgerSummary() {
    }

    public static LedgerSummary read(PgDatabase db) {
        return db.snapshot(tx -> new LedgerSummary(
                db.location(),
                PgConnectionSecurity.of(tx, db.location()),
                (int) tx.scalarLong("SELECT coalesce(max(schema_version), 0) FROM schema_migrations"),
                lastMigration(tx),
                tx.lastToken(),
                tx.scalarLong("SELECT coalesce(max(seq), 0) FROM fence_events"),
                tx.scalarLong("SELECT count(*) FROM fence_events"),
                tx.scalarLong("SELECT count(*) FROM fence_events WHERE kind = 'REJECTED'"),
                tx.scalarLong("SELECT count(*) FROM actors"),
                tx.scalarLong("SELECT count(*) FROM execution_attempts WHERE state = 'ACTIVE'"),
                countByState(tx, "assignments", ASSIGNMENT_STATES),
                countByState(tx, "messages", MESSAGE_STATES),
                tx.now(),
                PgLedgerHistory.read(tx, String.valueOf(db.location())),
                null)); // a server ledger is never the source of a move (decision 0915)
    }

    private static LedgerSummary.LastMigration lastMigration(JdbcTx tx) throws SQLException {
        return tx.one("SELECT schema_version, sovereign_version, sovereign_commit, migrated_at FROM schema_migrations"
                + " ORDER BY schema_version DESC LIMIT 1", rs -> new LedgerSummary.LastMigration(
                        rs.getInt(1), rs.getString(2), rs.getString(3), rs.getLong(4))).orElse(null);
    }

    private static Map<String, Long> countByState(JdbcTx tx, String table, List<String> states) throws SQLException {
        Map<String, Long> counts = new LinkedHashMap<>();
        states.forEach(s -> counts.put(s, 0L));
        // table is one of two constants above, never input.
        tx.query("SELECT state, count(*) FROM " + table + " GROUP BY state",
                rs -> counts.put(rs.getString(1), rs.getLong(2)));
        return counts;
    }
}
