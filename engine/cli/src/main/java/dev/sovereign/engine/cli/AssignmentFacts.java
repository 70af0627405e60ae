package dev.sovereign.engine.cli;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.AssignmentRow;
import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.run.Receipt;
import dev.sovereign.engine.run.RunFolders;
import dev.sovereign.engine.run.RunResult;
import java.nio.file.Path;
import java.util.List;

/**
 * An assignment with what an operator asks next about it: the token of its current attempt, how many
 * attempts it had, its receipt, and which assignment retries it. Read with a few separate reads, so
 * the parts may be a moment apart (the CLI prints, it decides nothing from them). Immutable.
 *
 * @param currentAttemptToken the token of the attempt {@code current_attempt} points at, or null
 * @param attempts            how many attempts it had, or null when the ledger could not be read
 * @param receipt             the canonical receipt, or null while there is none
 * @param retriedBy           the assignment whose {@code retry_of} is this one, or null
 * @param outputDir           the output folder of the attempt the receipt names, or null without a receipt
 */
record AssignmentFacts(
        Assignment assignment,
        Long currentAttemptToken,
        Integer attempts,
        Receipt receipt,
        String retriedBy,
        Path outputDir) {

    /** Reads the facts of {@code a}; {@code all} is the assignment list to look for a retry in. */
    static AssignmentFacts read(Engine engine, Assignment a, List<Assignment> all) {
        List<Attempt> attempts = engine.runs().attempts(a.id());
        Long token = a.currentAttempt() == null
                ? null
                : attempts.stream()
                        .filter(x -> x.id().equals(a.currentAttempt()))
                        .map(Attempt::token)
                        .findFirst()
                        .orElse(null);
        String retriedBy = all.stream()
                .filter(x -> a.id().equals(x.retryOf()))
                .map(Assignment::id)
                .findFirst()
                .orElse(null);
        Receipt receipt = engine.runs().receipt(a.id()).orElse(null);
        Path output = receipt == null ? null : RunFolders.output(engine.runs().workspace(a.id()), receipt.attemptId());
        return new AssignmentFacts(a, token, attempts.size(), receipt, retriedBy, output);
    }

    static AssignmentFacts read(Engine engine, Assignment a) {
        return read(engine, a, engine.runs().list());
    }

    /**
     * The facts of a committed run from what the run itself returned, without reading the ledger (which could
     * not be read after the commit): its attempt, its receipt; the attempt count and a retry are unknown.
     */
    static AssignmentFacts committed(RunResult r) {
        Path output = r.receipt() == null
                ? null
                : RunFolders.output(r.workspace(), r.receipt().attemptId());
        return new AssignmentFacts(r.assignment(), null, null, r.receipt(), null, output);
    }

    /** The supervisor recovered it after its process died ({@code failed / worker_lost}). */
    boolean isWorkerLost() {
        return receipt != null && Receipt.WORKER_LOST.equals(receipt.failureCategory());
    }

    /**
     * A run that ended FAILED or BLOCKED that nobody retried or acknowledged: an operator should look. The same rule
     * as the console's ({@link AssignmentRow#needsOperator(String, Long, String)}).
     */
    boolean needsOperator() {
        return AssignmentRow.needsOperator(assignment.state().name(), assignment.acknowledgedAt(), retriedBy);
    }

    /** {@code completed}, {@code failed (worker_lost)}, or {@code -} without a receipt. */
    String receiptText() {
        if (receipt == null) {
            return "-";
        }
        return receipt.status().code()
                + (receipt.failureCategory() == null ? "" : " (" + receipt.failureCategory() + ")");
    }
}
