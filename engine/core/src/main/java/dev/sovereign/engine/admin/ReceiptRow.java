package dev.sovereign.engine.admin;

import dev.sovereign.engine.run.RunFolders;
import java.nio.file.Path;

/**
 * The canonical receipt of one attempt. Immutable.
 *
 * @param status          {@code completed}, {@code blocked} or {@code failed}
 * @param failureCategory why it failed ({@code worker_lost} when the supervisor recovered it), or null
 * @param outcomeKnown    false when nobody knows what the work did (a recovered attempt)
 * @param outputDir       the output folder of the attempt this receipt names,
 *                        {@code <dataDirectory>/runs/<assignment>/<attempt>/output}: derived from the names,
 *                        not stored, so it may be missing on disk (a worker that died before preparing it, a
 *                        data directory elsewhere); the only folder that holds the assignment's canonical output
 * @param fenceStolen     true when an operator stole the attempt's fence ({@code ATTEMPT_STOLEN}) before the
 *                        supervisor recovered it: its worker may well have been alive, but could no longer report
 */
public record ReceiptRow(
        long id,
        String assignmentId,
        String attemptId,
        long attemptToken,
        String processIdentity,
        String status,
        String failureCategory,
        boolean outcomeKnown,
        String summary,
        long createdAt,
        Path outputDir,
        boolean fenceStolen) {

    /** The failure category the supervisor writes for an attempt whose process died. */
    public static final String WORKER_LOST = "worker_lost";

    /**
     * The receipt file of this attempt, {@code <dataDirectory>/runs/<assignment>/<attempt>.receipt.json}: derived
     * from {@link #outputDir} as it is ({@link RunFolders}), so it may be missing on disk too (written after the
     * commit, best effort: decision 0103); null without an output folder.
     */
    public Path receiptFile() {
        if (outputDir == null
                || outputDir.getParent() == null
                || outputDir.getParent().getParent() == null) {
            return null;
        }
        return outputDir.getParent().getParent().resolve(attemptId + RunFolders.RECEIPT_SUFFIX);
    }

    /** True for the supervisor's receipt of an attempt whose process died mid-run. */
    public boolean isWorkerLost() {
        return WORKER_LOST.equals(failureCategory);
    }
}
