package dev.sovereign.engine.admin;

/**
 * One execution attempt. Immutable.
 *
 * @param token      the attempt's own fencing token
 * @param leaseToken the actor-lease token it was acquired under
 * @param state      {@code ACTIVE}, {@code DONE}, {@code SUPERSEDED}, {@code RECOVERED} or {@code LOST}
 * @param current    whether the assignment's {@code current_attempt} points at it
 * @param endedAt    when it left ACTIVE, or null
 */
public record AttemptRow(
        String id,
        String assignmentId,
        String actor,
        ProcessRef process,
        long token,
        long leaseToken,
        String state,
        boolean current,
        long ttlMs,
        long startedAt,
        long renewedAt,
        long expiresAt,
        Long endedAt) {

    /** An ACTIVE attempt past its expiry: the supervisor will recover it. */
    public boolean isAbandonedAt(long now) {
        return state.equals("ACTIVE") && expiresAt <= now;
    }
}
