package dev.sovereign.engine.internal.jdbc;

import dev.sovereign.engine.actor.Actor;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.rules.ActorRules;
import dev.sovereign.engine.rules.Arguments;
import dev.sovereign.engine.rules.LeaseRules;
import dev.sovereign.engine.rules.RunRules;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.run.AttemptState;
import dev.sovereign.engine.run.Receipt;
import dev.sovereign.engine.spi.Grants;
import dev.sovereign.engine.spi.RunStore;
import java.security.SecureRandom;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The ledger side of assignments, execution attempts and receipts, for both backends. Every state change is one
 * write transaction that sends guarded statements in the shapes the schema expects: an attempt start is mint, INSERT
 * of the ACTIVE attempt, then the pointer; a terminal write states {@code ended_by_attempt}/{@code ended_via} and
 * clears the pointer BEFORE the attempt's own state changes; tokens are minted in the same transaction as the
 * compare-and-set they authorise. Where a backend's transaction does not hold the whole database ({@link
 * Dialect#locksRows}: PostgreSQL's READ COMMITTED), the rows are locked in the order of decision 0900 (token counter,
 * the actor's lease shared, the attempt, the assignment) and re-read before the rule book is asked; under SQLite's
 * {@code BEGIN IMMEDIATE} the first read is already the locked one. No files, no providers: the orchestration of a
 * run lives in {@code internal.run}. Thread-safe (the backend's door serialises this engine's access).
 */
public final class JdbcRuns implements RunStore {
    public static final String ASSIGNMENT_COLUMNS = "id, actor_id, provider_spec, workspace_policy, state,"
            + " current_attempt, retry_of, acknowledged_at, created_at, updated_at";
    /** {@link #ASSIGNMENT_COLUMNS} of the row aliased {@code a}. */
    private static final String ASSIGNMENT_COLUMNS_OF_A = "a." + ASSIGNMENT_COLUMNS.replace(", ", ", a.");

    public static final String ATTEMPT_COLUMNS = "id, assignment_id, actor_id, process_identity, token, lease_token,"
            + " state, ttl_ms, started_at, renewed_at, expires_at, ended_at";
    public static final String RECEIPT_COLUMNS = "id, assignment_id, attempt_id, attempt_token, process_identity,"
            + " status, failure_category, outcome_known, summary, created_at";

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Transactions db;
    /** The backend's lease writes when it writes a run in two transactions (decision 0508); null: in four. */
    private final JdbcLeases.LeaseWrites leaseWrites;

    private final Grants grants;
    private final Writes writes;
    private final boolean ignoreTerminalFence;

    /**
     * A backend's way to send the common case of an attempt's start and of a run's terminal write as one call
     * (PostgreSQL's functions, schema version 17, decision 0921): it does exactly what the full path below does for
     * that case, or writes nothing and answers empty, and the full path then runs in the same transaction, asks the
     * rule book and words any refusal. Offered only as the first write of a transaction opened for that one
     * operation, and never with the lab's broken fence.
     */
    public interface Writes {
        /** No call of its own: every write takes the full path (SQLite, where a statement costs no round trip). */
        Writes NONE = new Writes() {
            @Override
            public Optional<Attempt> startInOneCall(
                    JdbcTx tx, String assignmentId, String attemptId, long leaseToken, long ttlMs) {
                return Optional.empty();
            }

            @Override
            public Optional<Completion> finishInOneCall(
                    JdbcTx tx,
                    Attempt attempt,
                    Outcome status,
                    String failureCategory,
                    boolean outcomeKnown,
                    String summary) {
                return Optional.empty();
            }
        };

        /**
         * A CREATED assignment's first attempt, {@code attemptId}, started under this process's live lease with
         * {@code leaseToken}, with a fresh token, journalled; or nothing done.
         */
        Optional<Attempt> startInOneCall(JdbcTx tx, String assignmentId, String attemptId, long leaseToken, long ttlMs)
                throws SQLException;

        /** The fenced terminal write, the receipt, the attempt DONE, journalled; or nothing done. */
        Optional<Completion> finishInOneCall(
                JdbcTx tx,
                Attempt attempt,
                Outcome status,
                String failureCategory,
                boolean outcomeKnown,
                String summary)
                throws SQLException;
    }

    /**
     * A store that writes a run in separate transactions (the lease, the attempt, the terminal write, the release).
     *
     * @param ignoreTerminalFence the lab's broken-fence switch {@code sovereign.fault.ignoreTerminalFence}:
     *     when true AND the ledger was created as a lab sandbox, the terminal write is {@code WHERE id = ?}
     *     only; on any other ledger it is ignored (and the schema's guard would refuse such a write)
     */
    public JdbcRuns(Transactions db, boolean ignoreTerminalFence) {
        this(db, Writes.NONE, ignoreTerminalFence);
    }

    /** As {@link #JdbcRuns(Transactions, boolean)}, with the backend's one-call {@code writes}. */
    public JdbcRuns(Transactions db, Writes writes, boolean ignoreTerminalFence) {
        this(db, null, writes, null, ignoreTerminalFence);
    }

    /**
     * A store that also writes a run in two transactions (issue 16, decision 0508): the lease acquired or renewed with
     * the attempt's start and released with the terminal write, each with the backend's {@code leaseWrites} — the same
     * compare-and-set and journal rows as the lease store's own call — tracking the leases it takes and releases in
     * {@code grants}; {@code ignoreTerminalFence} as above.
     */
    public JdbcRuns(
            Transactions db,
            JdbcLeases.LeaseWrites leaseWrites,
            Writes writes,
            Grants grants,
            boolean ignoreTerminalFence) {
        this.db = db;
        this.leaseWrites = leaseWrites;
        this.writes = Objects.requireNonNull(writes, "writes");
        this.grants = leaseWrites == null ? null : Objects.requireNonNull(grants, "grants");
        this.ignoreTerminalFence = ignoreTerminalFence && db.isLabSandbox();
    }

    // ---- mapping ----

    public static Assignment mapAssignment(ResultSet rs) throws SQLException {
        return mapAssignment(rs, "");
    }

    /** As {@link #mapAssignment(ResultSet)}, from the columns named {@code prefix} + the column. */
    public static Assignment mapAssignment(ResultSet rs, String prefix) throws SQLException {
        return new Assignment(
                rs.getString(prefix + "id"),
                rs.getString(prefix + "actor_id"),
                rs.getString(prefix + "provider_spec"),
                rs.getString(prefix + "workspace_policy"),
                AssignmentState.valueOf(rs.getString(prefix + "state")),
                rs.getString(prefix + "current_attempt"),
                rs.getString(prefix + "retry_of"),
                JdbcTx.nullableLong(rs, prefix + "acknowledged_at"),
                rs.getLong(prefix + "created_at"),
                rs.getLong(prefix + "updated_at"));
    }

    public static Attempt mapAttempt(ResultSet rs) throws SQLException {
        return mapAttempt(rs, "");
    }

    /** As {@link #mapAttempt(ResultSet)}, from the columns named {@code prefix} + the column. */
    public static Attempt mapAttempt(ResultSet rs, String prefix) throws SQLException {
        return new Attempt(
                rs.getString(prefix + "id"),
                rs.getString(prefix + "assignment_id"),
                rs.getString(prefix + "actor_id"),
                rs.getString(prefix + "process_identity"),
                rs.getLong(prefix + "token"),
                rs.getLong(prefix + "lease_token"),
                AttemptState.valueOf(rs.getString(prefix + "state")),
                rs.getLong(prefix + "ttl_ms"),
                rs.getLong(prefix + "started_at"),
                rs.getLong(prefix + "renewed_at"),
                rs.getLong(prefix + "expires_at"),
                JdbcTx.nullableLong(rs, prefix + "ended_at"));
    }

    public static Receipt mapReceipt(ResultSet rs) throws SQLException {
        return mapReceipt(rs, "");
    }

    /** As {@link #mapReceipt(ResultSet)}, from the columns named {@code prefix} + the column. */
    public static Receipt mapReceipt(ResultSet rs, String prefix) throws SQLException {
        return new Receipt(
                rs.getLong(prefix + "id"),
                rs.getString(prefix + "assignment_id"),
                rs.getString(prefix + "attempt_id"),
                rs.getLong(prefix + "attempt_token"),
                rs.getString(prefix + "process_identity"),
                Outcome.fromCode(rs.getString(prefix + "status")),
                rs.getString(prefix + "failure_category"),
                rs.getInt(prefix + "outcome_known") == 1,
                rs.getString(prefix + "summary"),
                rs.getLong(prefix + "created_at"));
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
            Actor a = JdbcActors.requireActor(tx, actor);
            String policy = workspacePolicy != null ? workspacePolicy : a.workspacePolicy();
            Assignment created = insertAssignment(tx, actor, providerSpec, policy, null);
            tx.journal(
                    EventKind.ASSIGNMENT_CREATED,
                    "assignment",
                    created.id(),
                    actor,
                    null,
                    "provider " + providerSpec + "; workspace policy " + policy);
            return created;
        });
    }

    private static Assignment insertAssignment(JdbcTx tx, String actor, String spec, String policy, String retryOf)
            throws SQLException {
        return tx.one(
                        "INSERT INTO assignments (id, actor_id, provider_spec, workspace_policy, state, retry_of,"
                                + " created_at, updated_at) VALUES (?, ?, ?, ?, 'CREATED', ?, ?, ?) RETURNING "
                                + ASSIGNMENT_COLUMNS,
                        JdbcRuns::mapAssignment,
                        newId("asg_"),
                        actor,
                        spec,
                        policy,
                        retryOf,
                        tx.now(),
                        tx.now())
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

    private Assignment loadRunnableIn(JdbcTx tx, String assignmentId) throws SQLException {
        // the assignment and whether its actor exists, in one statement (one round trip on a server)
        record Found(Assignment assignment, boolean actorExists) {}
        Found found = tx.one(
                        "SELECT " + ASSIGNMENT_COLUMNS_OF_A
                                + ", (SELECT count(*) FROM actors c WHERE c.id = a.actor_id)"
                                + " AS actor_rows FROM assignments a WHERE a.id = ?",
                        rs -> new Found(mapAssignment(rs), rs.getLong("actor_rows") > 0),
                        assignmentId)
                .orElseThrow(() -> RunRules.missing(assignmentId));
        Assignment a = found.assignment();
        if (!found.actorExists()) {
            throw ActorRules.unknown(a.actorId());
        }
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
            Optional<Attempt> started = writes.startInOneCall(tx, assignmentId, newId("att_"), leaseToken, ttlMs);
            return started.isPresent()
                    ? started.get()
                    : startAttemptIn(tx, requireAssignment(tx, assignmentId), leaseToken, ttlMs);
        });
    }

    /** Whether this store writes a run in two transactions, not four (issue 16, decision 0508). */
    @Override
    public boolean writesRunsInFewerTransactions() {
        return leaseWrites != null;
    }

    /**
     * Steps 2 and 3 in ONE transaction: the backend's {@link JdbcLeases#acquireOrRenewKeepingTtlIn} for the
     * assignment's actor, then {@link #startAttemptIn} under the token it got; a refusal of either rolls back both
     * (the work's savepoint) and only the refusal is journalled.
     */
    @Override
    public StartedAttempt startAttemptUnderTheLease(String assignmentId, Duration leaseTtlIfAcquired, long ttlMs) {
        if (leaseWrites == null) {
            return RunStore.super.startAttemptUnderTheLease(assignmentId, leaseTtlIfAcquired, ttlMs);
        }
        long leaseTtlMs = Arguments.leaseTtlMillis(leaseTtlIfAcquired);
        Arguments.requireAttemptTtl(ttlMs);
        StartedAttempt started = db.write(tx -> {
            Assignment a = requireAssignment(tx, assignmentId);
            Lease lease = JdbcLeases.acquireOrRenewKeepingTtlIn(tx, leaseWrites, a.actorId(), leaseTtlMs);
            // the lease write does not touch the assignment's row: the row read above is still current
            return new StartedAttempt(lease, startAttemptIn(tx, a, lease.token(), ttlMs));
        });
        grants.holdLease(started.lease());
        return started;
    }

    /** {@code seen}: the assignment's row as read in this same transaction (before any lock of decision 0900). */
    private Attempt startAttemptIn(JdbcTx tx, Assignment seen, long leaseToken, long ttlMs) throws SQLException {
        tx.lockTokenCounter(seen.actorId());
        Optional<Lease> lease = JdbcLeases.sharedIn(tx, seen.actorId());
        Assignment a = seen;
        if (tx.dialect().locksRows()) {
            // decision 0900's order after the counter and the lease: the attempt the pointer names, then the
            // assignment; re-read locked, it must still name the attempt seen before the locks
            if (seen.currentAttempt() != null) {
                lockAttempt(tx, seen.currentAttempt());
            }
            a = lockAssignment(tx, seen.id());
            if (!Objects.equals(a.currentAttempt(), seen.currentAttempt())) {
                throw tx.changedUnderLock("the attempt of assignment " + a.id());
            }
        }
        long now = tx.now();
        String me = tx.processIdentity();
        if (lease.isPresent()) {
            requireSane(tx, lease.get());
        }
        RunRules.requireLeaseForAttempt(a, leaseToken, lease.orElse(null), me, now);
        String previous = null;
        if (a.state() == AssignmentState.RUNNING) {
            Attempt old = requireSupersedable(tx, a);
            int n = tx.update(
                    "UPDATE execution_attempts SET state = 'SUPERSEDED', ended_at = ?"
                            + " WHERE id = ? AND state = 'ACTIVE' AND expires_at <= ?",
                    now,
                    old.id(),
                    now);
            if (n == 1) {
                tx.journal(
                        EventKind.ATTEMPT_SUPERSEDED,
                        "attempt",
                        old.id(),
                        a.actorId(),
                        me,
                        old.token(),
                        null,
                        null,
                        null,
                        "expired at " + Instant.ofEpochMilli(old.expiresAt())
                                + " while running assignment " + a.id() + " for " + old.processIdentity()
                                + "; superseded by a new attempt");
            }
            previous = old.id();
        } else {
            RunRules.requireRunnableState(a);
        }
        long token = tx.mintToken(a.actorId());
        Attempt attempt = tx.one(
                        "INSERT INTO execution_attempts (id, assignment_id, actor_id, process_identity,"
                                + " token, lease_token, state, ttl_ms, started_at, renewed_at, expires_at)"
                                + " VALUES (?, ?, ?, ?, ?, ?, 'ACTIVE', ?, ?, ?, ?) RETURNING " + ATTEMPT_COLUMNS,
                        JdbcRuns::mapAttempt,
                        newId("att_"),
                        a.id(),
                        a.actorId(),
                        me,
                        token,
                        leaseToken,
                        ttlMs,
                        now,
                        now,
                        now + ttlMs)
                .orElseThrow();
        int moved = tx.update(
                "UPDATE assignments SET state = 'RUNNING', current_attempt = ?, updated_at = ?"
                        + " WHERE id = ? AND state = ? AND current_attempt "
                        + tx.dialect().isNotDistinctFrom() + " ?",
                attempt.id(),
                now,
                a.id(),
                a.state().name(),
                previous);
        if (moved != 1) {
            throw tx.changedUnderLock("assignment " + a.id());
        }
        tx.journal(
                EventKind.ATTEMPT_STARTED,
                "attempt",
                attempt.id(),
                a.actorId(),
                token,
                "assignment " + a.id() + "; bound to actor lease token " + leaseToken + "; ttl " + ttlMs + " ms");
        return attempt;
    }

    /**
     * Step 6 of a run, the terminal write, ONE transaction: a single fenced {@code UPDATE} that moves
     * the assignment to its terminal state only where {@code current_attempt} is still this attempt
     * AND the actor lease still carries the attempt's bound token and this process. Zero rows refuses
     * ({@code actor_lease_lost} when the lease moved, else {@code execution_attempt_lost}): nothing is
     * written (no receipt) and the refusal is journalled. One row: the receipt, attempt DONE, events.
     */
    @Override
    public Completion finish(
            Attempt attempt, Outcome status, String failureCategory, boolean outcomeKnown, String summary) {
        return db.write(tx -> {
            Optional<Completion> done = ignoreTerminalFence
                    ? Optional.empty()
                    : writes.finishInOneCall(tx, attempt, status, failureCategory, outcomeKnown, summary);
            return done.isPresent()
                    ? done.get()
                    : finishIn(tx, attempt, status, failureCategory, outcomeKnown, summary);
        });
    }

    /**
     * Steps 6 and 8 in ONE transaction: {@link #finishIn}, then, once its fenced write succeeded, the
     * release of the lease the attempt is bound to (the backend's {@link JdbcLeases#releaseIn}: the same
     * compare-and-set and the same {@code LEASE_RELEASED} row as a separate release). The terminal write's fence
     * already required that row to carry this process and that token, so the release finds it; if it does not (the
     * lab's broken fence), the outcome commits alone and the caller releases as before.
     */
    @Override
    public Completion finishReleasingTheLease(
            Attempt attempt, Outcome status, String failureCategory, boolean outcomeKnown, String summary) {
        if (leaseWrites == null) {
            return RunStore.super.finishReleasingTheLease(attempt, status, failureCategory, outcomeKnown, summary);
        }
        Completion done = db.write(tx -> {
            Completion c = finishIn(tx, attempt, status, failureCategory, outcomeKnown, summary);
            boolean released = JdbcLeases.releaseIn(tx, leaseWrites, attempt.actorId(), attempt.leaseToken())
                    .released();
            return new Completion(c.assignment(), c.attempt(), c.receipt(), released);
        });
        if (done.leaseReleased()) {
            grants.dropLease(attempt.actorId(), attempt.leaseToken());
        }
        return done;
    }

    private Completion finishIn(
            JdbcTx tx, Attempt attempt, Outcome status, String failureCategory, boolean outcomeKnown, String summary)
            throws SQLException {
        // decision 0900's order: the lease (shared: a takeover is waited for, then seen), the attempt, then
        // the assignment the terminal write changes
        Optional<Lease> lease = JdbcLeases.sharedIn(tx, attempt.actorId());
        if (tx.dialect().locksRows()) {
            lockAttempt(tx, attempt.id());
        }
        long now = tx.now();
        String me = tx.processIdentity();
        Optional<Assignment> ended;
        if (lease.isPresent() && !ignoreTerminalFence) {
            requireSane(tx, lease.get()); // the fence reads this row: a corrupt one fails closed
        }
        if (ignoreTerminalFence) {
            // FAULT INJECTION (sovereign.fault.ignoreTerminalFence): no fence at all.
            ended = tx.one(
                    "UPDATE assignments SET state = ?, current_attempt = NULL, updated_at = ?,"
                            + " ended_by_attempt = ?, ended_via = 'attempt'"
                            + " WHERE id = ? RETURNING " + ASSIGNMENT_COLUMNS,
                    JdbcRuns::mapAssignment,
                    RunRules.terminalState(status).name(),
                    now,
                    attempt.id(),
                    attempt.assignmentId());
        } else {
            // ended_by_attempt states the attempt this write acts for: the schema's own guard (SQLite V0003,
            // PostgreSQL V0001) checks it against current_attempt and the actor's lease, whatever the WHERE.
            ended = tx.one(
                    "UPDATE assignments SET state = ?, current_attempt = NULL, updated_at = ?,"
                            + " ended_by_attempt = ?, ended_via = 'attempt'"
                            + " WHERE id = ? AND state = 'RUNNING' AND current_attempt = ?"
                            + " AND EXISTS (SELECT 1 FROM actor_leases l WHERE l.actor_id = assignments.actor_id"
                            + " AND l.token = ? AND l.process_identity = ?)"
                            + " RETURNING " + ASSIGNMENT_COLUMNS,
                    JdbcRuns::mapAssignment,
                    RunRules.terminalState(status).name(),
                    now,
                    attempt.id(),
                    attempt.assignmentId(),
                    attempt.id(),
                    attempt.leaseToken(),
                    me);
        }
        if (ended.isEmpty()) {
            throw terminalWriteRefused(tx, attempt, me);
        }
        Receipt receipt =
                insertReceipt(tx, attempt, attempt.processIdentity(), status, failureCategory, outcomeKnown, summary);
        Optional<Attempt> done = tx.one(
                "UPDATE execution_attempts SET state = 'DONE', ended_at = ? WHERE id = ?"
                        + " AND state = 'ACTIVE' RETURNING " + ATTEMPT_COLUMNS,
                JdbcRuns::mapAttempt,
                now,
                attempt.id());
        if (done.isEmpty() && !ignoreTerminalFence) {
            throw tx.changedUnderLock("attempt " + attempt.id() + " (current, not ACTIVE)");
        }
        tx.journal(
                EventKind.ATTEMPT_DONE,
                "attempt",
                attempt.id(),
                attempt.actorId(),
                attempt.token(),
                "assignment " + attempt.assignmentId() + " → " + ended.get().state() + "; receipt " + receipt.id()
                        + (ignoreTerminalFence ? "; FAULT: terminal fence ignored" : ""));
        return new Completion(ended.get(), done.orElse(attempt), receipt);
    }

    public static Receipt insertReceipt(
            JdbcTx tx,
            Attempt attempt,
            String process,
            Outcome status,
            String failureCategory,
            boolean outcomeKnown,
            String summary)
            throws SQLException {
        return tx.one(
                        "INSERT INTO receipts (assignment_id, attempt_id, attempt_token, process_identity, status,"
                                + " failure_category, outcome_known, summary, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                                + " RETURNING " + RECEIPT_COLUMNS,
                        JdbcRuns::mapReceipt,
                        attempt.assignmentId(),
                        attempt.id(),
                        attempt.token(),
                        process,
                        status.code(),
                        failureCategory,
                        outcomeKnown,
                        summary,
                        tx.now())
                .orElseThrow();
    }

    /** Says which fence moved under a refused terminal write (the words: {@link RunRules#terminalWriteRefused}). */
    private Refusal terminalWriteRefused(JdbcTx tx, Attempt attempt, String me) throws SQLException {
        Lease lease = JdbcLeases.currentIn(tx, attempt.actorId()).orElse(null);
        if (!RunRules.leaseFenceStands(attempt, lease, me)) {
            return RunRules.terminalWriteRefused(attempt, lease, me, null, null);
        }
        Assignment a = requireAssignment(tx, attempt.assignmentId());
        Attempt current = a.currentAttempt() == null
                ? null
                : attemptIn(tx, a.currentAttempt()).orElse(null);
        return RunRules.terminalWriteRefused(attempt, lease, me, a, current);
    }

    /** Fails closed on a lease row the engine cannot have written (the rule: {@link LeaseRules#requireSane}). */
    private static void requireSane(JdbcTx tx, Lease l) throws SQLException {
        LeaseRules.requireSane(l, tx.lastToken());
    }

    // ---- operator actions ----

    /** A new CREATED assignment retrying a FAILED or BLOCKED one; at most one retry each. */
    @Override
    public Assignment retry(String assignmentId) {
        return db.write(tx -> {
            // locked where rows are: two operators retrying at once are serialised here, and the second sees the
            // first's retry
            Assignment a = lockAssignment(tx, assignmentId);
            RunRules.requireRetryable(a, null);
            Optional<String> earlier =
                    tx.one("SELECT id FROM assignments WHERE retry_of = ?", rs -> rs.getString(1), a.id());
            RunRules.requireRetryable(a, earlier.orElse(null));
            Assignment retry = insertAssignment(tx, a.actorId(), a.providerSpec(), a.workspacePolicy(), a.id());
            tx.journal(
                    EventKind.ASSIGNMENT_RETRIED,
                    "assignment",
                    retry.id(),
                    a.actorId(),
                    null,
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
            // Never before the assignment ended (SQLite V0008's assignments_acknowledged_once_after_a_failure), also
            // after a clock step back: every SET expression reads the row's old updated_at, the end. PostgreSQL's
            // guard (V0009's assignments_guard_update_login) stamps the server's own time over the value sent.
            Assignment acked = tx.one(
                            "UPDATE assignments SET acknowledged_at = "
                                    + tx.dialect().greatest()
                                    + "(?, updated_at), updated_at = ? WHERE id = ?"
                                    + " AND acknowledged_at IS NULL AND state IN ('FAILED', 'BLOCKED') RETURNING "
                                    + ASSIGNMENT_COLUMNS,
                            JdbcRuns::mapAssignment,
                            tx.now(),
                            tx.now(),
                            a.id())
                    .orElseThrow(() -> tx.changedUnderLock("assignment " + a.id()));
            tx.journal(
                    EventKind.ASSIGNMENT_ACKNOWLEDGED,
                    "assignment",
                    a.id(),
                    a.actorId(),
                    null,
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
            int n = tx.update(
                    "UPDATE assignments SET current_attempt = NULL, updated_at = ?"
                            + " WHERE id = ? AND state = 'RUNNING' AND current_attempt = ?",
                    tx.now(),
                    a.id(),
                    victim.id());
            if (n != 1) {
                throw tx.changedUnderLock("assignment " + a.id());
            }
            tx.journal(
                    EventKind.ATTEMPT_STOLEN,
                    "attempt",
                    victim.id(),
                    a.actorId(),
                    tx.processIdentity(),
                    victim.token(),
                    null,
                    null,
                    null,
                    "the fence of assignment " + a.id() + " was cleared by an operator; " + victim.processIdentity()
                            + " can no longer commit it");
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
        return db.read(tx -> tx.query(
                "SELECT " + ASSIGNMENT_COLUMNS + " FROM assignments" + " ORDER BY created_at DESC, id",
                JdbcRuns::mapAssignment));
    }

    /**
     * The actor's runnable assignments, oldest first: CREATED ones, and RUNNING ones whose current
     * attempt has expired (a takeover may run them again). Served by {@code assignments_by_actor_state}.
     */
    @Override
    public List<Assignment> runnable(String actor, int limit) {
        return db.read(tx -> tx.query(
                "SELECT " + ASSIGNMENT_COLUMNS + " FROM assignments a WHERE a.actor_id = ?"
                        + " AND (a.state = 'CREATED' OR (a.state = 'RUNNING' AND EXISTS (SELECT 1 FROM execution_attempts t"
                        + " WHERE t.id = a.current_attempt AND t.state = 'ACTIVE' AND t.expires_at <= ?)))"
                        + " ORDER BY a.created_at, a.id LIMIT ?",
                JdbcRuns::mapAssignment,
                actor,
                tx.now(),
                limit));
    }

    @Override
    public List<Attempt> attempts(String assignmentId) {
        return db.read(tx -> tx.query(
                "SELECT " + ATTEMPT_COLUMNS + " FROM execution_attempts WHERE assignment_id = ?"
                        + " ORDER BY started_at, token",
                JdbcRuns::mapAttempt,
                assignmentId));
    }

    @Override
    public Optional<Attempt> attempt(String attemptId) {
        return db.read(tx -> attemptIn(tx, attemptId));
    }

    @Override
    public Optional<Receipt> receipt(String assignmentId) {
        return db.read(tx -> tx.one(
                "SELECT " + RECEIPT_COLUMNS + " FROM receipts WHERE assignment_id = ?",
                JdbcRuns::mapReceipt,
                assignmentId));
    }

    public static Optional<Assignment> assignmentIn(JdbcTx tx, String id) throws SQLException {
        return tx.one("SELECT " + ASSIGNMENT_COLUMNS + " FROM assignments WHERE id = ?", JdbcRuns::mapAssignment, id);
    }

    public static Assignment requireAssignment(JdbcTx tx, String id) throws SQLException {
        return assignmentIn(tx, id).orElseThrow(() -> RunRules.missing(id));
    }

    /**
     * The assignment read for a change, locked until the end of {@code tx} where the backend locks rows ({@link
     * Dialect#forUpdate}); refuses an unknown one.
     */
    public static Assignment lockAssignment(JdbcTx tx, String id) throws SQLException {
        return tx.one(
                        "SELECT " + ASSIGNMENT_COLUMNS + " FROM assignments WHERE id = ?"
                                + tx.dialect().forUpdate(),
                        JdbcRuns::mapAssignment,
                        id)
                .orElseThrow(() -> RunRules.missing(id));
    }

    /** The attempt read for a change, locked as above (before its assignment, decision 0900). */
    public static Optional<Attempt> lockAttempt(JdbcTx tx, String id) throws SQLException {
        return tx.one(
                "SELECT " + ATTEMPT_COLUMNS + " FROM execution_attempts WHERE id = ?"
                        + tx.dialect().forUpdate(),
                JdbcRuns::mapAttempt,
                id);
    }

    public static Optional<Attempt> attemptIn(JdbcTx tx, String id) throws SQLException {
        return tx.one("SELECT " + ATTEMPT_COLUMNS + " FROM execution_attempts WHERE id = ?", JdbcRuns::mapAttempt, id);
    }
}
