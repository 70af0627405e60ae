package dev.sovereign.engine.run;

/**
 * "Process {@code processIdentity} may write assignment {@code assignmentId}'s terminal state",
 * proven by {@code token} and bound to the actor-lease token {@code leaseToken} it was started under.
 * A snapshot read from the ledger; immutable.
 */
public record Attempt(
        String id,
        String assignmentId,
        String actorId,
        String processIdentity,
        long token,
        long leaseToken,
        AttemptState state,
        long ttlMs,
        long startedAt,
        long renewedAt,
        long expiresAt,
        Long endedAt) {

    /** Expiry is derived, never stored: expired when {@code expiresAt <= now}. */
    public boolean isExpiredAt(long now) {
        return expiresAt <= now;
    }
}
