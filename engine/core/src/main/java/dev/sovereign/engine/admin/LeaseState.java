package dev.sovereign.engine.admin;

/**
 * How an actor's lease looks at one instant, derived from {@code expires_at} and the lease's own TTL
 * (never stored): see {@link LeaseRow#stateAt(long)}.
 */
public enum LeaseState {
    /** Held, with at least a third of its TTL left: a healthy heartbeat keeps it here. */
    LIVE,
    /** Held, but less than a third of its TTL is left: the holder has missed renewals. */
    EXPIRING,
    /** The row is still there but {@code expires_at <= now}: any process may take it over. */
    EXPIRED,
    /** No row: nobody hosts the actor. */
    FREE
}
