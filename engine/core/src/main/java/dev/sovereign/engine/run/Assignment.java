package dev.sovereign.engine.run;

/**
 * One actor's job: a provider spec, a workspace policy and a state. A snapshot read from the
 * ledger; immutable.
 *
 * @param currentAttempt the attempt that alone may write the terminal state (the fence); null unless RUNNING,
 *     and null under RUNNING when an operator stole the fence
 * @param retryOf        the assignment this one retries, or null
 * @param acknowledgedAt when an operator acknowledged a failure of this assignment, or null
 */
public record Assignment(
        String id,
        String actorId,
        String providerSpec,
        String workspacePolicy,
        AssignmentState state,
        String currentAttempt,
        String retryOf,
        Long acknowledgedAt,
        long createdAt,
        long updatedAt) {}
