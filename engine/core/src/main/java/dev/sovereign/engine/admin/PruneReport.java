package dev.sovereign.engine.admin;

/**
 * What one prune did, or with {@code dryRun} would do (decision 0018).
 *
 * @param dryRun          whether nothing was written
 * @param journalRows     journal rows pruned (or that would be)
 * @param ticks           supervisor ticks pruned
 * @param contentionRows  contention windows pruned
 * @param keptBelowMark   journal rows below the new watermark that the database keeps because a live row needs
 *                        them (a current lease, a run not settled, an unfinished message, the newest of each)
 * @param watermarkBefore the watermark before the call
 * @param watermarkAfter  the watermark after it (or where it would be)
 * @param batches         write transactions run
 * @param longestBatchMs  the longest of them, in milliseconds, from the moment it held the write lock to its commit
 *                        (the commit's own flush not included): about the longest a worker waited behind the prune
 * @param finished        false when {@code maxBatches} stopped it with more left to prune
 */
public record PruneReport(
        boolean dryRun,
        long journalRows,
        long ticks,
        long contentionRows,
        long keptBelowMark,
        long watermarkBefore,
        long watermarkAfter,
        int batches,
        long longestBatchMs,
        boolean finished) {

    /** Rows pruned from every table together. */
    public long totalRows() {
        return journalRows + ticks + contentionRows;
    }
}
