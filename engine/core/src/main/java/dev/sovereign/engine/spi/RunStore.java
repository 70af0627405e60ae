package dev.sovereign.engine.spi;

import dev.sovereign.engine.provider.Outcome;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.run.Receipt;
import java.util.List;
import java.util.Optional;

/**
 * The ledger side of assignments, execution attempts and receipts, as a backend provides it. Every
 * state change is ONE compare-and-set inside one write transaction, with any token it needs minted in
 * that same transaction; a refusal is a {@link dev.sovereign.engine.base.Refusal} and nothing is written
 * (fencing refusals are journalled as REJECTED). No files and no providers: the order of a run
 * (SPEC 6) is the core's {@code AssignmentRunner}. Implementations are thread-safe.
 */
public interface RunStore {
    /** What a committed terminal write produced: the assignment, the attempt (DONE) and the receipt. */
    record Completion(Assignment assignment, Attempt attempt, Receipt receipt) {
    }

    /** Inserts a CREATED assignment; {@code workspacePolicy} null means the actor's own. */
    Assignment assign(String actor, String providerSpec, String workspacePolicy);

    /**
     * Journals a refusal the core decided outside a transaction (a run-time policy such as the command
     * allow-list) as a REJECTED event and returns it to be thrown; a failed journal write becomes the
     * refusal's warning instead of replacing it (decision 0109).
     */
    dev.sovereign.engine.base.Refusal journalRefusal(dev.sovereign.engine.base.Refusal refusal);

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
