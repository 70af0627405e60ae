package dev.sovereign.engine.internal.postgres;

import dev.sovereign.engine.internal.jdbc.JdbcLeases;
import dev.sovereign.engine.internal.jdbc.JdbcTx;
import dev.sovereign.engine.spi.RunStore;

import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.rules.Arguments;
import dev.sovereign.engine.rules.RunRules;
import dev.sovereign.engine.actor.Actor;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.run.AttemptState;
import dev.sovereign.engine.run.Receipt;
import java.security.SecureRandom;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The ledger side of assignments, execution attempts and receipts (PostgreSQL). Every state change is one
 * READ COMMITTED transaction that locks its rows in the order of decision 0900 (token counter, the actor's
 * lease FOR SHARE, the attempt, the assignment), re-reads them, asks the rule book and sends the guarded
 * statements in the shapes the schema expects: an attempt start is mint, INSERT of the ACTIVE attempt,
 * then the pointer; a terminal write states {@code ended_by_attempt}/{@code ended_via} and clears the
 * pointer BEFORE the attempt's own state changes. No files, no providers: the orchestration of a run lives
 * in {@code internal.run}. Thread-safe.
 */
public final class PgRuns implements RunStore {
    static final String ASSIGNMENT_COLUMNS = "id, actor_id, provider_spec, workspace_policy, state, current_attempt,"
            + " retry_of, acknowledged_at, created_at, updated_at";
    static final String ATTEMPT_COLUMNS = "id, assignment_id, actor_id, process_identity, token, lease_token, state,"
            + " ttl_ms, started_at, renewed_at, expires_at, ended_at";
    static final String RECEIPT_COLUMNS = "id, assignment_id, attempt_id, attempt_token, process_identity, status,"
            + " failure_category, outcome_known, summary, created_at";

    private static final SecureRandom RANDOM = new SecureRandom();

    private final PgDatabase db;
    private final boolean ignoreTerminalFence;

    /**
     * @param ignoreTerminalFence the lab's broken-fence switch {@code sovereign.fault.ignoreTerminalFence}:
     *     when true AND the ledger was created as a lab sandbox, the terminal write is {@code WHERE id = ?}
     *     only; on any other ledger it is ignored (and the schema's guard would refuse such a write)
     */
    public PgRuns(PgDatabase db, boolean ignoreTerminalFence) {
        this.db = db;
        this.ignoreTerminalFence = ignoreTerminalFence && db.isLabSandbox();
    }


    // ---- mapping ----

    public static Assignment mapAssignment(ResultSet rs) throws SQLException {
        return new Assignment(rs.getString("id"), rs.getString("actor_id"), rs.getString("provider_spec"),
                rs.getString("workspace_policy"), AssignmentState.valueOf(rs.getString("state")),
                rs.getString("current_attempt"), rs.getString("retry_of"), JdbcTx.nullableLong(rs, "acknowledged_at"),
                rs.getLong("created_at"), rs.getLong("updated_at"));
    }

    public static Attempt mapAttempt(ResultSet rs) throws SQLException {
        return new Attempt(rs.getString("id"), rs.getString("assignment_id"), rs.getString("actor_id"),
                rs.getString("process_identity"), rs.getLong("token"), rs.getLong("lease_token"),
                AttemptState.valueOf(rs.getString("state")), rs.getLong("ttl_ms"), rs.getLong("started_at"),
                rs.getLong("renewed_at"), rs.getLong("expires_at"), JdbcTx.nullableLong(rs, "ended_at"));
    }

    public static Receipt mapReceipt(ResultSet rs) throws SQLException {
        return new Receipt(rs.getLong("id"), rs.getString("assignment_id"), rs.getString("attempt_id"),
                rs.getLong("attempt_token"), rs.getString("process_identity"), Outcome.fromCode(rs.getString("status")),
                rs.getString("failure_category"), rs.getInt("outcome_known") == 1, rs.getString("summary"),
                rs.getLong("created_at"));
    }

    /** A fresh random id such as {@code asg_3f9c0e1d2b7a4c55}: never derived from a counter or a PID. */
    static String newId(String prefix) {
        byte[] b = new byte[8];
        RANDOM.nextBytes(b);
        return prefix + HexFormat.of().formatHex(b);
    }

    // ---- assignments ----

    /**
     * Inserts a CREATED assignment. The provider spec must have been validated by the caller.
     * {@code workspacePolicy} null means the actor's own policy.
     */
    @Override
    public Assignment assign(String actor, String providerSpec, String workspacePolicy) {
        if (workspacePolicy != null) {
            Arguments.requirePolicy(workspacePolicy);
        }
        return db.write(tx -> {
            Actor a = PgActors.requireActor(tx, actor);
            String policy = workspacePolicy != null ? workspacePolicy : a.workspacePolicy();
            Assignment created = insertAssignment(tx, actor, providerSpec, policy, null);
            tx.journal(EventKind.ASSIGNMENT_CREATED, "assignment", created.id(), actor, null,
                    "provider " + providerSpec + "; workspace policy " + policy);
            return created;
        });
    }

    private static Assignment insertAssignment(JdbcTx tx, String actor, String spec, String policy, String retryOf)
            throws SQLException {
        return tx.one("INSERT INTO assignments (id, actor_id, provider_spec, workspace_policy, state, retry_of,"
                        + " created_at, updated_at) VALUES (?, ?, ?, ?, 'CREATED', ?, ?, ?) RETURNING "
                        + ASSIGNMENT_COLUMNS,
                PgRuns::mapAssignment, newId("asg_"), actor, spec, policy, retryOf, tx.now(), tx.now())
                .orElseThrow();
    }

    /**
     * Step 1 of a run, read-only: the assignment exists and is runnable (CREATED, or RUNNING with an
     * expired current attempt), its actor exists and its policy is known.
     */
    @Override
    public Assignment loadRunnable(String assignmentId) {
        try {
            return db.read(tx -> loadRunnableIn(tx, assignmentId));
        } catch (Refusal r) {
            // a read does not journal by itself; a contested attempt is still recorded
            throw r.category().isFencing() ? db.journalRejectionOrWarn(r) : r;
        }
    }

    /**
     * Journals a refusal decided outside a transaction (a run-time policy such as the command allow-list)
     * as a {@code REJECTED} event and returns it to be thrown; a failed journal write becomes its warning.
     */
    @Override
    public Refusal journalRefusal(Refusal r) {
        return db.journalRejectionOrWarn(r);
    }

    private static Assignment loadRunnableIn(JdbcTx tx, String assignmentId) throws SQLException {
        Assignment a = requireAssignment(tx, assignmentId);
        PgActors.requireActor(tx, a.actorId());
        Arguments.requirePolicy(a.workspacePolicy());
        RunRules.requireRunnableState(a);
        if (a.state() == AssignmentState.RUNNING) {
            requireSupersedable(tx, a);
        }
        return a;
    }

    /** The attempt a RUNNING assignment's pointer names, once the rules allow running it again. */
    private static Attempt requireSupersedable(JdbcTx tx, Assignment a) throws SQLException {
        RunRules.requireRunnableState(a);
        Attempt current = attemptIn(tx, a.currentAttempt()).orElseThrow();
        RunRules.requireSupersedable(a, current, tx.now());
        return current;
    }

    /**
     * Step 3 of a run, ONE transaction: re-verifies that {@code leaseToken} is the actor's current,
     * unexpired lease held by this process (else {@code actor_lease_lost}); refuses a live attempt
     * ({@code execution_attempt_held}); supersedes an expired one; mints the attempt token; inserts the
     * attempt bound to {@code leaseToken}; points {@code current_attempt} at it and sets RUNNING.
     */
    @Override
    public Attempt startAttempt(String assignmentId, long leaseToken, long ttlMs) {
        Arguments.requireAttemptTtl(ttlMs);
        return db.write(tx -> {
            Assignment seen = requireAssignment(tx, assignmentId);
            tx.lockTokenCounter();
            Optional<Lease> lease = JdbcLeases.sharedIn(tx, seen.actorId());
            if (seen.currentAttempt() != null) {
                lockAttempt(tx, seen.currentAttempt());
            }
            Assignment a = lockAssignment(tx, assignmentId);
            if (!java.util.Objects.equals(a.currentAttempt(), seen.currentAttempt())) {
                throw new PgConflict("assignment " + a.id() + " changed its attempt while its rows were locked");
            }
            long now = tx.now();
            String me = tx.processIdentity();
            if (lease.isPresent()) {
                JdbcLeases.requireSane(tx, lease.get());
            }
            RunRules.requireLeaseForAttempt(a, leaseToken, lease.orElse(null), me, now);
            String previous = null;
            if (a.state() == AssignmentState.RUNNING) {
                Attempt old = requireSupersedable(tx, a);
                int n = tx.update("UPDATE execution_attempts SET state = 'SUPERSEDED', ended_at = ?"
                        + " WHERE id = ? AND state = 'ACTIVE' AND expires_at <= ?", now, old.id(), now);
                if (n == 1) {
                    tx.journal(EventKind.ATTEMPT_SUPERSEDED, "attempt", old.id(), a.actorId(), me, old.token(),
                            null, null, null, "expired at " + Instant.ofEpochMilli(old.expiresAt())
                                    + " while running assignment " + a.id() + " for " + old.processIdentity()
                                    + "; superseded by a new attempt");
                }
                previous = old.id();
            } else {
                RunRules.requireRunnableState(a);
            }
            long token = tx.mintToken();
            Attempt attempt = tx.one("INSERT INTO execution_attempts (id, assignment_id, actor_id, process_identity,"
                            + " token, lease_token, state, ttl_ms, started_at, renewed_at, expires_at)"
                            + " VALUES (?, ?, ?, ?, ?, ?, 'ACTIVE', ?, ?, ?, ?) RETURNING " + ATTEMPT_COLUMNS,
                    PgRuns::mapAttempt, newId("att_"), a.id(), a.actorId(), me, token, leaseToken, ttlMs, now,
                    now, now + ttlMs).orElseThrow();
            int moved = tx.update("UPDATE assignments SET state = 'RUNNING', current_attempt = ?, updated_at = ?"
                            + " WHERE id = ? AND state = ? AND current_attempt IS NOT DISTINCT FROM ?",
                    attempt.id(), now, a.id(), a.state().name(), previous);
            if (moved != 1) {
                throw new PgConflict("assignment " + a.id() + " changed under its row lock");
            }
            tx.journal(EventKind.ATTEMPT_STARTED, "attempt", attempt.id(), a.actorId(), token,
                    "assignment " + a.id() + "; bound to actor lease token " + leaseToken + "; ttl " + ttlMs + " ms");
            return attempt;
        });
    }

    /**
     * Step 6 of a run, the terminal write, ONE transaction: a single fenced {@code UPDATE} that moves
     * the assignment to its terminal state only where {@code current_attempt} is still this attempt
     * AND the actor lease still carries the attempt's bound token and this process. Zero rows refuses
     * ({@code actor_lease_lost} when the lease moved, else {@code execution_attempt_lost}): nothing is
     * written (no receipt) and the refusal is journalled. One row: the receipt, attempt DONE, events.
     */
    @Override
    public Completion finish(Attempt attempt, Outcome status, String failureCategory, boolean outcomeKnown,
                             String summary) {
        return db.write(tx -> {
            // decision 0900's order: the lease (shared: a takeover is waited for, then seen), the attempt, then
            // the assignment the terminal write changes
            Optional<Lease> lease = JdbcLeases.sharedIn(tx, attempt.actorId());
            lockAttempt(tx, attempt.id());
            long now = tx.now();
            String me = tx.processIdentity();
            Optional<Assignment> ended;
            if (lease.isPresent() && !ignoreTerminalFence) {
                JdbcLeases.requireSane(tx, lease.get()); // the fence reads this row: a corrupt one fails closed
            }
            if (ignoreTerminalFence) {
                // FAULT INJECTION (sovereign.fault.ignoreTerminalFence): no fence at all.
                ended = tx.one("UPDATE assignments SET state = ?, current_attempt = NULL, updated_at = ?,"
                                + " ended_by_attempt = ?, ended_via = 'attempt'"
                                + " WHERE id = ? RETURNING " + ASSIGNMENT_COLUMNS,
                        PgRuns::mapAssignment, RunRules.terminalState(status).name(), now, attempt.id(), attempt.assignmentId());
            } else {
                // ended_by_attempt states the attempt this write acts for: the schema's own guard
                // (V0001) checks it against current_attempt and the actor's lease, whatever the WHERE.
                ended = tx.one("UPDATE assignments SET state = ?, current_attempt = NULL, updated_at = ?,"
                                + " ended_by_attempt = ?, ended_via = 'attempt'"
                                + " WHERE id = ? AND state = 'RUNNING' AND current_attempt = ?"
                                + " AND EXISTS (SELECT 1 FROM actor_leases l WHERE l.actor_id = assignments.actor_id"
                                + " AND l.token = ? AND l.process_identity = ?)"
                                + " RETURNING " + ASSIGNMENT_COLUMNS,
                        PgRuns::mapAssignment, RunRules.terminalState(status).name(), now, attempt.id(), attempt.assignmentId(),
                        attempt.id(), attempt.leaseToken(), me);
            }
            if (ended.isEmpty()) {
                throw terminalWriteRefused(tx, attempt, me);
            }
            Receipt receipt = insertReceipt(tx, attempt, attempt.processIdentity(), status, failureCategory,
                    outcomeKnown, summary);
            Optional<Attempt> done = tx.one("UPDATE execution_attempts SET state = 'DONE', ended_at = ? WHERE id = ?"
                    + " AND state = 'ACTIVE' RETURNING " + ATTEMPT_COLUMNS, PgRuns::mapAttempt, now, attempt.id());
            if (done.isEmpty() && !ignoreTerminalFence) {
                throw new PgConflict("attempt " + attempt.id() + " was current but not ACTIVE under its row lock");
            }
            tx.journal(EventKind.ATTEMPT_DONE, "attempt", attempt.id(), attempt.actorId(), attempt.token(),
                    "assignment " + attempt.assignmentId() + " → " + ended.get().state() + "; receipt "
                            + receipt.id() + (ignoreTerminalFence ? "; FAULT: terminal fence ignored" : ""));
            return new Completion(ended.get(), done.orElse(attempt), receipt);
        });
    }

    static Receipt insertReceipt(JdbcTx tx, Attempt attempt, String process, Outcome status, String failureCategory,
                                 boolean outcomeKnown, String summary) throws SQLException {
        return tx.one("INSERT INTO receipts (assignment_id, attempt_id, attempt_token, process_identity, status,"
                        + " failure_category, outcome_known, summary, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                        + " RETURNING " + RECEIPT_COLUMNS,
                PgRuns::mapReceipt, attempt.assignmentId(), attempt.id(), attempt.token(), process,
                status.code(), failureCategory, outcomeKnown, summary, tx.now()).orElseThrow();
    }

    /** Says which fence moved under a refused terminal write (the words: {@link RunRules#terminalWriteRefused}). */
    private static Refusal terminalWriteRefused(JdbcTx tx, Attempt attempt, String me) throws SQLException {
        Lease lease = JdbcLeases.currentIn(tx, attempt.actorId()).orElse(null);
        if (!RunRules.leaseFenceStands(attempt, lease, me)) {
            return RunRules.terminalWriteRefused(attempt, lease, me, null, null);
        }
        Assignment a = requireAssignment(tx, attempt.assignmentId());
        Attempt current = a.currentAttempt() == null ? null : attemptIn(tx, a.currentAttempt()).orElse(null);
        return RunRules.terminalWriteRefused(attempt, lease, me, a, current);
    }

    // ---- operator actions ----

    /** A new CREATED assignment retrying a FAILED or BLOCKED one; at most one retry each. */
    @Override
    public Assignment retry(String assignmentId) {
        return db.write(tx -> {
            // locked: two operators retrying at once are serialised here, and the second sees the first's retry
            Assignment a = lockAssignment(tx, assignmentId);
            RunRules.requireRetryable(a, null);
            Optional<String> earlier = tx.one("SELECT id FROM assignments WHERE retry_of = ?", rs -> rs.getString(1),
                    a.id());
            RunRules.requireRetryable(a, earlier.orElse(null));
            Assignment retry = insertAssignment(tx, a.actorId(), a.providerSpec(), a.workspacePolicy(), a.id());
            tx.journal(EventKind.ASSIGNMENT_RETRIED, "assignment", retry.id(), a.actorId(), null,
                    "retry of " + a.id() + " (which ended " + a.state() + ")");
            return retry;
        });
    }

    /** Sets {@code acknowledged_at} of a FAILED or BLOCKED assignment once. */
    @Override
    public Assignment acknowledge(String assignmentId) {
        return db.write(tx -> {
            Assignment a = lockAssignment(tx, assignmentId);
            RunRules.requireAcknowledgeable(a);
            if (a.acknowledgedAt() != null) {
                return a;
            }
            Assignment acked = tx.one("UPDATE assignments SET acknowledged_at = ?, updated_at = ? WHERE id = ?"
                            + " AND acknowledged_at IS NULL AND state IN ('FAILED', 'BLOCKED') RETURNING "
                            + ASSIGNMENT_COLUMNS,
                    PgRuns::mapAssignment, tx.now(), tx.now(), a.id()).orElseThrow(
                            () -> new PgConflict("assignment " + a.id() + " changed under its row lock"));
            tx.journal(EventKind.ASSIGNMENT_ACKNOWLEDGED, "assignment", a.id(), a.actorId(), null,
                    "acknowledged by an operator (" + a.state() + ")");
            return acked;
        });
    }

    /** Clears the attempt pointer under a RUNNING assignment (state stays RUNNING); journals ATTEMPT_STOLEN. */
    @Override
    public Attempt stealFence(String assignmentId) {
        return db.write(tx -> {
            Assignment a = lockAssignment(tx, assignmentId);
            RunRules.requireStealable(a);
            Attempt victim = attemptIn(tx, a.currentAttempt()).orElseThrow();
            int n = tx.update("UPDATE assignments SET current_attempt = NULL, updated_at = ?"
                    + " WHERE id = ? AND state = 'RUNNING' AND current_attempt = ?", tx.now(), a.id(), victim.id());
            if (n != 1) {
                throw new PgConflict("assignment " + a.id() + " changed under its row lock");
            }
            tx.journal(EventKind.ATTEMPT_STOLEN, "attempt", victim.id(), a.actorId(), tx.processIdentity(),
                    victim.token(), null, null, null, "the fence of assignment " + a.id()
                            + " was cleared by an operator; " + victim.processIdentity() + " can no longer commit it");
            return victim;
        });
    }

    // ---- reads ----

    @Override
    public Optional<Assignment> get(String assignmentId) {
        return db.read(tx -> assignmentIn(tx, assignmentId));
    }

    @Override
    public List<Assignment> list() {
        return db.read(tx -> tx.query("SELECT " + ASSIGNMENT_COLUMNS + " FROM assignments"
                + " ORDER BY created_at DESC, id", PgRuns::mapAssignment));
    }

    /**
     * The actor's runnable assignments, oldest first: CREATED ones, and RUNNING ones whose current
     * attempt has expired (a takeover may run them again). Served by {@code assignments_by_actor_state}.
     */
    @Override
    public List<Assignment> runnable(String actor, int limit) {
        return db.read(tx -> tx.query("SELECT " + ASSIGNMENT_COLUMNS + " FROM assignments a WHERE a.actor_id = ?"
                + " AND (a.state = 'CREATED' OR (a.state = 'RUNNING' AND EXISTS (SELECT 1 FROM execution_attempts t"
                + " WHERE t.id = a.current_attempt AND t.state = 'ACTIVE' AND t.expires_at <= ?)))"
                + " ORDER BY a.created_at, a.id LIMIT ?", PgRuns::mapAssignment, actor, tx.now(), limit));
    }

    @Override
    public List<Attempt> attempts(String assignmentId) {
        return db.read(tx -> tx.query("SELECT " + ATTEMPT_COLUMNS + " FROM execution_attempts WHERE assignment_id = ?"
                + " ORDER BY started_at, token", PgRuns::mapAttempt, assignmentId));
    }

    @Override
    public Optional<Attempt> attempt(String attemptId) {
        return db.read(tx -> attemptIn(tx, attemptId));
    }

    @Override
    public Optional<Receipt> receipt(String assignmentId) {
        return db.read(tx -> tx.one("SELECT " + RECEIPT_COLUMNS + " FROM receipts WHERE assignment_id = ?",
                PgRuns::mapReceipt, assignmentId));
    }

    static Optional<Assignment> assignmentIn(JdbcTx tx, String id) throws SQLException {
        return tx.one("SELECT " + ASSIGNMENT_COLUMNS + " FROM assignments WHERE id = ?", PgRuns::mapAssignment, id);
    }

    static Assignment requireAssignment(JdbcTx tx, String id) throws SQLException {
        return assignmentIn(tx, id).orElseThrow(() -> RunRules.missing(id));
    }

    /** The assignment, locked FOR UPDATE until the end of {@code tx}; refuses an unknown one. */
    static Assignment lockAssignment(JdbcTx tx, String id) throws SQLException {
        return tx.one("SELECT " + ASSIGNMENT_COLUMNS + " FROM assignments WHERE id = ? FOR UPDATE",
                PgRuns::mapAssignment, id).orElseThrow(() -> RunRules.missing(id));
    }

    /** The attempt, locked FOR UPDATE until the end of {@code tx} (before its assignment, decision 0900). */
    static Optional<Attempt> lockAttempt(JdbcTx tx, String id) throws SQLException {
        return tx.one("SELECT " + ATTEMPT_COLUMNS + " FROM execution_attempts WHERE id = ? FOR UPDATE",
                PgRuns::mapAttempt, id);
    }

    static Optional<Attempt> attemptIn(JdbcTx tx, String id) throws SQLException {
        return tx.one("SELECT " + ATTEMPT_COLUMNS + " FROM execution_attempts WHERE id = ?", PgRuns::mapAttempt, id);
    }
}
