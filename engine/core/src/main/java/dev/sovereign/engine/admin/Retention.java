package dev.sovereign.engine.admin;

import java.time.Duration;

/**
 * The ledger's retention policy and where its pruning stands (decision 0018), read from the ledger's one
 * {@code retention} row, so every process that opens the ledger agrees. Immutable and thread-safe.
 *
 * @param keepJournal  how long journal rows, supervisor ticks and contention windows are kept, measured back from
 *                     the newest journal row's time (at least an hour)
 * @param prunedBelow  the watermark: journal rows with a smaller seq may have been pruned; those at or above it never
 *                     were. It only moves forward; 0 when nothing was pruned yet
 * @param prunedRows   journal rows pruned so far, in the ledger's whole life
 * @param lastPrunedAt when a prune last deleted or moved anything (epoch ms), -1 never
 * @param setAt        when the policy was last set (epoch ms), -1 while it is the schema's default
 * @param setBy        the process that set it, or null while it is the default
 */
public record Retention(
        Duration keepJournal, long prunedBelow, long prunedRows, long lastPrunedAt, long setAt, String setBy) {

    /** The journal's retention a new ledger starts with: 30 days. */
    public static final Duration DEFAULT_KEEP_JOURNAL = Duration.ofDays(30);
    /** The shortest retention the database accepts: an hour (its guard refuses less). */
    public static final Duration MINIMUM_KEEP = Duration.ofHours(1);
    /** The longest: 100 years (of 365 days). */
    public static final Duration MAXIMUM_KEEP = Duration.ofDays(36_500);

    /** Whether the policy is still the schema's default (nobody set it). */
    public boolean isDefault() {
        return setAt < 0;
    }
}
