package dev.sovereign.engine.spi;

import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.run.Receipt;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The ledger side of assignments, execution attempts and receipts, as a backend provides it. Every
 * state change is ONE compare-and-set inside one write transaction, with any token it needs minted in
 * that same transaction; a refusal is a {@link dev.sovereign.engine.base.Refusal} and nothing is written
 * (fencing refusals are journalled as REJECTED). No files and no providers: the order of a run
 * (contract §6) is the core's {@code AssignmentRunner}. Implementations are thread-safe.
 */
public interface RunStore {
    /**
     * What a committed terminal write produced: the assignment, the attempt (DONE) and the receipt; and
     * whether the same transaction also released the actor lease ({@link #finishReleasingTheLease} only).
     */
    record Completion(Assignment assignment, Attempt attempt, Receipt receipt, boolean leaseReleased) {
        public Completion(Assignment assignment, Attempt attempt, Receipt receipt) {
            this(assignment, attempt, receipt, false);
        }
    }

    /** What {@link #startAttemptUnderTheLease} committed: the actor lease (acquired or renewed) and the attempt. */
    record StartedAttempt(Lease lease, Attempt attempt) {}

    /** Inserts a CREATED assignment; {@code workspacePolicy} null means the actor's own. */
    Assignment assign(String actor, String providerSpec, String workspacePolicy);

    /**
     * Journals a refusal the core decided outside a transaction (a run-time policy such as the command
     * allow-list) as a REJECTED event and returns it to be thrown; a failed journal write becomes the
     * refusal's warning instead of replacing it (decision 0109).
     */
    Refusal journalRefusal(Refusal refusal);

    /** Step 1 of a run, read-only: the assignment exists and is runnable, its actor and policy known. */
    Assignment loadRunnable(String assignmentId);

    /**
     * Step 3, one transaction: re-verifies that {@code leaseToken} is the actor's current unexpired lease
     * held by this process, refuses a live attempt, supersedes an expired one, mints the attempt token,
     * inserts the attempt bound to {@code leaseToken}, points {@code current_attempt} at it, sets RUNNING.
     */
    Attempt startAttempt(String assignmentId, long leaseToken, long ttlMs);

    /**
     * Step 6, the terminal write, one transaction: moves the assignment to its terminal state only where
     * {@code current_attempt} is still this attempt AND the actor lease still carries the attempt's bound
     * token and this process; then the receipt, attempt DONE and the events. Else refuses and writes nothing.
     */
    Completion finish(Attempt attempt, Outcome status, String failureCategory, boolean outcomeKnown, String summary);

    /**
     * Whether this backend writes a run in fewer transactions (issue 16, decision 0508):
     * {@link #startAttemptUnderTheLease} and {@link #finishReleasingTheLease}. False (the default): the core
     * runs contract §6 as separate transactions — the lease ({@code acquireOrRenewKeepingTtl}), {@link #startAttempt},
     * {@link #finish}, the release — which is the same contract, one commit slower each.
     */
    default boolean writesRunsInFewerTransactions() {
        return false;
    }

    /**
     * Steps 2 and 3 of a run in ONE transaction (only when {@link #writesRunsInFewerTransactions}): exactly
     * what {@code ActorLeases.acquireOrRenewKeepingTtl(actor, leaseTtlIfAcquired)} for the assignment's actor
     * and then {@link #startAttempt} with the token it got would write, each part still its own
     * compare-and-set and its own journal rows in the same order. A refusal of either part rolls back both:
     * no lease taken or renewed, no attempt, and only the refusal is journalled. The lease is tracked in
     * {@link Grants} once committed (the attempt is the caller's to track, as after {@link #startAttempt}).
     */
    default StartedAttempt startAttemptUnderTheLease(String assignmentId, Duration leaseTtlIfAcquired, long ttlMs) {
        throw new UnsupportedOperationException("this backend writes a run's lease and attempt separately");
    }

    /**
     * Steps 6 and 8 in ONE transaction (only when {@link #writesRunsInFewerTransactions}): {@link #finish},
     * and, after its terminal write succeeded, the release of the actor lease the attempt is bound to
     * (compare-and-set on this process and that token, journalled {@code LEASE_RELEASED}), for a caller that
     * acquired the lease for its run and is its last user (decision 0101). The release cannot turn a
     * committed outcome into a failure (decision 0109): should it find no row to release, the terminal write
     * commits alone and {@link Completion#leaseReleased()} is false (the caller then releases as before).
     * A refused terminal write rolls back everything and releases nothing.
     */
    default Completion finishReleasingTheLease(
            Attempt attempt, Outcome status, String failureCategory, boolean outcomeKnown, String summary) {
        throw new UnsupportedOperationException("this backend writes a run's terminal state and release separately");
    }

    Assignment retry(String assignmentId);

    Assignment acknowledge(String assignmentId);

    Attempt stealFence(String assignmentId);

    Optional<Assignment> get(String assignmentId);

    List<Assignment> list();

    List<Assignment> runnable(String actor, int limit);

    List<Attempt> attempts(String assignmentId);

    Optional<Attempt> attempt(String attemptId);

    Optional<Receipt> receipt(String assignmentId);
}
