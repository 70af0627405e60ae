package dev.sovereign.engine.internal.jdbc;

import dev.sovereign.engine.journal.EventKind;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * One transaction (or one auto-commit read) on a backend's connection, as every shared store sees it: statements
 * ({@link JdbcReads}, {@link #update}), the transaction's clock reading, the token and change counters, the journal.
 * Each backend implements it once (its statement handling, where {@link #now()} comes from, how the counters are
 * locked); the stores in this package are written against it only. Not thread-safe; lives only inside {@link Transactions#write} or {@link Transactions#read}.
 */
public interface JdbcTx extends JdbcReads {
    /** The transaction's one clock reading (SQLite: the engine's clock once the lock is held; PostgreSQL: the server's). */
    long now() throws SQLException;

    /** The identity of the process this engine writes as. */
    String processIdentity();

    int update(String sql, Object... args) throws SQLException;

    /**
     * Locks the token counter row that mints for {@code actor}'s resources (its lease, its assignments' attempts, the
     * claims of the messages sent to it) for the rest of this transaction, first in every transaction that may mint
     * (the order of decision 0900); {@code null}: every row, in order. A no-op where the whole transaction already
     * holds the database's one write lock (SQLite's {@code BEGIN IMMEDIATE}). PostgreSQL has one row per stripe of
     * actors (schema version 19, decision 0924), SQLite one row.
     */
    void lockTokenCounter(String actor) throws SQLException;

    /**
     * Locks the lease change counter row (second in the order), for transactions that write a lease; as above. A no-op
     * on PostgreSQL too since its schema version 18, where a lease write's marker is its own transaction's id.
     */
    void lockLeaseChanges() throws SQLException;

    /**
     * Mints the next fencing token for {@code actor}'s resources from the counter row that mints for them, in this
     * transaction: committed (or rolled back) with the compare-and-set it authorises. A token this engine already saw
     * committed means the ledger went backwards (decision 0605) and the transaction must not commit.
     */
    long mintToken(String actor) throws SQLException;

    /**
     * What to throw when a compare-and-set matched no row although the rows it depends on were locked and read in
     * this transaction ({@code row}, e.g. {@code "attempt att_1"}, changed under the lock). Under SQLite's one write
     * lock that cannot happen, so it is a bug; under PostgreSQL's row locks it is a race the lock order did not
     * exclude, and the backend runs the whole transaction again.
     */
    RuntimeException changedUnderLock(String row);

    /**
     * The change marker every lease write of this transaction carries (decision 0414): the lease change counter,
     * raised, on SQLite; on PostgreSQL the transaction's id, the same for each call (decision 0923).
     */
    default long nextLeaseChange() throws SQLException {
        return one(
                        "UPDATE lease_change_counter SET last_change = last_change + 1 WHERE id = 1 RETURNING last_change",
                        rs -> rs.getLong(1))
                .orElseThrow(() -> new IllegalStateException("the lease change counter row is missing"));
    }

    /**
     * The highest token the counter has issued, as a scalar subquery: the greatest of its rows (one on SQLite, one per
     * stripe on PostgreSQL since its schema version 19).
     */
    String LAST_TOKEN = "(SELECT max(last_token) FROM token_counter)";

    /** The highest token ever minted. */
    default long lastToken() throws SQLException {
        return scalarLong("SELECT " + LAST_TOKEN);
    }

    /** Appends one fence event in this transaction, stamped with {@link #now()}. */
    void journal(
            EventKind kind,
            String resourceType,
            String resourceId,
            String actorId,
            String process,
            Long token,
            Long presented,
            Long current,
            String category,
            String detail)
            throws SQLException;

    /** Shorthand for a grant-like event by this process. */
    default void journal(
            EventKind kind, String resourceType, String resourceId, String actorId, Long token, String detail)
            throws SQLException {
        journal(kind, resourceType, resourceId, actorId, processIdentity(), token, null, null, null, detail);
    }

    /** Reads a nullable whole-number column. */
    static Long nullableLong(ResultSet rs, String column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }
}
