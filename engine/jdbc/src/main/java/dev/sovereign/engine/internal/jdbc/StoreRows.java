package dev.sovereign.engine.internal.jdbc;

import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.run.Receipt;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * The lease and run rows the heartbeat ({@link JdbcHeartbeat}) and the recovery ({@link JdbcRecovery}) read and
 * write inside their own transactions, as the lease and run stores define them: those stores own their rows (one
 * column list, one mapping, one detach), and the heartbeat and recovery borrow them through this door rather than
 * keep a second copy. The rows are {@link JdbcRuns}'s and {@link JdbcLeases}'s. Stateless.
 */
public interface StoreRows {
    /** The actor's lease row, effective times included ({@link LeaseSql#leaseColumns}); empty when there is none. */
    default Optional<Lease> lease(JdbcTx tx, String actor) throws SQLException {
        return JdbcLeases.currentIn(tx, actor);
    }

    /** Maps a row selected with {@link LeaseSql#leaseColumns}. */
    default Lease mapLease(ResultSet rs) throws SQLException {
        return JdbcLeases.mapLease(rs);
    }

    /**
     * Detaches this process's attached lease row of {@code actor} at {@code token} from its session (decision 0509):
     * one compare-and-set freezing its effective renewal and expiry into the row. Whether a row was detached.
     */
    default boolean detach(JdbcTx tx, String actor, long token) throws SQLException {
        return JdbcLeases.detachIn(tx, actor, token);
    }

    /** The columns {@link #mapAttempt} reads from {@code execution_attempts}. */
    default String attemptColumns() {
        return JdbcRuns.ATTEMPT_COLUMNS;
    }

    default Attempt mapAttempt(ResultSet rs) throws SQLException {
        return JdbcRuns.mapAttempt(rs);
    }

    default Optional<Attempt> attempt(JdbcTx tx, String id) throws SQLException {
        return JdbcRuns.attemptIn(tx, id);
    }

    /** The columns {@link #mapAssignment} reads from {@code assignments}. */
    default String assignmentColumns() {
        return JdbcRuns.ASSIGNMENT_COLUMNS;
    }

    default Assignment mapAssignment(ResultSet rs) throws SQLException {
        return JdbcRuns.mapAssignment(rs);
    }

    default Optional<Assignment> assignment(JdbcTx tx, String id) throws SQLException {
        return JdbcRuns.assignmentIn(tx, id);
    }

    /** Inserts the receipt of {@code attempt}, written by {@code process}, stamped with the transaction's time. */
    default Receipt insertReceipt(
            JdbcTx tx,
            Attempt attempt,
            String process,
            Outcome status,
            String failureCategory,
            boolean outcomeKnown,
            String summary)
            throws SQLException {
        return JdbcRuns.insertReceipt(tx, attempt, process, status, failureCategory, outcomeKnown, summary);
    }
}
