package dev.sovereign.engine.admin;

/**
 * The canonical receipt of one attempt. Immutable.
 *
 * @param status          {@code completed}, {@code blocked} or {@code failed}
 * @param failureCategory why it failed ({@code worker_lost} when the supervisor recovered it), or null
 * @param outcomeKnown    false when nobody knows what the work did (a recovered attempt)
 */
public record ReceiptRow(long id, String assignmentId, String attemptId, long attemptToken, String processIdentity,
                         String status, String failureCategory, boolean outcomeKnown, String summary,
                         long createdAt) {

    /** The failure category the supervisor writes for an attempt whose process died. */
    public static final String WORKER_LOST = "worker_lost";

    /** True for the supervisor's receipt of an attempt whose process died mid-run. */
    public boolean isWorkerLost() {
        return WORKER_LOST.equals(failureCategory);
    }
}
