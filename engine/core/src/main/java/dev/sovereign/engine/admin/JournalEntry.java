package dev.sovereign.engine.admin;

/**
 * One fence-journal event, with the process named and a plain-language sentence. Immutable.
 *
 * <p>{@code kind} is the stored kind name ({@code LEASE_TAKEN_OVER}, {@code REJECTED}, ...): kept as a
 * string so a console built against this version still shows kinds a newer engine adds.
 *
 * @param seq            total order of the journal (clocks may be skewed; seq never is)
 * @param at             the writer's clock inside its transaction, epoch ms (display only)
 * @param process        the process that wrote (or was refused), or null
 * @param token          the token granted or used, or null
 * @param presentedToken for REJECTED: the token the refused writer presented, or null
 * @param currentToken   for REJECTED: the token that was current instead, or null
 * @param category       for REJECTED: the refusal category code
 * @param detail         the writer's own words (for REJECTED: the refusal message)
 * @param sentence       what happened, in words an operator reads at a glance
 */
public record JournalEntry(
        long seq,
        long at,
        String kind,
        String resourceType,
        String resourceId,
        String actor,
        ProcessRef process,
        Long token,
        Long presentedToken,
        Long currentToken,
        String category,
        String detail,
        String sentence) {

    public static final String REJECTED = "REJECTED";

    public boolean isRejection() {
        return REJECTED.equals(kind);
    }

    /** The actor this event is about: its actor column, or the resource itself for actor events. */
    public String actorLane() {
        if (actor != null) {
            return actor;
        }
        return "actor".equals(resourceType) ? resourceId : null;
    }
}
