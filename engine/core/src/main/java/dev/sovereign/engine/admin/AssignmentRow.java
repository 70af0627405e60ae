package dev.sovereign.engine.admin;

import java.util.Objects;

/**
 * One assignment with its receipt, as read in one snapshot. Immutable.
 *
 * @param state               {@code CREATED}, {@code RUNNING}, {@code COMPLETED}, {@code BLOCKED} or {@code FAILED}
 * @param currentAttempt      the attempt the fence points at (only while RUNNING), or null
 * @param currentAttemptToken that attempt's token, or null
 * @param retryOf             the assignment this one retries, or null
 * @param retriedBy           the assignment that retries this one, or null
 * @param acknowledgedAt      when an operator acknowledged a failure, or null
 * @param attempts            how many attempts were ever made
 * @param receipt             the canonical receipt, or null while none exists
 */
public record AssignmentRow(
        String id,
        String actor,
        String providerSpec,
        String workspacePolicy,
        String state,
        String currentAttempt,
        Long currentAttemptToken,
        String retryOf,
        String retriedBy,
        Long acknowledgedAt,
        long createdAt,
        long updatedAt,
        int attempts,
        ReceiptRow receipt) {

    public AssignmentRow {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(state, "state");
    }

    /** The supervisor recovered this assignment's attempt after its process died. */
    public boolean isWorkerLost() {
        return receipt != null && receipt.isWorkerLost();
    }

    /**
     * A run that ended FAILED or BLOCKED (worker-lost or not) that nobody has retried or acknowledged yet: an
     * operator should look. The one rule the console's alerts, its Runs page and its navigation all count by
     * ({@link #needsOperator(String, Long, String)}); the ledger counts it the same way ({@link
     * LedgerCounts#needsOperator()}).
     */
    public boolean needsOperator() {
        return needsOperator(state, acknowledgedAt, retriedBy);
    }

    /**
     * Whether a run in {@code state}, acknowledged at {@code acknowledgedAt} (null: never) and retried by {@code
     * retriedBy} (null: never), needs an operator (issue 31): it ended FAILED or BLOCKED — the operator's two
     * answers, retry and acknowledge, are for exactly those — and has had neither answer. A worker-lost run is a
     * FAILED one; a run that completed, or has not ended, needs nobody.
     */
    public static boolean needsOperator(String state, Long acknowledgedAt, String retriedBy) {
        return ("FAILED".equals(state) || "BLOCKED".equals(state)) && acknowledgedAt == null && retriedBy == null;
    }

    public boolean isTerminal() {
        return state.equals("COMPLETED") || state.equals("BLOCKED") || state.equals("FAILED");
    }
}
