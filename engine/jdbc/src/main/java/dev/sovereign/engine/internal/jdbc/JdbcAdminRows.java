package dev.sovereign.engine.internal.jdbc;

import static dev.sovereign.engine.admin.AdminReader.FINISHED_ROWS_SHOWN;
import static dev.sovereign.engine.admin.AdminReader.STOPPED_PROCESSES_SHOWN;

import dev.sovereign.engine.admin.AssignmentRow;
import dev.sovereign.engine.admin.AttemptRow;
import dev.sovereign.engine.admin.LedgerCounts;
import dev.sovereign.engine.admin.MessageRow;
import dev.sovereign.engine.admin.ProcessRef;
import dev.sovereign.engine.admin.ProcessRow;
import dev.sovereign.engine.admin.ReceiptRow;
import dev.sovereign.engine.admin.SupervisorTickRow;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.run.RunFolders;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The rows and true counts of one operators' snapshot other than the leases ({@link JdbcAdminLeases}), for both
 * backends: processes, assignments with their receipts, attempts, messages, the last supervisor tick, and the counts
 * the console's badges show. Each a query or two served by an index, with the same caps and orders on both (ids in
 * byte order: {@link Dialect#byteOrder}); called inside the snapshot's read transaction, on the reads its backend
 * hands over. Keeps one piece of state, the refusals counted per category so far; not thread-safe (its reader
 * serialises every use).
 */
public final class JdbcAdminRows {
    /** The holder columns {@link #ref} reads, of the process row aliased {@code p}. */
    private static final String HOLDER = "p.label AS p_label, p.pid AS p_pid, p.host AS p_host";

    /**
     * A run that needs an operator ({@link AssignmentRow#needsOperator(String, Long, String)}, the same rule): FAILED
     * or BLOCKED, nobody retried or acknowledged it, on an assignment aliased {@code s}. The two states narrow it
     * through {@code assignments_by_state}; the retry is a unique-index look-up.
     */
    static final String NEEDS_OPERATOR = "s.state IN ('FAILED', 'BLOCKED') AND s.acknowledged_at IS NULL"
            + " AND NOT EXISTS (SELECT 1 FROM assignments rt WHERE rt.retry_of = s.id)";

    /** Where the run folders are: the receipts' output folders are derived from it. */
    private final Path dataDirectory;
    /**
     * Refused writes per category up to {@link #categoriesCountedTo} (a journal seq): the journal only grows, so
     * each snapshot counts only the rejections after it, through the partial index {@code fence_events_rejections}.
     * Journal seqs are not in commit order on PostgreSQL (decision 0900): a total that disagrees after the
     * incremental count is counted again whole.
     */
    private final Map<String, Long> rejectionsByCategory = new TreeMap<>();

    private long categoriesCountedTo;

    public JdbcAdminRows(Path dataDirectory) {
        this.dataDirectory = dataDirectory;
    }

    /** The holder columns {@code p_label, p_pid, p_host} of a row as a {@link ProcessRef} for {@code identity}. */
    public static ProcessRef ref(ResultSet rs, String identity) throws SQLException {
        return new ProcessRef(
                identity, rs.getString("p_label"), JdbcTx.nullableLong(rs, "p_pid"), rs.getString("p_host"));
    }

    /** The processes shown; {@code leasesHeld} is 0 here and filled in by {@link JdbcAdminLeases#withLeaseCounts}. */
    public List<ProcessRow> processes(JdbcReads q) throws SQLException {
        String columns = "p.identity, " + HOLDER + ", p.kind, p.started_at, p.heartbeat_at, p.heartbeat_interval_ms,"
                + " p.stopped_at, (SELECT count(*) FROM execution_attempts x WHERE x.process_identity = p.identity"
                + "   AND x.state = 'ACTIVE') AS attempts,"
                // the last --process claim of this identity (decision 0802); fence_events_by_resource serves it
                + " (SELECT e.detail FROM fence_events e WHERE e.resource_type = 'process' AND e.resource_id = p.identity"
                + "   AND e.kind = 'PROCESS_STARTED' AND e.category = '" + IdentityClaim.CATEGORY + "'"
                + "   ORDER BY e.seq DESC LIMIT 1) AS claim";
        return q.query(
                "SELECT * FROM (SELECT " + columns + " FROM processes p WHERE p.stopped_at IS NULL"
                        + " UNION ALL SELECT * FROM (SELECT " + columns
                        + " FROM processes p WHERE p.stopped_at IS NOT NULL"
                        + " ORDER BY p.started_at DESC LIMIT ?) stopped) shown"
                        + " ORDER BY stopped_at IS NOT NULL, started_at DESC, "
                        + q.dialect().byteOrder("identity"),
                rs -> new ProcessRow(
                        ref(rs, rs.getString("identity")),
                        rs.getString("kind"),
                        rs.getLong("started_at"),
                        rs.getLong("heartbeat_at"),
                        rs.getLong("heartbeat_interval_ms"),
                        JdbcTx.nullableLong(rs, "stopped_at"),
                        0,
                        rs.getInt("attempts"),
                        rs.getString("claim")),
                STOPPED_PROCESSES_SHOWN);
    }

    public List<AssignmentRow> assignments(JdbcReads q) throws SQLException {
        Dialect d = q.dialect();
        return q.query(
                "SELECT s.id, s.actor_id, s.provider_spec, s.workspace_policy, s.state, s.current_attempt,"
                        + " x.token AS current_token, s.retry_of, (SELECT r2.id FROM assignments r2 WHERE r2.retry_of = s.id)"
                        + " AS retried_by, s.acknowledged_at, s.created_at, s.updated_at,"
                        + " (SELECT count(*) FROM execution_attempts a WHERE a.assignment_id = s.id) AS attempts,"
                        + " r.id AS r_id, r.attempt_id AS r_attempt, r.attempt_token AS r_token, r.process_identity AS r_process,"
                        + " r.status AS r_status, r.failure_category AS r_failure, r.outcome_known AS r_known,"
                        + " r.summary AS r_summary, r.created_at AS r_created,"
                        // fence_events_by_resource serves it, once per receipt shown
                        + " (r.id IS NOT NULL AND EXISTS (SELECT 1 FROM fence_events st WHERE st.resource_type = 'attempt'"
                        + "   AND st.resource_id = r.attempt_id AND st.kind = 'ATTEMPT_STOLEN')) AS r_stolen"
                        + " FROM assignments s LEFT JOIN execution_attempts x ON x.id = s.current_attempt"
                        + " LEFT JOIN receipts r ON r.assignment_id = s.id"
                        // the most recent page, plus every run waiting for an operator however old: never dropped
                        + " WHERE s.id IN (SELECT id FROM (SELECT id FROM assignments ORDER BY updated_at DESC, "
                        + d.byteOrder("id") + " LIMIT ?) recent UNION SELECT s2.id FROM assignments s2 WHERE "
                        + NEEDS_OPERATOR.replace("s.", "s2.") + ") ORDER BY s.updated_at DESC, " + d.byteOrder("s.id"),
                rs -> {
                    ReceiptRow receipt = null;
                    Long rid = JdbcTx.nullableLong(rs, "r_id");
                    if (rid != null) {
                        receipt = new ReceiptRow(
                                rid,
                                rs.getString("id"),
                                rs.getString("r_attempt"),
                                rs.getLong("r_token"),
                                rs.getString("r_process"),
                                rs.getString("r_status"),
                                rs.getString("r_failure"),
                                rs.getInt("r_known") == 1,
                                rs.getString("r_summary"),
                                rs.getLong("r_created"),
                                RunFolders.output(dataDirectory, rs.getString("id"), rs.getString("r_attempt")),
                                rs.getBoolean("r_stolen"));
                    }
                    return new AssignmentRow(
                            rs.getString("id"),
                            rs.getString("actor_id"),
                            rs.getString("provider_spec"),
                            rs.getString("workspace_policy"),
                            rs.getString("state"),
                            rs.getString("current_attempt"),
                            JdbcTx.nullableLong(rs, "current_token"),
                            rs.getString("retry_of"),
                            rs.getString("retried_by"),
                            JdbcTx.nullableLong(rs, "acknowledged_at"),
                            rs.getLong("created_at"),
                            rs.getLong("updated_at"),
                            rs.getInt("attempts"),
                            receipt);
                },
                FINISHED_ROWS_SHOWN);
    }

    /**
     * The true totals: index-only counts ({@code assignments_by_state}, {@code messages_inbox},
     * {@code fence_events_rejections}).
     */
    public LedgerCounts counts(JdbcReads q) throws SQLException {
        long[] a = new long[2];
        Map<String, Long> byState = new TreeMap<>();
        q.query("SELECT state, count(*) FROM assignments GROUP BY state", rs -> {
            byState.put(rs.getString(1), rs.getLong(2));
            a[0] += rs.getLong(2);
            if ("RUNNING".equals(rs.getString(1))) {
                a[1] = rs.getLong(2);
            }
            return null;
        });
        long needsOperator = q.scalarLong("SELECT count(*) FROM assignments s WHERE " + NEEDS_OPERATOR);
        long[] m = new long[4];
        q.query("SELECT state, count(*) FROM messages GROUP BY state", rs -> {
            int i = List.of("NEW", "CLAIMED", "DONE", "DEAD").indexOf(rs.getString(1));
            if (i >= 0) {
                m[i] = rs.getLong(2);
            }
            return null;
        });
        // the partial index fence_events_rejections: only REJECTED rows are visited
        long rejections = q.scalarLong("SELECT count(*) FROM fence_events WHERE kind = 'REJECTED'");
        countRejectionsByCategory(q, rejections);
        // and the refusals counted in a contention window beyond its journalled first (decision 0019), as the
        // metrics count them: one number for one fact
        long counted = q.scalarLong("SELECT coalesce(sum(refusals - 1), 0) FROM lease_contention");
        Map<String, Long> byCategory = new TreeMap<>(rejectionsByCategory);
        if (counted > 0) {
            byCategory.merge(RefusalCategory.ACTOR_LEASE_HELD.code(), counted, Long::sum);
        }
        // the windows of the last day whose process was refused again (by the window index), for the sentences
        Map<Long, LedgerCounts.Repeat> repeats = new HashMap<>();
        if (counted > 0) {
            q.query(
                    "SELECT first_seq, refusals, last_at FROM lease_contention WHERE window_start >="
                            + " (SELECT max(window_start) FROM lease_contention) - 86400000 AND refusals > 1"
                            + " ORDER BY window_start DESC LIMIT 1000",
                    rs -> repeats.put(rs.getLong(1), new LedgerCounts.Repeat(rs.getLong(2), rs.getLong(3))));
        }
        return new LedgerCounts(
                a[0], a[1], needsOperator, m[0], m[1], m[2], m[3], rejections + counted, byState, byCategory, repeats);
    }

    /**
     * Brings {@link #rejectionsByCategory} up to date: the new rejections only; counted again whole when the sum then
     * disagrees (a row committed late, or a journal a prune shrank, decision 0018).
     */
    private void countRejectionsByCategory(JdbcReads q, long total) throws SQLException {
        if (sum() == total) {
            return;
        }
        if (sum() < total) {
            addRejectionsAfter(q, categoriesCountedTo);
        }
        if (sum() != total) {
            rejectionsByCategory.clear();
            categoriesCountedTo = 0;
            addRejectionsAfter(q, 0);
        }
    }

    private long sum() {
        return rejectionsByCategory.values().stream().mapToLong(Long::longValue).sum();
    }

    private void addRejectionsAfter(JdbcReads q, long after) throws SQLException {
        q.query(
                "SELECT coalesce(category, 'unknown') AS c, count(*), max(seq) FROM fence_events"
                        + " WHERE kind = 'REJECTED' AND seq > ? GROUP BY c",
                rs -> {
                    rejectionsByCategory.merge(rs.getString(1), rs.getLong(2), Long::sum);
                    categoriesCountedTo = Math.max(categoriesCountedTo, rs.getLong(3));
                    return null;
                },
                after);
    }

    public List<AttemptRow> attempts(JdbcReads q) throws SQLException {
        return q.query(
                "SELECT x.id, x.assignment_id, x.actor_id, x.process_identity, " + HOLDER + ","
                        + " x.token, x.lease_token, x.state, x.ttl_ms, x.started_at, x.renewed_at, x.expires_at, x.ended_at,"
                        + " EXISTS (SELECT 1 FROM assignments s WHERE s.current_attempt = x.id) AS is_current"
                        + " FROM execution_attempts x LEFT JOIN processes p ON p.identity = x.process_identity"
                        + " ORDER BY x.started_at DESC, x.token DESC LIMIT ?",
                rs -> new AttemptRow(
                        rs.getString("id"),
                        rs.getString("assignment_id"),
                        rs.getString("actor_id"),
                        ref(rs, rs.getString("process_identity")),
                        rs.getLong("token"),
                        rs.getLong("lease_token"),
                        rs.getString("state"),
                        rs.getBoolean("is_current"),
                        rs.getLong("ttl_ms"),
                        rs.getLong("started_at"),
                        rs.getLong("renewed_at"),
                        rs.getLong("expires_at"),
                        JdbcTx.nullableLong(rs, "ended_at")),
                FINISHED_ROWS_SHOWN);
    }

    public List<MessageRow> messages(JdbcReads q) throws SQLException {
        String columns = "m.id, m.sender, m.recipient, m.subject, m.state, m.claim_actor, m.claim_process, " + HOLDER
                + ", m.claim_token, m.claim_expires_at, m.retry_count, m.max_retries, m.created_at, m.updated_at";
        String from = " FROM messages m LEFT JOIN processes p ON p.identity = m.claim_process";
        return q.query(
                "SELECT * FROM (SELECT " + columns + from + " WHERE m.state IN ('NEW', 'CLAIMED')"
                        + " UNION ALL SELECT * FROM (SELECT " + columns + from + " WHERE m.state IN ('DONE', 'DEAD')"
                        + " ORDER BY m.updated_at DESC LIMIT ?) finished) shown ORDER BY created_at DESC, "
                        + q.dialect().byteOrder("id"),
                rs -> {
                    String claimer = rs.getString("claim_process");
                    return new MessageRow(
                            rs.getString("id"),
                            rs.getString("sender"),
                            rs.getString("recipient"),
                            rs.getString("subject"),
                            rs.getString("state"),
                            rs.getString("claim_actor"),
                            claimer == null ? null : ref(rs, claimer),
                            JdbcTx.nullableLong(rs, "claim_token"),
                            JdbcTx.nullableLong(rs, "claim_expires_at"),
                            rs.getInt("retry_count"),
                            rs.getInt("max_retries"),
                            rs.getLong("created_at"),
                            rs.getLong("updated_at"));
                },
                FINISHED_ROWS_SHOWN);
    }

    public Optional<SupervisorTickRow> lastTick(JdbcReads q) throws SQLException {
        return q.one(
                "SELECT t.seq, t.at, t.process_identity, " + HOLDER + ", t.expired_leases, t.stale_processes,"
                        + " t.swept_claims, t.recovered, t.failures, t.report FROM supervisor_ticks t"
                        + " LEFT JOIN processes p ON p.identity = t.process_identity ORDER BY t.seq DESC LIMIT 1",
                rs -> new SupervisorTickRow(
                        rs.getLong("seq"),
                        rs.getLong("at"),
                        ref(rs, rs.getString("process_identity")),
                        rs.getInt("expired_leases"),
                        rs.getInt("stale_processes"),
                        rs.getInt("swept_claims"),
                        rs.getInt("recovered"),
                        rs.getInt("failures"),
                        rs.getString("report")));
    }
}
