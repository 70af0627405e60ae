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
 * write inside their own transactions, as the backend's lease and run stores define them: those stores own their
 * rows (one column list, one mapping, one detach), and the shared stores borrow them through this door rather than
 * keep a second copy. Implementations are stateless.
 */
public interface StoreRows {
    /** The actor's lease row, effective times included ({@link LeaseSql#leaseColumns}); empty when there is none. */
    Optional<Lease> lease(JdbcTx tx, String actor) throws SQLException;

    /** Maps a row selected with {@link LeaseSql#leaseColumns}. */
    Lease mapLease(ResultSet rs) throws SQLException;

    /**
     * Detaches this process's attached lease row of {@code actor} at {@code token} from its session (decision 0509):
     * one compare-and-set freezing its effective renewal and expiry into the row. Whether a row was detached.
     */
    boolean detach(JdbcTx tx, String actor, long token) throws SQLException;

    /** The columns {@link #mapAttempt} reads from {@code execution_attempts}. */
    String attemptColumns();

    Attempt mapAttempt(ResultSet rs) throws SQLException;

    Optional<Attempt> attempt(JdbcTx tx, String id) throws SQLException;

    /** The columns {@link #mapAssignment} reads from {@code assignments}. */
    String assignmentColumns();

    Assignment mapAssignment(ResultSet rs) throws SQLException;

    Optional<Assignment> assignment(JdbcTx tx, String id) throws SQLException;

    /** Inserts the receipt of {@code attempt}, written by {@code process}, stamped with the transaction's time. */
    Receipt insertReceipt(JdbcTx tx, Attempt attempt, String process, Outcome status, String failureCategory,
                          boolean outcomeKnown, String summary) throws SQLException;
}
