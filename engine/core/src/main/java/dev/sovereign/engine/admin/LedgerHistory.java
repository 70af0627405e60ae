package dev.sovereign.engine.admin;

import dev.sovereign.engine.base.FencingTokens;

/**
 * Where the ledger's history stands (decisions 0604 and 0605): the epoch its token counter is in, the last
 * restore or fence bump that started one, and whether an engine found the ledger gone backwards since. What
 * {@code sovereign status} and the console's status bar show. Immutable and thread-safe.
 *
 * @param epoch          the epoch of the token counter (0 for a ledger never restored or bumped)
 * @param lastEpochStart the last restore or bump, or null when there was none
 * @param wentBackwards  the first report, since the last restore or bump, of an engine that had seen a token above
 *                       the counter; null when there is none. While there is one the ledger issues no token.
 * @param counterProblem what is wrong with the counter itself, in words (a value that is not a whole number, or
 *                       out of range), or null; an engine refuses to open such a ledger
 */
public record LedgerHistory(long epoch, Entry lastEpochStart, Entry wentBackwards, String counterProblem) {

    /** A ledger in epoch 0 with no history: every ledger before the history (SQLite schema version 9, PostgreSQL 10). */
    public static final LedgerHistory NONE = new LedgerHistory(0, null, null, null);

    /**
     * One row of {@code ledger_history}.
     *
     * @param kind      {@code backup}, {@code restore}, {@code bump} or {@code backwards}
     * @param epoch     the ledger's epoch after the row
     * @param fromToken the counter when the row was written
     * @param toToken   the counter the row allows: a new epoch's start for a restore or bump, else {@code fromToken}
     * @param seenToken for {@code backwards}: the highest token the reporting engine had seen; else null
     * @param process   the process that wrote the row, or null
     * @param backupId  for a backup, its id; for a restore, the id of the backup it restored; else null
     * @param detail    what happened, in words
     */
    public record Entry(
            long seq,
            long at,
            String kind,
            long epoch,
            long fromToken,
            long toToken,
            Long seenToken,
            String process,
            String backupId,
            String detail) {}

    public boolean isWentBackwards() {
        return wentBackwards != null;
    }

    /**
     * One sentence about a ledger that needs an operator (it went backwards, or its counter is damaged), or null
     * when it needs nothing.
     */
    public String alarm() {
        if (counterProblem != null) {
            return counterProblem;
        }
        if (wentBackwards != null) {
            return "The ledger went backwards: process " + wentBackwards.process() + " had seen token "
                    + FencingTokens.describe(wentBackwards.seenToken()) + " while the counter was at "
                    + FencingTokens.describe(wentBackwards.fromToken()) + ", so it was put back without 'sovereign"
                    + " restore'; it issues no token until an operator runs 'sovereign fence bump'.";
        }
        return null;
    }
}
