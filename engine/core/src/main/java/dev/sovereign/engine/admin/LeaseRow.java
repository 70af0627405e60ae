package dev.sovereign.engine.admin;

import java.util.Objects;

/**
 * One actor and its lease, if any, as read in one snapshot. Expiry is derived from the stored
 * {@code expiresAt} against a caller's {@code now} (the console ticks its countdowns from this row
 * without re-reading). Immutable.
 *
 * @param actor      the actor id; never null
 * @param holder     the holding process, or null when the actor is {@linkplain #isFree() free}
 * @param token      the lease's fencing token (0 when free)
 * @param ttlMs      the lease's real TTL in milliseconds, as granted or last renewed (0 when free)
 * @param acquiredAt when the holder acquired (or took over) the lease, epoch ms
 * @param renewedAt  the holder's last renewal, epoch ms
 * @param expiresAt  when the lease expires unless renewed, epoch ms
 * @param renewals   how many times this holder renewed it (heartbeats included)
 */
public record LeaseRow(
        String actor,
        ProcessRef holder,
        long token,
        long ttlMs,
        long acquiredAt,
        long renewedAt,
        long expiresAt,
        long renewals) {

    /** {@link #stateAt} calls a lease EXPIRING when less than {@code ttl / EXPIRING_DIVISOR} is left. */
    public static final int EXPIRING_DIVISOR = 3;

    public LeaseRow {
        Objects.requireNonNull(actor, "actor");
    }

    public static LeaseRow free(String actor) {
        return new LeaseRow(actor, null, 0, 0, 0, 0, 0, 0);
    }

    public boolean isFree() {
        return holder == null;
    }

    /** live / expiring / expired / free at {@code now} (epoch ms), against this lease's own TTL. */
    public LeaseState stateAt(long now) {
        if (isFree()) {
            return LeaseState.FREE;
        }
        long left = expiresAt - now;
        if (left <= 0) {
            return LeaseState.EXPIRED;
        }
        return left * EXPIRING_DIVISOR < ttlMs ? LeaseState.EXPIRING : LeaseState.LIVE;
    }

    /** Milliseconds until expiry at {@code now}, never negative (0 when free or expired). */
    public long remainingAt(long now) {
        return isFree() ? 0 : Math.max(0, expiresAt - now);
    }

    /** The fraction of the TTL still left at {@code now}, in [0, 1] (0 when free). */
    public double fractionRemainingAt(long now) {
        if (isFree() || ttlMs <= 0) {
            return 0;
        }
        return Math.max(0, Math.min(1, (double) (expiresAt - now) / ttlMs));
    }
}
