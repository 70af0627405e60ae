package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.internal.jdbc.JdbcTx;
import dev.sovereign.engine.admin.ConnectionSecurity;
import dev.sovereign.engine.admin.LedgerSummary;
import dev.sovereign.engine.base.LedgerLocation;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads a {@link LedgerSummary}: counts only, no writes. Thread-safe. */
public final class SqliteLedgerSummary {
    static final List<String> ASSIGNMENT_STATES = List.of("CREATED", "RUNNING", "COMPLETED", "BLOCKED", "FAILED");
    static final List<String> MESSAGE_STATES = List.of("NEW", "CLAIMED", "DONE", "DEAD");

    private SqliteLedgerSummary() {
    }

    public static LedgerSummary read(Database db) {
        return db.read(tx -> new LedgerSummary(
                LedgerLocation.file(db.file()),
                ConnectionSecurity.LOCAL_FILE,
                (int) tx.scalarLong("PRAGMA user_version"),
                lastMigration(tx),
                SqliteLedgerHistory.counter(tx::query) == null ? -1 : tx.lastToken(),
                tx.scalarLong("SELECT coalesce(max(seq), 0) FROM fence_events"),
                tx.scalarLong("SELECT count(*) FROM fence_events"),
                tx.scalarLong("SELECT count(*) FROM fence_events WHERE kind = 'REJECTED'"),
                tx.scalarLong("SELECT count(*) FROM actors"),
                tx.scalarLong("SELECT count(*) FROM execution_attempts WHERE state = 'ACTIVE'"),
                countByState(tx, "assignments", ASSIGNMENT_STATES),
                countByState(tx, "messages", MESSAGE_STATES),
                tx.now(),
                SqliteLedgerHistory.read(tx::query, db.file().toString()),
                tx.one("SELECT moved_to FROM ledger_retirement WHERE id = 1", rs -> rs.getString(1)).orElse(null)));
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
