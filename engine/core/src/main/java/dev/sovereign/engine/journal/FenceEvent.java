package dev.sovereign.engine.journal;

/**
 * One row of the append-only fence journal. {@code seq} orders events totally; {@code at} is the
 * writer's clock reading inside its transaction (display only: clocks may be skewed, seq never is).
 *
 * @param resourceType {@code actor}, {@code attempt}, {@code assignment}, {@code message} or {@code process}
 * @param token        the token granted or used by this event, if any
 * @param presentedToken for {@code REJECTED}: the token the refused writer presented
 * @param currentToken   for {@code REJECTED}: the token that was current instead
 * @param category     for {@code REJECTED}: the refusal category's code
 */
public record FenceEvent(
        long seq,
        long at,
        EventKind kind,
        String resourceType,
        String resourceId,
        String actorId,
        String processIdentity,
        Long token,
        Long presentedToken,
        Long currentToken,
        String category,
        String detail) {}
