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
 * @param finished        false when {@code maxBatches} stopped it with more left to prune: the next prune of the same
 *                        engine goes on from where this one stopped (decision 0021)
 * @param runs            finished runs pruned, each its assignment with its attempts and receipt (decision 0020)
 * @param messages        finished messages pruned
 * @param processes       stopped processes pruned
 * @param runFolders      run folders removed from this host's data directory with their runs
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
        boolean finished,
        long runs,
        long messages,
        long processes,
        long runFolders) {

    /** Rows pruned from the journal's tables together (journal rows, ticks, contention windows). */
    public long totalRows() {
        return journalRows + ticks + contentionRows;
    }

    /** Whether nothing at all was (or would be) pruned. */
    public boolean nothing() {
        return totalRows() == 0 && runs == 0 && messages == 0 && processes == 0;
    }
}
