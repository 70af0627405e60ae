package dev.sovereign.engine.spi;

import dev.sovereign.engine.base.LedgerLocation;
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
 * @param liveProcesses processes of the source that had not stopped: a source still in use may have moved on
 *     after the snapshot was read
 */
public record LedgerCopyReport(LedgerLocation from, LedgerLocation to, Map<String, Long> rows, long highestToken,
                               long lastJournalSeq, long liveProcesses) {
    public LedgerCopyReport {
        rows = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(rows));
    }
}
