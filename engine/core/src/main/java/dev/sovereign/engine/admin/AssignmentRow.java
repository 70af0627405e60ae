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

    /** A worker-lost failure nobody has retried or acknowledged yet: an operator should look. */
    public boolean needsOperator() {
        return isWorkerLost() && acknowledgedAt == null && retriedBy == null;
    }

    public boolean isTerminal() {
        return state.equals("COMPLETED") || state.equals("BLOCKED") || state.equals("FAILED");
    }
}
