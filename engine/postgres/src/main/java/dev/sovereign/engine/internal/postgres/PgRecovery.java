package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.internal.jdbc.JdbcLeases;
import dev.sovereign.engine.internal.jdbc.LeaseSql;
import dev.sovereign.engine.internal.jdbc.JdbcTx;
import dev.sovereign.engine.internal.jdbc.JdbcProcesses;
import dev.sovereign.engine.spi.RecoveryStore;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.process.ProcessInfo;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.run.AttemptState;
import dev.sovereign.engine.run.Receipt;
import dev.sovereign.engine.supervisor.TickRecord;
import dev.sovereign.engine.supervisor.TickReport;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The supervisor's reads and its recovery transactions (PostgreSQL). Each recovery is ONE transaction that
 * locks the actor's lease (shared), the attempt and its assignment in the order of decision 0900, and whose
 * first write is the fenced update of the assignment; a lost race changes zero rows and writes nothing at
 * all (no orphan receipt). Every expiry is judged on the server's clock. Never inserts assignments,
 * attempts, leases or messages. Thread-safe.
 */
public final class PgRecovery implements RecoveryStore {
    private final PgDatabase db;

    public PgRecovery(PgDatabase db) {
        this.db = db;
    }

    /**
     * A tick ends by recording its report in {@code supervisor_ticks}, which only the operator role may INSERT
     * (decision 0902). A login without that privilege (a worker host's) is refused here, before the tick swept
     * or recovered anything, instead of recovering runs and then failing at the end (decision 0316).
     */
    @Override
    public void requireMayRecordTicks() {
        String[] who = db.read(tx -> tx.one("SELECT current_user::text, has_table_privilege('supervisor_ticks',"
                + " 'INSERT')::text, 'sovereign_' || current_database() || CASE WHEN current_schema() = 'public'"
                + " THEN '' ELSE '_' || current_schema() END || '_operator'",
                rs -> new String[] {rs.getString(1), rs.getString(2), rs.getString(3)}).orElseThrow());
        if (!"true".equals(who[1])) {
            throw new StorageException(StorageException.Problem.READ_ONLY, null, "The PostgreSQL login " + who[0]
                    + " may not run the supervisor on the ledger " + db.location() + ": a tick records its report in"
                    + " supervisor_ticks, which only the operator role may write, so nothing was swept or recovered;"
                    + " run it as a login that is a member of " + who[2] + ".", null);
        }
    }

    // ---- step 1: read-only reports ----

    @Override
    public List<Lease> expiredLeases() {
        // Two worklists (decision 0509): a row not attached to a session expires by its own expires_at (the
        // partial index actor_leases_by_expiry holds only those); an attached one once its holder's last beat
        // plus its TTL has passed too, found from the sessions (one look-up per process in actor_leases_by_process).
        return db.read(tx -> tx.query("SELECT * FROM (SELECT " + JdbcLeases.columns(tx.dialect()) + " FROM actor_leases"
                + " WHERE NOT attached AND expires_at <= ?"
                + " UNION ALL SELECT " + LeaseSql.leaseColumns(tx.dialect(), "l.") + " FROM processes p"
                + " JOIN actor_leases l ON l.process_identity = p.identity AND l.attached"
                + " WHERE p.heartbeat_at + l.ttl_ms <= ? AND l.expires_at <= ?) AS expired ORDER BY expires_at, actor_id",
                JdbcLeases::mapLease, tx.now(), tx.now(), tx.now()));
    }

    @Override
    public List<ProcessInfo> staleProcesses() {
        return db.read(tx -> tx.query("SELECT " + JdbcProcesses.COLUMNS + " FROM processes"
                        + " WHERE stopped_at IS NULL AND heartbeat_at < ? - heartbeat_interval_ms * ?"
                        + " ORDER BY heartbeat_at", JdbcProcesses::map, tx.now(),
                EngineConfig.STALE_AFTER_MISSED_BEATS));
    }

    // ---- step 3: recover abandoned attempts ----

    /** The worklist: ACTIVE attempts whose expiry has passed (index {@code attempts_active_by_expiry}). */
    @Override
    public List<Attempt> expiredActiveAttempts() {
        return db.read(tx -> tx.query("SELECT " + PgRuns.ATTEMPT_COLUMNS + " FROM execution_attempts"
                + " WHERE state = 'ACTIVE' AND expires_at <= ? ORDER BY expires_at", PgRuns::mapAttempt, tx.now()));
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
            Optional<Attempt> seen = PgRuns.attemptIn(tx, attemptId);
            if (seen.isPresent()) {
                JdbcLeases.sharedIn(tx, seen.get().actorId());
            }
            Optional<Attempt> found = PgRuns.lockAttempt(tx, attemptId);
            if (found.isPresent()) {
                PgRuns.lockAssignment(tx, found.get().assignmentId());
            }
            long now = tx.now();
            if (found.isEmpty() || found.get().state() != AttemptState.ACTIVE || !found.get().isExpiredAt(now)) {
                return new Untouched("attempt " + attemptId + " is no longer an expired ACTIVE attempt");
            }
            Attempt attempt = found.get();
            Assignment a = PgRuns.requireAssignment(tx, attempt.assignmentId());
            if (attempt.id().equals(a.currentAttempt())) {
                return recover(tx, attempt, false);
            }
            if (a.state() == AssignmentState.RUNNING && a.currentAttempt() == null) {
                return recover(tx, attempt, true);
            }
            AttemptState to = a.currentAttempt() != null ? AttemptState.SUPERSEDED : AttemptState.LOST;
            int n = tx.update("UPDATE execution_attempts SET state = ?, ended_at = ? WHERE id = ? AND state = 'ACTIVE'"
                            + " AND expires_at <= ? AND id IS DISTINCT FROM (SELECT current_attempt FROM assignments WHERE id = ?)",
                    to.name(), now, attempt.id(), now, attempt.assignmentId());
            if (n == 0) {
                return new Untouched("attempt " + attemptId + " changed meanwhile");
            }
            tx.journal(EventKind.ATTEMPT_SUPERSEDED, "attempt", attempt.id(), attempt.actorId(), tx.processIdentity(),
                    attempt.token(), null, null, null, "expired at " + Instant.ofEpochMilli(attempt.expiresAt())
                            + " while no longer the current attempt of assignment " + a.id() + " (" + a.state()
                            + "); retired as " + to + " by the supervisor, without a receipt");
            return new Retired(attempt, to);
        });
    }

    private static Settlement recover(JdbcTx tx, Attempt attempt, boolean stolen) throws SQLException {
        long now = tx.now();
        String fence = stolen
                ? " AND current_attempt IS NULL AND NOT EXISTS (SELECT 1 FROM execution_attempts live"
                        + " WHERE live.assignment_id = assignments.id AND live.state = 'ACTIVE' AND live.expires_at > ?)"
                : " AND current_attempt = ?";
        Object fenceArg = stolen ? now : attempt.id();
        // The fenced write comes FIRST: zero rows means another supervisor (or a takeover) won, and
        // this transaction then writes nothing at all.
        Optional<Assignment> failed = tx.one("UPDATE assignments SET state = 'FAILED', current_attempt = NULL,"
                        + " updated_at = ?, ended_by_attempt = ?, ended_via = 'recovery'"
                        + " WHERE id = ? AND state = 'RUNNING'" + fence
                        + " AND EXISTS (SELECT 1 FROM execution_attempts e WHERE e.id = ? AND e.assignment_id = assignments.id"
                        + " AND e.state = 'ACTIVE' AND e.expires_at <= ?)"
                        + " RETURNING " + PgRuns.ASSIGNMENT_COLUMNS,
                PgRuns::mapAssignment, now, attempt.id(), attempt.assignmentId(), fenceArg, attempt.id(), now);
        if (failed.isEmpty()) {
            return new Untouched("assignment " + attempt.assignmentId() + " was settled by someone else");
        }
        String summary = "worker lost: attempt " + attempt.id() + " (token " + attempt.token() + ") of "
                + attempt.processIdentity() + " expired at " + Instant.ofEpochMilli(attempt.expiresAt())
                + (stolen ? " after its fence was stolen" : "") + "; recovered by supervisor " + tx.processIdentity()
                + "; what the attempt did is unknown";
        // The receipt names its writer, the supervisor; the lost attempt (attempt_id, attempt_token) and its
        // process (the attempt row, and the summary) are named beside it (docs/decisions/0111).
        Receipt receipt = PgRuns.insertReceipt(tx, attempt, tx.processIdentity(), Outcome.FAILED,
                Receipt.WORKER_LOST, false, summary);
        int n = tx.update("UPDATE execution_attempts SET state = 'RECOVERED', ended_at = ? WHERE id = ?"
                + " AND state = 'ACTIVE'", now, attempt.id());
        if (n != 1) {
            throw new PgConflict("attempt " + attempt.id() + " changed under its row lock");
        }
        tx.journal(EventKind.ATTEMPT_RECOVERED, "attempt", attempt.id(), attempt.actorId(), tx.processIdentity(),
                attempt.token(), null, null, null, "assignment " + attempt.assignmentId()
                        + " → FAILED (worker_lost); receipt " + receipt.id() + "; lost process "
                        + attempt.processIdentity() + (stolen ? "; its fence had been stolen" : ""));
        return new Recovered(failed.get(), attempt, receipt, stolen);
    }

    // ---- the tick's own record ----

    /** The server's clock, which decided every expiry this tick reports (its Java clock may be skewed). */
    @Override
    public long tickTime(java.time.Clock engineClock) {
        return db.read(JdbcTx::now);
    }

    @Override
    public long recordTick(TickReport report, String reportJson) {
        return db.write(tx -> tx.scalarLong("INSERT INTO supervisor_ticks (at, process_identity, expired_leases,"
                        + " stale_processes, swept_claims, recovered, failures, report) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                        + " RETURNING seq",
                report.at(), report.processIdentity(), report.expiredLeases().size(), report.staleProcesses().size(),
                report.sweptClaims().size(), report.recovered().size(), report.failures().size(), reportJson));
    }

    @Override
    public Optional<TickRecord> lastTick() {
        return db.read(tx -> tx.one("SELECT seq, at, process_identity, expired_leases, stale_processes, swept_claims,"
                        + " recovered, failures, report FROM supervisor_ticks ORDER BY seq DESC LIMIT 1",
                rs -> new TickRecord(rs.getLong("seq"), rs.getLong("at"), rs.getString("process_identity"),
                        rs.getInt("expired_leases"), rs.getInt("stale_processes"), rs.getInt("swept_claims"),
                        rs.getInt("recovered"), rs.getInt("failures"), rs.getString("report"))));
    }
}
