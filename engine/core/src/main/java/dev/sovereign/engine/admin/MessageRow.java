package dev.sovereign.engine.admin;

/**
 * One mailbox message with its claim, if any. Immutable.
 *
 * @param state          {@code NEW}, {@code CLAIMED}, {@code DONE} or {@code DEAD}
 * @param claimProcess   the claiming process while CLAIMED, else null
 * @param claimToken     the claim's fencing token while CLAIMED, else null
 * @param claimExpiresAt when the claim expires while CLAIMED, else null
 */
public record MessageRow(
        String id,
        String sender,
        String recipient,
        String subject,
        String state,
        String claimActor,
        ProcessRef claimProcess,
        Long claimToken,
        Long claimExpiresAt,
        int retryCount,
        int maxRetries,
        long createdAt,
        long updatedAt) {

    /** A CLAIMED message whose claim has expired: the supervisor's sweep will put it back to NEW. */
    public boolean isClaimExpiredAt(long now) {
        return "CLAIMED".equals(state) && claimExpiresAt != null && claimExpiresAt <= now;
    }

    public long claimRemainingAt(long now) {
        return claimExpiresAt == null ? 0 : Math.max(0, claimExpiresAt - now);
    }
}
