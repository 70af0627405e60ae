package dev.sovereign.engine.rules;

import static dev.sovereign.engine.base.RefusalCategory.ACTOR_LEASE_LOST;
import static dev.sovereign.engine.base.RefusalCategory.ASSIGNMENT_MISSING;
import static dev.sovereign.engine.base.RefusalCategory.ASSIGNMENT_NOT_RETRYABLE;
import static dev.sovereign.engine.base.RefusalCategory.ASSIGNMENT_NOT_RUNNABLE;
import static dev.sovereign.engine.base.RefusalCategory.EXECUTION_ATTEMPT_HELD;
import static dev.sovereign.engine.base.RefusalCategory.EXECUTION_ATTEMPT_LOST;
import static dev.sovereign.engine.base.RefusalCategory.INVALID_ARGUMENT;

import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.AssignmentState;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.run.AttemptState;
import java.time.Instant;

/**
 * The rules of assignments and execution attempts (contract §5, 6): which assignment may run, when an attempt
 * may start under a lease, which attempt's terminal write may commit, and the operator actions' limits.
 * A backend reads the rows inside its write transaction, asks these, and performs its one compare-and-set.
 */
public final class RunRules {
    private RunRules() {}

    /** {@code assignment_missing}. */
    public static Refusal missing(String id) {
        return Refusal.of(
                        ASSIGNMENT_MISSING,
                        "There is no assignment '" + id + "'; list them with 'sovereign assignments'.")
                .resource("assignment", String.valueOf(id))
                .build();
    }

    /** {@code assignment_not_runnable}, saying why. */
    public static Refusal notRunnable(Assignment a, String why) {
        return Refusal.of(ASSIGNMENT_NOT_RUNNABLE, "Assignment " + a.id() + " cannot run: " + why + ".")
                .resource("assignment", a.id())
                .actor(a.actorId())
                .build();
    }

    /**
     * Step 1 of a run: only a CREATED assignment, or a RUNNING one whose pointer names an attempt (checked
     * further by {@link #requireSupersedable}), may run.
     */
    public static void requireRunnableState(Assignment a) {
        if (a.state() == AssignmentState.RUNNING) {
            if (a.currentAttempt() == null) {
                throw notRunnable(
                        a,
                        "it is RUNNING but its attempt pointer was cleared by an operator; wait for the"
                                + " supervisor to recover it, then retry it");
            }
        } else if (a.state() != AssignmentState.CREATED) {
            throw notRunnable(a, "it has already ended as " + a.state() + "; retry it to run it again");
        }
    }

    /**
     * A RUNNING assignment may be run again only when its current attempt ({@code current}, the row its
     * pointer names) is no longer a live ACTIVE attempt; else {@code execution_attempt_held}.
     */
    public static void requireSupersedable(Assignment a, Attempt current, long now) {
        if (current.state() == AttemptState.ACTIVE && !current.isExpiredAt(now)) {
            throw Refusal.of(
                            EXECUTION_ATTEMPT_HELD,
                            "Assignment " + a.id() + " is being run by attempt "
                                    + current.id() + " of " + current.processIdentity() + " (token " + current.token()
                                    + ") until " + Instant.ofEpochMilli(current.expiresAt())
                                    + "; wait for it to finish or expire.")
                    .resource("assignment", a.id())
                    .actor(a.actorId())
                    .current(current.token())
                    .build();
        }
    }

    /**
     * Step 3 of a run: an attempt may start only under the actor's current, unexpired lease held by this
     * process with the presented token; else {@code actor_lease_lost}, saying what became of it.
     */
    public static void requireLeaseForAttempt(Assignment a, long presented, Lease current, String me, long now) {
        if (current != null
                && current.token() == presented
                && current.process().equals(me)
                && !current.isExpiredAt(now)) {
            return;
        }
        String why;
        if (current == null) {
            why = "no process holds the lease of actor " + a.actorId() + " now";
        } else if (current.token() == presented && current.process().equals(me)) {
            why = "that lease expired at " + Instant.ofEpochMilli(current.expiresAt());
        } else {
            why = "the lease of actor " + a.actorId() + " is now held by "
                    + (current.process().equals(me) ? "this process" : current.process())
                    + " with token " + current.token();
        }
        throw Refusal.of(
                        ACTOR_LEASE_LOST,
                        "Cannot start an attempt for assignment " + a.id() + " under actor lease token " + presented
                                + ": " + why + "; acquire the lease again.")
                .resource("assignment", a.id())
                .actor(a.actorId())
                .presented(presented)
                .current(current == null ? null : current.token())
                .build();
    }

    /** The assignment state a provider's outcome ends in. */
    public static AssignmentState terminalState(Outcome status) {
        return switch (status) {
            case COMPLETED -> AssignmentState.COMPLETED;
            case BLOCKED -> AssignmentState.BLOCKED;
            case FAILED -> AssignmentState.FAILED;
        };
    }

    /**
     * Whether the lease fence of a terminal write still stands: the actor's lease carries the attempt's bound
     * token and this process. When it does not, the refusal is {@code actor_lease_lost}; when it does, the
     * attempt lost the assignment's pointer ({@code execution_attempt_lost}).
     */
    public static boolean leaseFenceStands(Attempt attempt, Lease lease, String me) {
        return lease != null
                && lease.token() == attempt.leaseToken()
                && lease.process().equals(me);
    }

    /**
     * Says which fence moved under a refused terminal write (contract §6 step 6), for the refusal and its
     * REJECTED row. {@code assignment} and {@code current} (the attempt its pointer names, or null) are read
     * only when the lease fence still stands.
     */
    public static Refusal terminalWriteRefused(
            Attempt attempt, Lease lease, String me, Assignment assignment, Attempt current) {
        String what = "The terminal write of assignment " + attempt.assignmentId() + " by attempt " + attempt.id()
                + " (token " + attempt.token() + ") was refused and nothing was written: ";
        if (!leaseFenceStands(attempt, lease, me)) {
            String now = lease == null
                    ? "no process holds it now"
                    : "it is now held by " + lease.process() + " with token " + lease.token();
            return Refusal.of(
                            ACTOR_LEASE_LOST,
                            what + "the lease of actor " + attempt.actorId()
                                    + " it was bound to (token " + attempt.leaseToken()
                                    + ") is no longer this process's ("
                                    + now + "). Its result is not canonical; see the assignment's current state.")
                    .resource("assignment", attempt.assignmentId())
                    .actor(attempt.actorId())
                    .presented(attempt.leaseToken())
                    .current(lease == null ? null : lease.token())
                    .build();
        }
        String now = current != null
                ? "the current attempt is " + current.id() + " with token " + current.token()
                : "the assignment has no current attempt and is " + assignment.state();
        return Refusal.of(
                        EXECUTION_ATTEMPT_LOST,
                        what + "it is no longer the assignment's current attempt (" + now
                                + "). Its result is not canonical; see the assignment's current state.")
                .resource("assignment", attempt.assignmentId())
                .actor(attempt.actorId())
                .presented(attempt.token())
                .current(current == null ? null : current.token())
                .build();
    }

    /**
     * A heartbeat renewal of an attempt that matched no row, or null when nothing was refused (the attempt is
     * gone or ended normally: its terminal write committed). {@code lease} is the actor's lease row now and
     * {@code assignment} the attempt's assignment (either may be null).
     */
    public static Refusal beatRefused(Attempt a, long token, Lease lease, Assignment assignment, String me) {
        if (a == null || a.state() == AttemptState.DONE) {
            return null;
        }
        String prefix = "The heartbeat renewal of attempt " + a.id() + " (token " + token + ") of assignment "
                + a.assignmentId() + " was refused: ";
        if (lease == null || lease.token() != a.leaseToken() || !lease.process().equals(me)) {
            String now = lease == null
                    ? "no process holds it now"
                    : "it is now held by " + lease.process() + " with token " + lease.token();
            return Refusal.of(
                            ACTOR_LEASE_LOST,
                            prefix + "the lease of actor " + a.actorId()
                                    + " it was bound to (token " + a.leaseToken() + ") is no longer this process's ("
                                    + now
                                    + "); its run was cancelled and its result can no longer commit.")
                    .resource("assignment", a.assignmentId())
                    .actor(a.actorId())
                    .presented(a.leaseToken())
                    .current(lease == null ? null : lease.token())
                    .build();
        }
        String current = assignment == null || assignment.currentAttempt() == null
                ? "the assignment has no current attempt"
                : "the current attempt is " + assignment.currentAttempt();
        return Refusal.of(
                        EXECUTION_ATTEMPT_LOST,
                        prefix + "the attempt is " + a.state() + " and " + current
                                + "; its run was cancelled and its result can no longer commit.")
                .resource("assignment", a.assignmentId())
                .actor(a.actorId())
                .presented(token)
                .build();
    }

    /** Only a FAILED or BLOCKED assignment can be retried, and at most once ({@code earlierRetry} null). */
    public static void requireRetryable(Assignment a, String earlierRetry) {
        if (a.state() != AssignmentState.FAILED && a.state() != AssignmentState.BLOCKED) {
            throw Refusal.of(
                            ASSIGNMENT_NOT_RETRYABLE,
                            "Assignment " + a.id() + " is " + a.state()
                                    + "; only a FAILED or BLOCKED assignment can be retried.")
                    .resource("assignment", a.id())
                    .actor(a.actorId())
                    .build();
        }
        if (earlierRetry != null) {
            throw Refusal.of(
                            ASSIGNMENT_NOT_RETRYABLE,
                            "Assignment " + a.id() + " was already retried as " + earlierRetry
                                    + "; retry that one instead.")
                    .resource("assignment", a.id())
                    .actor(a.actorId())
                    .build();
        }
    }

    /** Only a FAILED or BLOCKED assignment can be acknowledged (a second time changes nothing). */
    public static void requireAcknowledgeable(Assignment a) {
        if (a.state() != AssignmentState.FAILED && a.state() != AssignmentState.BLOCKED) {
            throw Refusal.of(
                            INVALID_ARGUMENT,
                            "Assignment " + a.id() + " is " + a.state()
                                    + "; only a FAILED or BLOCKED assignment can be acknowledged.")
                    .resource("assignment", a.id())
                    .actor(a.actorId())
                    .build();
        }
    }

    /** The lab's steal needs a RUNNING assignment with an attempt pointer to clear. */
    public static void requireStealable(Assignment a) {
        if (a.state() != AssignmentState.RUNNING || a.currentAttempt() == null) {
            throw Refusal.of(
                            INVALID_ARGUMENT,
                            "Assignment " + a.id() + " is " + a.state()
                                    + " with no current attempt; there is no fence to steal.")
                    .resource("assignment", a.id())
                    .actor(a.actorId())
                    .build();
        }
    }
}
