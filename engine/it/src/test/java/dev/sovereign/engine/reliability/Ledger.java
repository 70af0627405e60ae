package dev.sovereign.engine.reliability;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A snapshot of the durable ledger, read with plain JDBC (test code, outside the engine) after every
 * process stopped: the fence journal in {@code seq} order and the rows of the tables the checker
 * holds the histories against. Tests build bad ledgers by hand from the same records.
 */
public record Ledger(
        List<Event> events,
        List<LeaseRow> leases,
        List<MessageRow> messages,
        List<AssignmentRow> assignments,
        List<AttemptRow> attempts,
        List<ReceiptRow> receipts,
        long lastToken,
        List<ContentionRow> contention) {

    /** A ledger with no contention windows (the tests' hand-made ones). */
    public Ledger(
            List<Event> events,
            List<LeaseRow> leases,
            List<MessageRow> messages,
            List<AssignmentRow> assignments,
            List<AttemptRow> attempts,
            List<ReceiptRow> receipts,
            long lastToken) {
        this(events, leases, messages, assignments, attempts, receipts, lastToken, List.of());
    }

    /** One {@code lease_contention} row: a process's refusals of an actor's live lease in one window (0019). */
    public record ContentionRow(String actor, String process, long windowStart, long refusals) {}

    /** The contention windows of {@code c}'s ledger (the same statement on SQLite and PostgreSQL). */
    static List<ContentionRow> contention(Statement s) throws SQLException {
        List<ContentionRow> out = new ArrayList<>();
        try (ResultSet rs = s.executeQuery("SELECT actor_id, process_identity, window_start, refusals"
                + " FROM lease_contention ORDER BY window_start, actor_id, process_identity")) {
            while (rs.next()) {
                out.add(new ContentionRow(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getLong(4)));
            }
        }
        return out;
    }

    /** One {@code fence_events} row. */
    public record Event(
            long seq,
            long at,
            String kind,
            String resourceType,
            String resourceId,
            String actor,
            String process,
            Long token,
            Long presented,
            Long current,
            String category,
            String detail) {}

    public record LeaseRow(String actor, String process, long token, long expiresAt) {}

    public record MessageRow(
            String id,
            String recipient,
            String state,
            String claimActor,
            String claimProcess,
            Long claimToken,
            Long claimExpiresAt,
            int retryCount,
            int maxRetries) {}

    public record AssignmentRow(
            String id, String actor, String state, String currentAttempt, String retryOf, Long acknowledgedAt) {}

    public record AttemptRow(
            String id,
            String assignment,
            String actor,
            String process,
            long token,
            long leaseToken,
            String state,
            long expiresAt) {}

    public record ReceiptRow(
            long id,
            String assignment,
            String attempt,
            long attemptToken,
            String process,
            String status,
            String failureCategory,
            boolean outcomeKnown) {}

    /** Reads the whole ledger in one read transaction, so the tables agree with each other. */
    public static Ledger read(Path database) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + database);
                Statement s = c.createStatement()) {
            s.execute("PRAGMA busy_timeout = 10000");
            c.setAutoCommit(false);
            try {
                List<Event> events = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT seq, at, kind, resource_type, resource_id, actor_id,"
                        + " process_identity, token, presented_token, current_token, category, detail"
                        + " FROM fence_events ORDER BY seq")) {
                    while (rs.next()) {
                        events.add(new Event(
                                rs.getLong(1),
                                rs.getLong(2),
                                rs.getString(3),
                                rs.getString(4),
                                rs.getString(5),
                                rs.getString(6),
                                rs.getString(7),
                                nullableLong(rs, 8),
                                nullableLong(rs, 9),
                                nullableLong(rs, 10),
                                rs.getString(11),
                                rs.getString(12)));
                    }
                }
                List<LeaseRow> leases = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT actor_id, process_identity, token, expires_at"
                        + " FROM actor_leases ORDER BY actor_id")) {
                    while (rs.next()) {
                        leases.add(new LeaseRow(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getLong(4)));
                    }
                }
                List<MessageRow> messages = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT id, recipient, state, claim_actor, claim_process,"
                        + " claim_token, claim_expires_at, retry_count, max_retries FROM messages ORDER BY rowid")) {
                    while (rs.next()) {
                        messages.add(new MessageRow(
                                rs.getString(1),
                                rs.getString(2),
                                rs.getString(3),
                                rs.getString(4),
                                rs.getString(5),
                                nullableLong(rs, 6),
                                nullableLong(rs, 7),
                                rs.getInt(8),
                                rs.getInt(9)));
                    }
                }
                List<AssignmentRow> assignments = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT id, actor_id, state, current_attempt, retry_of,"
                        + " acknowledged_at FROM assignments ORDER BY rowid")) {
                    while (rs.next()) {
                        assignments.add(new AssignmentRow(
                                rs.getString(1),
                                rs.getString(2),
                                rs.getString(3),
                                rs.getString(4),
                                rs.getString(5),
                                nullableLong(rs, 6)));
                    }
                }
                List<AttemptRow> attempts = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT id, assignment_id, actor_id, process_identity, token,"
                        + " lease_token, state, expires_at FROM execution_attempts ORDER BY token")) {
                    while (rs.next()) {
                        attempts.add(new AttemptRow(
                                rs.getString(1),
                                rs.getString(2),
                                rs.getString(3),
                                rs.getString(4),
                                rs.getLong(5),
                                rs.getLong(6),
                                rs.getString(7),
                                rs.getLong(8)));
                    }
                }
                List<ReceiptRow> receipts = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT id, assignment_id, attempt_id, attempt_token,"
                        + " process_identity, status, failure_category, outcome_known FROM receipts ORDER BY id")) {
                    while (rs.next()) {
                        receipts.add(new ReceiptRow(
                                rs.getLong(1),
                                rs.getString(2),
                                rs.getString(3),
                                rs.getLong(4),
                                rs.getString(5),
                                rs.getString(6),
                                rs.getString(7),
                                rs.getInt(8) == 1));
                    }
                }
                long lastToken;
                try (ResultSet rs = s.executeQuery("SELECT last_token FROM token_counter WHERE id = 1")) {
                    lastToken = rs.next() ? rs.getLong(1) : 0;
                }
                return new Ledger(events, leases, messages, assignments, attempts, receipts, lastToken, contention(s));
            } finally {
                c.rollback();
            }
        }
    }

    private static Long nullableLong(ResultSet rs, int column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }
}
