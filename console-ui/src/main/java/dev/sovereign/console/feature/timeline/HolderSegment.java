package dev.sovereign.console.feature.timeline;

import dev.sovereign.engine.admin.ProcessRef;
import java.util.List;

/**
 * One stretch of time during which one process held an actor's lease with one token. Immutable.
 *
 * @param end        when the hold ended (release or takeover), or null while it still holds the row
 * @param expiresAt  for a hold still in the lease row: its expiry (the segment is drawn to
 *                   {@code min(now, expiresAt)}, then as an expired tail); else null
 * @param endReason  how the hold ended
 * @param renewals   times of journalled renewals (sampled, see the journal folding decision)
 * @param colour     a small index per hold (0..7), never the same as the hold just before it on its lane
 */
public record HolderSegment(
        String actor,
        ProcessRef holder,
        long token,
        long start,
        Long end,
        Long expiresAt,
        EndReason endReason,
        List<Long> renewals,
        int colour) {

    public enum EndReason {
        HOLDING,
        RELEASED,
        TAKEN_OVER,
        UNKNOWN
    }

    public HolderSegment {
        renewals = List.copyOf(renewals);
    }

    /** Where the solid (valid) part of the segment ends at {@code now}. */
    public long validUntil(long now) {
        if (end != null) {
            return end;
        }
        return expiresAt == null ? now : Math.min(now, expiresAt);
    }

    /** Whether the lease row is still there but expired at {@code now} (nobody took it over yet). */
    public boolean isExpiredAt(long now) {
        return end == null && expiresAt != null && expiresAt <= now;
    }
}
