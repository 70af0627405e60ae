package dev.sovereign.engine.internal.sqlite;

import dev.sovereign.engine.internal.jdbc.IdentityClaim;
import dev.sovereign.engine.internal.jdbc.JdbcTx;
import static dev.sovereign.engine.admin.AdminReader.FINISHED_ROWS_SHOWN;
import static dev.sovereign.engine.admin.AdminReader.STOPPED_PROCESSES_SHOWN;

import dev.sovereign.engine.admin.AssignmentRow;
import dev.sovereign.engine.admin.AttemptRow;
import dev.sovereign.engine.admin.LedgerCounts;
import dev.sovereign.engine.admin.MessageRow;
import dev.sovereign.engine.admin.ProcessRow;
import dev.sovereign.engine.admin.ReceiptRow;
import dev.sovereign.engine.admin.SupervisorTickRow;
import dev.sovereign.engine.run.RunFolders;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Optional;

/**
 * The rows and true counts of one operators' snapshot other than the leases ({@link AdminLeases}): processes,
 * assignments with their receipts, attempts, messages, the last supervisor tick, and the counts the console's
 * badges show. Each a query or two served by an index; called inside the snapshot's read transaction.
 * Keeps one piece of state, the refusals counted per category so far; not thread-safe (its
 * {@link SqliteAdminReader} serialises every use).
 */
final class AdminRows {
    private final ReadConnection db;
    /** Where the run folders are: the receipts' output folders are derived from it. */
    private final Path dataDirectory;
    /**
     * Refused writes per category up to {@link #categoriesCountedTo} (a journal seq): the journal only
     * grows, so each snapshot counts only the rejections after it, through the partial index
     * {@code fence_events_rejections}. Recounted whole if the total ever disagrees.
     */
    private final Map<String, Long> rejectionsByCategory = new TreeMap<>();
    private long categoriesCountedTo;

    AdminRows(ReadConnection db, Path dataDirectory) {
        this.db = db;
        this.dataDirectory = dataDirectory;
    }

    /** The processes shown; {@code leasesHeld} is 0 here and filled in by {@link #withLeaseCounts}. */
    List<ProcessRow> processes() throws SQLException {
        String columns = "p.identity, p.label AS p_label, p.pid AS p_pid, p.host AS p_host, p.kind, p.started_at,"
                + " p.heartbeat_at, p.heartbeat_interval_ms, p.stopped_at,"
                + " (SELECT count(*) FROM execution_attempts x WHERE x.process_identity = p.identity"
                + "   AND x.state = 'ACTIVE') AS attempts,"
                // the last --process claim of this identity (decision 0802); fence_events_by_resource serves it
                + " (SELECT e.detail FROM fence_events e WHERE e.resource_type = 'process' AND e.resource_id = p.identity"
                + "   AND e.kind = 'PROCESS_STARTED' AND e.category = '" + IdentityClaim.CATEGORY + "'"
                + "   ORDER BY e.seq DESC LIMIT 1) AS claim";
        return db.query("SELECT * FROM (SELECT " + columns + " FROM processes p WHERE p.stopped_at IS NULL"
                + " UNION ALL SELECT * FROM (SELECT " + columns + " FROM processes p WHERE p.stopped_at IS NOT NULL"
                + " ORDER BY p.started_at DESC LIMIT ?)) ORDER BY stopped_at IS NOT NULL, started_at DESC",
                rs -> new ProcessRow(ReadConnection.ref(rs, rs.getString("identity")),
                        rs.getString("kind"), rs.getLong("started_at"), rs.getLong("heartbeat_at"),
                        rs.getLong("heartbeat_interval_ms"), JdbcTx.nullableLong(rs, "stopped_at"), 0,
                        rs.getInt("attempts"), rs.getString("claim")), STOPPED_PROCESSES_SHOWN);
    }

    List<AssignmentRow> assignments() throws SQLException {
        return db.query("SELECT s.id, s.actor_id, s.provider_spec, s.workspace_policy, s.state, s.current_attempt,"
                + " x.token AS current_token, s.retry_of, (SELECT r2.id FROM assignments r2 WHERE r2.retry_of = s.id)"
                + " AS retried_by, s.acknowledged_at, s.created_at, s.updated_at,"
                + " (SELECT count(*) FROM execution_attempts a WHERE a.assignment_id = s.id) AS attempts,"
                + " r.id AS r_id, r.attempt_id AS r_attempt, r.attempt_token AS r_token, r.process_identity AS r_process,"
                + " r.status AS r_status, r.failure_category AS r_failure, r.outcome_known AS r_known,"
                + " r.summary AS r_summary, r.created_at AS r_created,"
                // fence_events_by_resource serves it, once per receipt shown
                + " CASE WHEN r.id IS NULL THEN 0 ELSE EXISTS (SELECT 1 FROM fence_events st"
                + "   WHERE st.resource_type = 'attempt' AND st.resource_id = r.attempt_id"
                + "   AND st.kind = 'ATTEMPT_STOLEN') END AS r_stolen"
                + " FROM assignments s LEFT JOIN execution_attempts x ON x.id = s.current_attempt"
                + " LEFT JOIN receipts r ON r.assignment_id = s.id"
                // the most recent page, plus every run waiting for an operator however old: never dropped
                + " WHERE s.id IN (SELECT id FROM (SELECT id FROM assignments ORDER BY updated_at DESC, id LIMIT ?)"
                + "   UNION SELECT s2.id FROM assignments s2 WHERE " + NEEDS_OPERATOR.replace("s.", "s2.") + ")"
                + " ORDER BY s.updated_at DESC, s.id", rs -> {
                    ReceiptRow receipt = null;
                    Long rid = JdbcTx.nullableLong(rs, "r_id");
                    if (rid != null) {
                        receipt = new ReceiptRow(rid, rs.getString("id"), rs.getString("r_attempt"),
                                rs.getLong("r_token"), rs.getString("r_process"), rs.getString("r_status"),
                                rs.getString("r_failure"), rs.getInt("r_known") == 1, rs.getString("r_summary"),
                                rs.getLong("r_created"), RunFolders.output(dataDirectory, rs.getString("id"),
                                        rs.getString("r_attempt")), rs.getInt("r_stolen") == 1);
                    }
                    return new AssignmentRow(rs.getString("id"), rs.getString("actor_id"), rs.getString("provider_spec"),
                            rs.getString("workspace_policy"), rs.getString("state"), rs.getString("current_attempt"),
                            JdbcTx.nullableLong(rs, "current_token"), rs.getString("retry_of"), rs.getString("retried_by"),
                            JdbcTx.nullableLong(rs, "acknowledged_at"), rs.getLong("created_at"), rs.getLong("updated_at"),
                            rs.getInt("attempts"), receipt);
                }, FINISHED_ROWS_SHOWN);
    }

    /**
     * A worker-lost failure nobody retried or acknowledged, on an assignment aliased {@code s}: FAILED
     * narrows it through {@code assignments_by_state}; the receipt and the retry are unique-index look-ups.
     */
    private static final String NEEDS_OPERATOR = "s.state = 'FAILED' AND s.acknowledged_at IS NULL"
            + " AND NOT EXISTS (SELECT 1 FROM assignments rt WHERE rt.retry_of = s.id)"
            + " AND EXISTS (SELECT 1 FROM receipts wl WHERE wl.assignment_id = s.id"
            + " AND wl.failure_category = '" + ReceiptRow.WORKER_LOST + "')";

    /**
     * The true totals: index-only counts ({@code assignments_by_state}, {@code messages_inbox},
     * {@code fence_events_rejections}).
     */
    LedgerCounts counts() throws SQLException {
        long assignments = 0;
        long running = 0;
        Map<String, Long> byState = new TreeMap<>();
        for (Object[] row : db.query("SELECT state, count(*) AS n FROM assignments GROUP BY state",
                rs -> new Object[] {rs.getString("state"), rs.getLong("n")})) {
            assignments += (Long) row[1];
            byState.put((String) row[0], (Long) row[1]);
            if ("RUNNING".equals(row[0])) {
                running = (Long) row[1];
            }
        }
        long needsOperator = db.scalar("SELECT count(*) FROM assignments s WHERE " + NEEDS_OPERATOR);
        long[] m = new long[4];
        for (Object[] row : db.query("SELECT state, count(*) AS n FROM messages GROUP BY state",
                rs -> new Object[] {rs.getString("state"), rs.getLong("n")})) {
            int i = List.of("NEW", "CLAIMED", "DONE", "DEAD").indexOf((String) row[0]);
            if (i >= 0) {
                m[i] = (Long) row[1];
            }
        }
        // the partial index fence_events_rejections: only REJECTED rows are visited
        long rejections = db.scalar("SELECT count(*) FROM fence_events WHERE kind = 'REJECTED'");
        countRejectionsByCategory(rejections);
        return new LedgerCounts(assignments, running, needsOperator, m[0], m[1], m[2], m[3], rejections, byState,
                rejectionsByCategory);
    }

    /** Brings {@link #rejectionsByCategory} up to date: the new rejections only, or all if the total disagrees. */
    private void countRejectionsByCategory(long total) throws SQLException {
        long counted = rejectionsByCategory.values().stream().mapToLong(Long::longValue).sum();
        if (counted == total) {
            return;
        }
        if (counted > total) { // never expected (the journal only grows): start again
            rejectionsByCategory.clear();
            categoriesCountedTo = 0;
        }
        long after = categoriesCountedTo;
        long last = after;
        for (Object[] row : db.query("SELECT coalesce(category, 'unknown') AS c, count(*) AS n, max(seq) AS last"
                        + " FROM fence_events WHERE kind = 'REJECTED' AND seq > ? GROUP BY c",
                rs -> new Object[] {rs.getString("c"), rs.getLong("n"), rs.getLong("last")}, after)) {
            rejectionsByCategory.merge((String) row[0], (Long) row[1], Long::sum);
            last = Math.max(last, (Long) row[2]);
        }
        categoriesCountedTo = last;
    }

    List<AttemptRow> attempts() throws SQLException {
        return db.query("SELECT x.id, x.assignment_id, x.actor_id, x.process_identity, p.label AS p_label,"
                + " p.pid AS p_pid, p.host AS p_host, x.token, x.lease_token, x.state, x.ttl_ms, x.started_at,"
                + " x.renewed_at, x.expires_at, x.ended_at,"
                + " EXISTS (SELECT 1 FROM assignments s WHERE s.current_attempt = x.id) AS is_current"
                + " FROM execution_attempts x LEFT JOIN processes p ON p.identity = x.process_identity"
                + " ORDER BY x.started_at DESC, x.token DESC LIMIT ?",
                rs -> new AttemptRow(rs.getString("id"), rs.getString("assignment_id"), rs.getString("actor_id"),
                        ReadConnection.ref(rs, rs.getString("process_identity")), rs.getLong("token"), rs.getLong("lease_token"),
                        rs.getString("state"), rs.getInt("is_current") == 1, rs.getLong("ttl_ms"),
                        rs.getLong("started_at"), rs.getLong("renewed_at"), rs.getLong("expires_at"),
                        JdbcTx.nullableLong(rs, "ended_at")), FINISHED_ROWS_SHOWN);
    }

    List<MessageRow> messages() throws SQLException {
        String columns = "m.id, m.sender, m.recipient, m.subject, m.state, m.claim_actor, m.claim_process,"
                + " p.label AS p_label, p.pid AS p_pid, p.host AS p_host, m.claim_token, m.claim_expires_at,"
                + " m.retry_count, m.max_retries, m.created_at, m.updated_at";
        return db.query("SELECT * FROM (SELECT " + columns + " FROM messages m"
                + " LEFT JOIN processes p ON p.identity = m.claim_process WHERE m.state IN ('NEW', 'CLAIMED')"
                + " UNION ALL SELECT * FROM (SELECT " + columns + " FROM messages m"
                + " LEFT JOIN processes p ON p.identity = m.claim_process WHERE m.state IN ('DONE', 'DEAD')"
                + " ORDER BY m.updated_at DESC LIMIT ?)) ORDER BY created_at DESC, id", rs -> {
                    String claimer = rs.getString("claim_process");
                    return new MessageRow(rs.getString("id"), rs.getString("sender"), rs.getString("recipient"),
                            rs.getString("subject"), rs.getString("state"), rs.getString("claim_actor"),
                            claimer == null ? null : ReadConnection.ref(rs, claimer), JdbcTx.nullableLong(rs, "claim_token"),
                            JdbcTx.nullableLong(rs, "claim_expires_at"), rs.getInt("retry_count"), rs.getInt("max_retries"),
                            rs.getLong("created_at"), rs.getLong("updated_at"));
                }, FINISHED_ROWS_SHOWN);
    }

    Optional<SupervisorTickRow> lastTick() throws SQLException {
        List<SupervisorTickRow> rows = db.query("SELECT t.seq, t.at, t.process_identity, p.label AS p_label,"
                + " p.pid AS p_pid, p.host AS p_host, t.expired_leases, t.stale_processes, t.swept_claims,"
                + " t.recovered, t.failures, t.report FROM supervisor_ticks t"
                + " LEFT JOIN processes p ON p.identity = t.process_identity ORDER BY t.seq DESC LIMIT 1",
                rs -> new SupervisorTickRow(rs.getLong("seq"), rs.getLong("at"), ReadConnection.ref(rs, rs.getString("process_identity")),
                        rs.getInt("expired_leases"), rs.getInt("stale_processes"), rs.getInt("swept_claims"),
                        rs.getInt("recovered"), rs.getInt("failures"), rs.getString("report")));
        return rows.stream().findFirst();
    }
}
