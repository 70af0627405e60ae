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
 * @param keepRuns       how long a finished run (its assignment, attempts, receipt and run folder) is kept once it
 *                       ended and was settled (decision 0020)
 * @param keepMessages   how long a finished (DONE or DEAD) message is kept
 * @param keepProcesses  how long a stopped process is kept once it holds nothing
 * @param prunedRuns     runs (assignments) pruned so far, in the ledger's whole life
 * @param prunedMessages messages pruned so far
 * @param prunedProcesses processes pruned so far
 * @param lastBackupAt   when {@code sovereign backup} last copied this ledger (epoch ms), -1 when never (or, on
 *                       PostgreSQL, when the backups are taken by the server's own tools)
 */
public record Retention(
        Duration keepJournal,
        long prunedBelow,
        long prunedRows,
        long lastPrunedAt,
        long setAt,
        String setBy,
        Duration keepRuns,
        Duration keepMessages,
        Duration keepProcesses,
        long prunedRuns,
        long prunedMessages,
        long prunedProcesses,
        long lastBackupAt) {

    /**
     * What a retention applies to, each with its own duration (decision 0020): the journal (with the supervisor's
     * ticks and the contention windows), finished runs, finished messages, stopped processes.
     */
    public enum Kind {
        JOURNAL("journal", "keep_ms"),
        RUNS("runs", "runs_keep_ms"),
        MESSAGES("messages", "messages_keep_ms"),
        PROCESSES("processes", "processes_keep_ms");

        private final String word;
        private final String column;

        Kind(String word, String column) {
            this.word = word;
            this.column = column;
        }

        /** The kind as operators type and read it ({@code runs}). */
        public String word() {
            return word;
        }

        /** The column of the ledger's {@code retention} row that holds it. */
        public String column() {
            return column;
        }
    }

    /** How long rows of {@code kind} are kept. */
    public Duration keep(Kind kind) {
        return switch (kind) {
            case JOURNAL -> keepJournal;
            case RUNS -> keepRuns;
            case MESSAGES -> keepMessages;
            case PROCESSES -> keepProcesses;
        };
    }

    /**
     * The retention a new ledger starts with for every kind: 30 days, a month to look back on (decisions 0018 and
     * 0020).
     */
    public static final Duration DEFAULT_KEEP = Duration.ofDays(30);
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
