package dev.sovereign.engine.admin;

import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * How one prune runs (decision 0018).
 *
 * @param batchRows  journal rows looked at per write transaction: the bound of each transaction's work, so a
 *                   prune never holds the write lock long (workers keep writing between its batches)
 * @param maxBatches how many batches this call may run before it returns (the rest waits for the next call, which
 *                   goes on from where this one stopped);
 *                   {@link Integer#MAX_VALUE} for all of it
 * @param dryRun     count what would go, delete nothing and move nothing (one read)
 * @param export     when not null, receives each batch's rows before they are deleted, in the same transaction: a
 *                   failure it throws deletes nothing of that batch. Each row is its table's columns by name
 */
public record PruneOptions(int batchRows, int maxBatches, boolean dryRun, Consumer<PrunedRows> export) {
    /** The batch a prune uses unless told otherwise: small enough to stay a short write (docs/benchmarks.md). */
    public static final int DEFAULT_BATCH_ROWS = 500;

    public PruneOptions {
        if (batchRows < 1 || maxBatches < 1) {
            throw new IllegalArgumentException("a prune needs at least one row per batch and one batch");
        }
    }

    /** Everything that may go, in batches of the default size. */
    public static PruneOptions all() {
        return new PruneOptions(DEFAULT_BATCH_ROWS, Integer.MAX_VALUE, false, null);
    }

    /** Counts only. */
    public static PruneOptions dryRunOnly() {
        return new PruneOptions(DEFAULT_BATCH_ROWS, Integer.MAX_VALUE, true, null);
    }

    /** The same options, exporting each batch to {@code sink} before it is deleted. */
    public PruneOptions exportingTo(Consumer<PrunedRows> sink) {
        return new PruneOptions(batchRows, maxBatches, dryRun, sink);
    }

    /**
     * One batch of rows about to be pruned from one table ({@code fence_events}, {@code supervisor_ticks} or
     * {@code lease_contention}), each row its columns by name in the table's order.
     */
    public record PrunedRows(String table, List<Map<String, Object>> rows) {
        public PrunedRows {
            rows = List.copyOf(rows);
        }
    }
}
