package dev.sovereign.engine.internal.jdbc;

import dev.sovereign.engine.admin.LedgerMetrics;
import dev.sovereign.engine.admin.ReceiptRow;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.process.Staleness;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads {@link LedgerMetrics} for both backends, in the one read transaction the caller opened: counts only, no
 * writes. The journal is read once, grouped by kind and category; the other counts are small aggregates or index
 * look-ups. What the size on disk is differs by backend: a {@link Dialect} word. Stateless.
 */
public final class JdbcLedgerMetrics {
    /** The ledger's tables whose rows are counted (every backend has them). */
    static final List<String> TABLES = List.of(
            "actors",
            "actor_leases",
            "processes",
            "assignments",
            "execution_attempts",
            "receipts",
            "messages",
            "fence_events",
            "supervisor_ticks",
            "lease_contention",
            "ledger_history",
            "lease_tombstones");

    private static final long DAY_MS = 86_400_000L;

    private JdbcLedgerMetrics() {}

    /** In an engine's read transaction, at its clock reading ({@code Engine.metrics()}, {@code sovereign metrics}). */
    public static LedgerMetrics read(JdbcTx tx) throws SQLException {
        return read(tx, tx.now());
    }

    /**
     * On any reading connection, at {@code now} (the ledger's clock as the reader knows it): the console's reader
     * gives the same numbers through the same statements, so the console and {@code sovereign status} show one
     * number for one fact. The caller holds one read transaction around it, so the counts agree with one another.
     */
    public static LedgerMetrics read(JdbcReads tx, long now) throws SQLException {
        Dialect d = tx.dialect();
        long[] leases = new long[2];
        tx.query(
                "SELECT CASE WHEN " + LeaseSql.effective(d, "l.", "expires_at", "s.heartbeat_at")
                        + " > ? THEN 1 ELSE 0 END AS live, count(*) FROM actor_leases l " + LeaseSql.holderJoin("l.")
                        + " GROUP BY 1",
                rs -> leases[rs.getInt(1) == 1 ? 0 : 1] = rs.getLong(2),
                now);
        long[] grants = new long[2];
        Map<String, Long> refusals = new TreeMap<>();
        tx.query(
                "SELECT kind, category, count(*) FROM fence_events"
                        + " WHERE kind IN ('LEASE_ACQUIRED', 'LEASE_TAKEN_OVER', 'REJECTED') GROUP BY kind, category",
                rs -> {
                    String kind = rs.getString(1);
                    long n = rs.getLong(3);
                    if (kind.equals("REJECTED")) {
                        refusals.merge(rs.getString(2) == null ? "unknown" : rs.getString(2), n, Long::sum);
                    } else {
                        grants[0] += n;
                        if (kind.equals("LEASE_TAKEN_OVER")) {
                            grants[1] += n;
                        }
                    }
                    return null;
                });
        Map<String, Long> runs = new LinkedHashMap<>();
        JdbcLedgerSummary.ASSIGNMENT_STATES.forEach(s -> runs.put(s, 0L));
        tx.query(
                "SELECT state, count(*) FROM assignments GROUP BY state",
                rs -> runs.put(rs.getString(1), rs.getLong(2)));
        long workerLost = tx.scalarLong("SELECT count(*) FROM assignments s WHERE s.state = 'FAILED'"
                + " AND s.acknowledged_at IS NULL AND NOT EXISTS (SELECT 1 FROM assignments rt WHERE rt.retry_of ="
                + " s.id) AND EXISTS (SELECT 1 FROM receipts wl WHERE wl.assignment_id = s.id AND"
                + " wl.failure_category = '" + ReceiptRow.WORKER_LOST + "')");
        // the console's rule and clause (JdbcAdminRows.NEEDS_OPERATOR): one number for one fact
        long needsOperator = tx.scalarLong("SELECT count(*) FROM assignments s WHERE " + JdbcAdminRows.NEEDS_OPERATOR);
        long[] processes = new long[3]; // live, stale, without a heartbeat: the registry's one definition (Staleness)
        tx.query(
                "SELECT kind, started_at, heartbeat_at, heartbeat_interval_ms FROM processes WHERE stopped_at IS NULL",
                rs -> {
                    String kind = rs.getString(1);
                    long started = rs.getLong(2);
                    long beat = rs.getLong(3);
                    int which = !Staleness.promisedToBeat(kind, started, beat)
                            ? 2
                            : Staleness.isStale(kind, started, beat, rs.getLong(4), null, now) ? 1 : 0;
                    processes[which]++;
                    return null;
                });
        // refusals counted in their contention window beyond the first, which has its journal row (decision 0019)
        long counted = tx.scalarLong("SELECT coalesce(sum(refusals - 1), 0) FROM lease_contention");
        if (counted > 0) {
            refusals.merge(RefusalCategory.ACTOR_LEASE_HELD.code(), counted, Long::sum);
        }
        long stopped = tx.scalarLong("SELECT count(*) FROM processes WHERE stopped_at IS NOT NULL");
        Map<String, Long> rows = new LinkedHashMap<>();
        for (String table : TABLES) {
            rows.put(table, tx.scalarLong("SELECT count(*) FROM " + table)); // a constant above, never input
        }
        long oldest = tx.one("SELECT at FROM fence_events ORDER BY seq LIMIT 1", rs -> rs.getLong(1))
                .orElse(-1L);
        long lastDay = tx.scalarLong("SELECT count(*) FROM fence_events WHERE at > ?", now - DAY_MS);
        return new LedgerMetrics(
                now,
                leases[0],
                leases[1],
                grants[0],
                grants[1],
                refusals,
                runs,
                workerLost,
                needsOperator,
                processes[0],
                processes[1],
                processes[2],
                stopped,
                rows,
                tx.scalarLong(d.sizeBytes()),
                oldest,
                lastDay,
                JdbcRetention.read(tx));
    }
}
