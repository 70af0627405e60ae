package dev.sovereign.engine.lease;

/**
 * How a granted lease stays alive (docs/decisions/0116).
 *
 * <p>{@link #HEARTBEAT}: attached to its holder's session, it lives as long as the holder's engine beats, and closing
 * the engine releases it — what hosting an actor wants. {@link #TTL}: it ends at its own expiry unless its holder
 * {@linkplain ActorLeases#extend extends} it, whether the holder's engine beats or not, and closing the engine leaves
 * it to expire — what a lock with a deadline wants (ShedLock's {@code lockAtMostFor}). Either way safety rests on the
 * token alone: time only decides when another process may take the lease over.
 */
public enum LeaseKeeping {
    /** Kept alive by the holder's heartbeat; released when its engine closes. */
    HEARTBEAT,
    /** Ends at its TTL unless extended; left to expire when its engine closes. */
    TTL
}
