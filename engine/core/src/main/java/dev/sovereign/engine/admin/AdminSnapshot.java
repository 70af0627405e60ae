package dev.sovereign.engine.admin;

import dev.sovereign.engine.base.LedgerLocation;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything the console shows except the journal, read in ONE read transaction, so the rows agree
 * with each other and with {@link #changeMarker()}. Immutable (the lists are unmodifiable).
 *
 * <p>Bounded: every actor, every running process and every unfinished message is included; finished
 * work is capped to the most recent rows ({@link AdminReader} documents the caps), except that every
 * assignment needing an operator is always included. Totals come from {@link #counts()}, counted by
 * the database, never from the sizes of these capped lists.
 *
 * @param location  where the ledger lives (a file, or a server's URL shown without secrets)
 * @param takenAt   the LEDGER's clock when the snapshot was read, epoch ms (on a server: the server's)
 * @param lastSeq   the highest journal sequence number at that moment
 * @param lastToken the highest fencing token ever minted at that moment
 * @param counts    the true totals, counted in the same read transaction
 * @param history   the counter's epoch and the ledger's history (a restore, a bump, a report that it went backwards)
 */
public record AdminSnapshot(
        LedgerLocation location,
        int schemaVersion,
        long changeMarker,
        long takenAt,
        long lastSeq,
        long lastToken,
        List<LeaseRow> leases,
        List<ProcessRow> processes,
        List<AssignmentRow> assignments,
        List<AttemptRow> attempts,
        List<MessageRow> messages,
        Optional<SupervisorTickRow> lastTick,
        LedgerCounts counts,
        LedgerHistory history) {

    /** A snapshot of a ledger with no history to show (tests, benchmarks, ledgers before the history: SQLite schema version 9, PostgreSQL 10). */
    public AdminSnapshot(
            LedgerLocation location,
            int schemaVersion,
            long changeMarker,
            long takenAt,
            long lastSeq,
            long lastToken,
            List<LeaseRow> leases,
            List<ProcessRow> processes,
            List<AssignmentRow> assignments,
            List<AttemptRow> attempts,
            List<MessageRow> messages,
            Optional<SupervisorTickRow> lastTick,
            LedgerCounts counts) {
        this(
                location,
                schemaVersion,
                changeMarker,
                takenAt,
                lastSeq,
                lastToken,
                leases,
                processes,
                assignments,
                attempts,
                messages,
                lastTick,
                counts,
                LedgerHistory.NONE);
    }

    /** A snapshot whose rows are all there is (tests, benchmarks): its counts are counted from them. */
    public AdminSnapshot(
            LedgerLocation location,
            int schemaVersion,
            long changeMarker,
            long takenAt,
            long lastSeq,
            long lastToken,
            List<LeaseRow> leases,
            List<ProcessRow> processes,
            List<AssignmentRow> assignments,
            List<AttemptRow> attempts,
            List<MessageRow> messages,
            Optional<SupervisorTickRow> lastTick) {
        this(
                location,
                schemaVersion,
                changeMarker,
                takenAt,
                lastSeq,
                lastToken,
                leases,
                processes,
                assignments,
                attempts,
                messages,
                lastTick,
                LedgerCounts.of(assignments, messages));
    }

    public AdminSnapshot {
        Objects.requireNonNull(counts, "counts");
        Objects.requireNonNull(history, "history");
        leases = List.copyOf(leases);
        processes = List.copyOf(processes);
        assignments = List.copyOf(assignments);
        attempts = List.copyOf(attempts);
        messages = List.copyOf(messages);
    }
}
