package dev.sovereign.engine.internal.jdbc;

import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.process.ProcessInfo;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.rules.RunRules;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.run.AttemptState;
import dev.sovereign.engine.run.Receipt;
import dev.sovereign.engine.spi.RecoveryStore;
import dev.sovereign.engine.supervisor.TickRecord;
import dev.sovereign.engine.supervisor.TickReport;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The supervisor's reads and its recovery transactions, for both backends. Each recovery is ONE transaction whose
 * first write is the fenced update of the assignment; a lost race changes zero rows and writes nothing at all (no
 * orphan receipt). Where the backend locks rows it first locks the actor's lease (shared), the attempt and its
 * assignment in the order of decision 0900 ({@link Hooks#lockToSettle}). Every expiry is judged on the ledger's
 * clock ({@link JdbcTx#now()}: the engine's on SQLite, the server's on PostgreSQL). Never inserts assignments,
 * attempts, leases or messages. Thread-safe (the backend's door serialises this engine's access).
 */
public final class JdbcRecovery implements RecoveryStore {
    /** What a backend does differently around a recovery. */
    public interface Hooks {
        /**
         * Takes the row locks settling {@code attemptId} relies on and returns the attempt as read under them, or
         * {@code seen} (the attempt as read before, empty when there is none) where the transaction already holds
         * every lock it needs (SQLite's one write lock). PostgreSQL locks the actor's lease row FOR SHARE, then the
         * attempt and its assignment FOR UPDATE (decision 0900).
         */
        Optional<Attempt> lockToSettle(JdbcTx tx, String attemptId, Optional<Attempt> seen) throws SQLException;

        /** As {@link RecoveryStore#requireMayRecordTicks}: only a backend whose logins differ checks anything. */
        default void requireMayRecordTicks() {}
    }

    private final Transactions db;
    private final Hooks hooks;

    public JdbcRecovery(Transactions db, Hooks hooks) {
        this.db = db;
        this.hooks = hooks;
    }

    @Override
    public void requireMayRecordTicks() {
        hooks.requireMayRecordTicks();
    }

    /**
     * The ledger's clock, which decided every expiry this tick reports: a read's {@link JdbcTx#now()} — on SQLite the
     * engine's clock read then (each writer decides with its own), on PostgreSQL the server's (its Java clock may be
     * skewed; decision 0901).
     */
    @Override
    public long tickTime(Clock engineClock) {
        return db.read(JdbcTx::now);
    }

    // ---- step 1: read-only reports ----

    @Override
    public List<Lease> expiredLeases() {
        // Two worklists (decision 0509): a row not attached to a session expires by its own expires_at (the
        // partial index actor_leases_by_expiry holds only those); an attached one once its holder's last beat
        // plus its TTL has passed too, found from the sessions (one look-up per process in actor_leases_by_process).
        return db.read(tx -> {
            Dialect d = tx.dialect();
            return tx.query(
                    "SELECT * FROM (SELECT " + LeaseSql.leaseColumns(d, "actor_leases.") + " FROM actor_leases"
                            + " WHERE " + d.isFalse("attached") + " AND expires_at <= ?"
                            + " UNION ALL SELECT " + LeaseSql.leaseColumns(d, "l.") + " FROM processes p"
                            + " JOIN actor_leases l ON l.process_identity = p.identity AND " + d.isTrue("l.attached")
                            + " WHERE p.heartbeat_at + l.ttl_ms <= ? AND l.expires_at <= ?) AS expired"
                            + " ORDER BY expires_at, actor_id",
                    JdbcLeases::mapLease,
                    tx.now(),
                    tx.now(),
                    tx.now());
        });
    }

    @Override
    public List<ProcessInfo> staleProcesses() {
        return db.read(tx -> tx.query(
                "SELECT " + JdbcProcesses.COLUMNS + " FROM processes"
                        + " WHERE stopped_at IS NULL AND heartbeat_at < ? - heartbeat_interval_ms * ?"
                        + " ORDER BY heartbeat_at",
                JdbcProcesses::map,
                tx.now(),
                EngineConfig.STALE_AFTER_MISSED_BEATS));
    }

    // ---- step 3: recover abandoned attempts ----

    /** The worklist: ACTIVE attempts whose expiry has passed (index {@code attempts_active_by_expiry}). */
    @Override
    public List<Attempt> expiredActiveAttempts() {
        return db.read(tx -> tx.query(
                "SELECT " + JdbcRuns.ATTEMPT_COLUMNS + " FROM execution_attempts"
                        + " WHERE state = 'ACTIVE' AND expires_at <= ? ORDER BY expires_at",
                JdbcRuns::mapAttempt,
                tx.now()));
    }

    /**
     * Settles one expired attempt in ONE transaction, re-deciding everything inside it:
     * <ul>
     *   <li>still its assignment's current attempt → recover: fenced {@code UPDATE} to FAILED on
     *       (id, RUNNING, current_attempt = it, it ACTIVE and expired) first, then the receipt, the
     *       attempt RECOVERED and the event;</li>
     *   <li>its assignment is RUNNING with no pointer (the fence was stolen) and no attempt of it is
     *       live → the same recovery, fenced on {@code current_attempt IS NULL} and on the expiry;</li>
     *   <li>otherwise it is no longer current → SUPERSEDED if another attempt is current, else LOST.</li>
     * </ul>
     */
    @Override
    public Settlement settle(String attemptId) {
        return db.write(tx -> {
            Optional<Attempt> found = hooks.lockToSettle(tx, attemptId, JdbcRuns.attemptIn(tx, attemptId));
            // read after the locks: on a server, the clock that judges the expiry is read once they are held
            long now = tx.now();
            if (found.isEmpty()
                    || found.get().state() != AttemptState.ACTIVE
                    || !found.get().isExpiredAt(now)) {
                return new Untouched("attempt " + attemptId + " is no longer an expired ACTIVE attempt");
            }
            Attempt attempt = found.get();
            Assignment a = JdbcRuns.assignmentIn(tx, attempt.assignmentId())
                    .orElseThrow(() -> RunRules.missing(attempt.assignmentId()));
            if (attempt.id().equals(a.currentAttempt())) {
                return recover(tx, attempt, false);
            }
            if (a.state() == AssignmentState.RUNNING && a.currentAttempt() == null) {
                return recover(tx, attempt, true);
            }
            AttemptState to = a.currentAttempt() != null ? AttemptState.SUPERSEDED : AttemptState.LOST;
            int n = tx.update(
                    "UPDATE execution_attempts SET state = ?, ended_at = ? WHERE id = ? AND state = 'ACTIVE'"
                            + " AND expires_at <= ? AND id IS DISTINCT FROM (SELECT current_attempt FROM assignments WHERE id = ?)",
                    to.name(),
                    now,
                    attempt.id(),
                    now,
                    attempt.assignmentId());
            if (n == 0) {
                return new Untouched("attempt " + attemptId + " changed meanwhile");
            }
            tx.journal(
                    EventKind.ATTEMPT_SUPERSEDED,
                    "attempt",
                    attempt.id(),
                    attempt.actorId(),
                    tx.processIdentity(),
                    attempt.token(),
                    null,
                    null,
                    null,
                    "expired at " + Instant.ofEpochMilli(attempt.expiresAt())
                            + " while no longer the current attempt of assignment " + a.id() + " (" + a.state()
                            + "); retired as " + to + " by the supervisor, without a receipt");
            return new Retired(attempt, to);
        });
    }

    private Settlement recover(JdbcTx tx, Attempt attempt, boolean stolen) throws SQLException {
        long now = tx.now();
        String fence = stolen
                ? " AND current_attempt IS NULL AND NOT EXISTS (SELECT 1 FROM execution_attempts live"
                        + " WHERE live.assignment_id = assignments.id AND live.state = 'ACTIVE' AND live.expires_at > ?)"
                : " AND current_attempt = ?";
        Object fenceArg = stolen ? now : attempt.id();
        // The fenced write comes FIRST: zero rows means another supervisor (or a takeover) won, and
        // this transaction then writes nothing at all.
        Optional<Assignment> failed = tx.one(
                "UPDATE assignments SET state = 'FAILED', current_attempt = NULL,"
                        + " updated_at = ?, ended_by_attempt = ?, ended_via = 'recovery'"
                        + " WHERE id = ? AND state = 'RUNNING'" + fence
                        + " AND EXISTS (SELECT 1 FROM execution_attempts e WHERE e.id = ? AND e.assignment_id = assignments.id"
                        + " AND e.state = 'ACTIVE' AND e.expires_at <= ?)"
                        + " RETURNING " + JdbcRuns.ASSIGNMENT_COLUMNS,
                JdbcRuns::mapAssignment,
                now,
                attempt.id(),
                attempt.assignmentId(),
                fenceArg,
                attempt.id(),
                now);
        if (failed.isEmpty()) {
            return new Untouched("assignment " + attempt.assignmentId() + " was settled by someone else");
        }
        String summary = "worker lost: attempt " + attempt.id() + " (token " + attempt.token() + ") of "
                + attempt.processIdentity() + " expired at " + Instant.ofEpochMilli(attempt.expiresAt())
                + (stolen ? " after its fence was stolen" : "") + "; recovered by supervisor " + tx.processIdentity()
                + "; what the attempt did is unknown";
        // The receipt names its writer, the supervisor; the lost attempt (attempt_id, attempt_token) and its
        // process (the attempt row, and the summary) are named beside it (docs/decisions/0111).
        Receipt receipt = JdbcRuns.insertReceipt(
                tx, attempt, tx.processIdentity(), Outcome.FAILED, Receipt.WORKER_LOST, false, summary);
        int n = tx.update(
                "UPDATE execution_attempts SET state = 'RECOVERED', ended_at = ? WHERE id = ?"
                        + " AND state = 'ACTIVE'",
                now,
                attempt.id());
        if (n != 1) {
            throw tx.changedUnderLock("attempt " + attempt.id());
        }
        tx.journal(
                EventKind.ATTEMPT_RECOVERED,
                "attempt",
                attempt.id(),
                attempt.actorId(),
                tx.processIdentity(),
                attempt.token(),
                null,
                null,
                null,
                "assignment " + attempt.assignmentId()
                        + " → FAILED (worker_lost); receipt " + receipt.id() + "; lost process "
                        + attempt.processIdentity() + (stolen ? "; its fence had been stolen" : ""));
        return new Recovered(failed.get(), attempt, receipt, stolen);
    }

    // ---- the tick's own record ----

    @Override
    public long recordTick(TickReport report, String reportJson) {
        return db.write(tx -> tx.scalarLong(
                "INSERT INTO supervisor_ticks (at, process_identity, expired_leases,"
                        + " stale_processes, swept_claims, recovered, failures, report) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                        + " RETURNING seq",
                report.at(),
                report.processIdentity(),
                report.expiredLeases().size(),
                report.staleProcesses().size(),
                report.sweptClaims().size(),
                report.recovered().size(),
                report.failures().size(),
                reportJson));
    }

    @Override
    public Optional<TickRecord> lastTick() {
        return db.read(tx -> tx.one(
                "SELECT seq, at, process_identity, expired_leases, stale_processes, swept_claims,"
                        + " recovered, failures, report FROM supervisor_ticks ORDER BY seq DESC LIMIT 1",
                rs -> new TickRecord(
                        rs.getLong("seq"),
                        rs.getLong("at"),
                        rs.getString("process_identity"),
                        rs.getInt("expired_leases"),
                        rs.getInt("stale_processes"),
                        rs.getInt("swept_claims"),
                        rs.getInt("recovered"),
                        rs.getInt("failures"),
                        rs.getString("report"))));
    }
}
