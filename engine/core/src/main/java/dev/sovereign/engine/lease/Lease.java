package dev.sovereign.engine.lease;

/**
 * "Process {@code process} may host actor {@code actor} until {@code expiresAt}", proven by
 * {@code token}. A lease value is a snapshot: whether it is still current is decided only by the
 * database, at write time, by comparing tokens.
 */
public record Lease(
        String actor,
        String process,
        long token,
        long ttlMs,
        long acquiredAt,
        long renewedAt,
        long expiresAt) {

    /** Expiry is derived, never stored: a lease is expired when {@code expiresAt <= now}. */
    public boolean isExpiredAt(long now) {
        return expiresAt <= now;
    }
}
