package dev.sovereign.engine.reliability;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@link Ledger#read} for a PostgreSQL ledger: the same snapshot, read with plain JDBC in one REPEATABLE READ
 * transaction (every table as of one moment), after every worker stopped. The journal is in {@code seq} order.
 * On PostgreSQL {@code seq} is drawn when a row is inserted, not when it commits; every journalled write inserts
 * its row after it holds the row locks of what it changes (decisions 0900/0901), so two writes that conflict
 * are in {@code seq} order as they committed, which is the order the checker replays (decision 0908).
 */
final class PgLedgerReader {
    private PgLedgerReader() {}

    static Ledger read(String url) throws SQLException {
        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            c.setReadOnly(true);
            try {
                List<Ledger.Event> events = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT seq, at, kind, resource_type, resource_id, actor_id,"
                        + " process_identity, token, presented_token, current_token, category, detail"
                        + " FROM fence_events ORDER BY seq")) {
                    while (rs.next()) {
                        events.add(new Ledger.Event(
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
                List<Ledger.LeaseRow> leases = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT actor_id, process_identity, token, expires_at"
                        + " FROM actor_leases ORDER BY actor_id")) {
                    while (rs.next()) {
                        leases.add(new Ledger.LeaseRow(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getLong(4)));
                    }
                }
                List<Ledger.MessageRow> messages = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT id, recipient, state, claim_actor, claim_process,"
                        + " claim_token, claim_expires_at, retry_count, max_retries FROM messages"
                        + " ORDER BY created_at, sent_seq")) {
                    while (rs.next()) {
                        messages.add(new Ledger.MessageRow(
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
                List<Ledger.AssignmentRow> assignments = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT id, actor_id, state, current_attempt, retry_of,"
                        + " acknowledged_at FROM assignments ORDER BY created_at, id")) {
                    while (rs.next()) {
                        assignments.add(new Ledger.AssignmentRow(
                                rs.getString(1),
                                rs.getString(2),
                                rs.getString(3),
                                rs.getString(4),
                                rs.getString(5),
                                nullableLong(rs, 6)));
                    }
                }
                List<Ledger.AttemptRow> attempts = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT id, assignment_id, actor_id, process_identity, token,"
                        + " lease_token, state, expires_at FROM execution_attempts ORDER BY token")) {
                    while (rs.next()) {
                        attempts.add(new Ledger.AttemptRow(
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
                List<Ledger.ReceiptRow> receipts = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT id, assignment_id, attempt_id, attempt_token,"
                        + " process_identity, status, failure_category, outcome_known FROM receipts ORDER BY id")) {
                    while (rs.next()) {
                        receipts.add(new Ledger.ReceiptRow(
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
                try (ResultSet rs = s.executeQuery("SELECT max(last_token) FROM token_counter")) {
                    lastToken = rs.next() ? rs.getLong(1) : 0;
                }
                return new Ledger(
                        events, leases, messages, assignments, attempts, receipts, lastToken, Ledger.contention(s));
            } finally {
                c.rollback();
            }
        }
    }

    /**
     * Waits (reading the server, never sleeping a guessed time) until the server's clock has passed every expiry
     * in the ledger — leases, active attempts, claims — and returns that clock: the PostgreSQL counterpart of the
     * SQLite run's final supervisor "a day ahead", since on a server no client's clock decides expiry.
     */
    static long awaitEverythingExpired(String url, Duration timeout) throws SQLException {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement()) {
            while (true) {
                try (ResultSet rs = s.executeQuery("SELECT sovereign_now_ms(), GREATEST("
                        + " (SELECT max(expires_at) FROM actor_leases),"
                        + " (SELECT max(expires_at) FROM execution_attempts WHERE state = 'ACTIVE'),"
                        + " (SELECT max(claim_expires_at) FROM messages WHERE state = 'CLAIMED'))")) {
                    rs.next();
                    long now = rs.getLong(1);
                    long latest = rs.getLong(2);
                    if (rs.wasNull() || now > latest) {
                        return now;
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "the server's clock did not pass the ledger's last expiry within " + timeout);
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
        }
    }

    static String serverVersion(String url) {
        try (Connection c = DriverManager.getConnection(url)) {
            return c.getMetaData().getDatabaseProductVersion();
        } catch (SQLException e) {
            return "(version unknown: " + e.getMessage() + ")";
        }
    }

    private static Long nullableLong(ResultSet rs, int column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }
}
