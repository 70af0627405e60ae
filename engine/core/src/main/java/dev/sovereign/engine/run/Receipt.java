package dev.sovereign.engine.run;

import dev.sovereign.engine.provider.Outcome;

/**
 * The canonical record of what one attempt produced; at most one per assignment, immutable in the
 * ledger (triggers refuse UPDATE and DELETE).
 *
 * @param failureCategory for {@code failed}: {@code worker_lost} (recovered by a supervisor),
 *     {@code cancelled}, {@code exit_status}, {@code provider_error}, a workspace refusal category, ...
 * @param processIdentity who wrote the receipt: the attempt's own process for a terminal write, the
 *     recovering supervisor for a {@code worker_lost} receipt (the lost process is the attempt's, named in
 *     the summary; docs/decisions/0111)
 * @param outcomeKnown    false when nobody knows what the attempt did (a {@code worker_lost} recovery
 *     never guesses success)
 */
public record Receipt(
        long id,
        String assignmentId,
        String attemptId,
        long attemptToken,
        String processIdentity,
        Outcome status,
        String failureCategory,
        boolean outcomeKnown,
        String summary,
        long createdAt) {

    /** The failure category of a supervisor recovery. */
    public static final String WORKER_LOST = "worker_lost";
}
