package dev.sovereign.engine.lease;

/**
 * "Process {@code process} may host actor {@code actor} until {@code expiresAt}", proven by
 * {@code token}. A lease value is a snapshot: whether it is still current is decided only by the
 * database, at write time, by comparing tokens.
 *
 * <p>An {@code attached} lease is kept alive by its holder's heartbeat (its session, decision 0509):
 * {@code renewedAt} and {@code expiresAt} are then already the effective ones, counted from the
 * holder's last beat as the database read them, so a reader never has to add anything.
 */
public record Lease(
        String actor,
        String process,
        long token,
        long ttlMs,
        long acquiredAt,
        long renewedAt,
        long expiresAt,
        boolean attached) {

    /** A lease that is not attached to its holder's session: it lives until its own {@code expiresAt}. */
    public Lease(
            String actor, String process, long token, long ttlMs, long acquiredAt, long renewedAt, long expiresAt) {
        this(actor, process, token, ttlMs, acquiredAt, renewedAt, expiresAt, false);
    }

    /**
     * What its holder believes of this lease after a heartbeat at {@code beat} kept it (decision 0509): renewed at
     * the beat, expiring a TTL after it, never earlier than before, attached.
     */
    public Lease keptAliveAt(long beat) {
        return new Lease(
                actor,
                process,
                token,
                ttlMs,
                acquiredAt,
                Math.max(renewedAt, beat),
                Math.max(expiresAt, beat + ttlMs),
                true);
    }

    /** Expiry is derived, never stored: a lease is expired when {@code expiresAt <= now}. */
    public boolean isExpiredAt(long now) {
        return expiresAt <= now;
    }
}
