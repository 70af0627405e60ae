package dev.sovereign.engine.spi.tools;

import dev.sovereign.engine.base.LedgerLocation;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a committed copy of a ledger wrote.
 *
 * @param from where the rows came from
 * @param to the ledger they went to
 * @param rows how many rows each table received, in the order they were written
 * @param highestToken the highest fencing token the source had minted (its token counter); the target's
 *     counter now holds it, so the target's next grant mints a greater one
 * @param lastJournalSeq the highest journal {@code seq} copied (0 for an empty journal); the target's next
 *     journal row gets a greater one
 * @param liveProcesses processes of the source that had not stopped when it was read
 * @param sourceRetired whether the source was retired in the same step (decision 0915): it then takes no more
 *     writes, so the two ledgers can never both mint, finish or end the same thing
 * @param retirementProblem when the copy committed but retiring the source failed, why, in one sentence (the
 *     source is then still live: stop its workers before anything else); {@code null} otherwise
 */
public record LedgerCopyReport(
        LedgerLocation from,
        LedgerLocation to,
        Map<String, Long> rows,
        long highestToken,
        long lastJournalSeq,
        long liveProcesses,
        boolean sourceRetired,
        String retirementProblem) {
    public LedgerCopyReport {
        rows = Collections.unmodifiableMap(new LinkedHashMap<>(rows));
    }

    /** What the target wrote, before the source's side is known (kept, for now). */
    public LedgerCopyReport(
            LedgerLocation from,
            LedgerLocation to,
            Map<String, Long> rows,
            long highestToken,
            long lastJournalSeq,
            long liveProcesses) {
        this(from, to, rows, highestToken, lastJournalSeq, liveProcesses, false, null);
    }

    /** This report with the source's side: retired, or why retiring it failed after the copy committed. */
    public LedgerCopyReport withSource(boolean retired, String problem) {
        return new LedgerCopyReport(from, to, rows, highestToken, lastJournalSeq, liveProcesses, retired, problem);
    }
}
