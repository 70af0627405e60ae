package dev.sovereign.console.ledger;

import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.JournalSlice;
import java.util.List;

/**
 * What one poll found, handed from the poller thread to the UI thread. Immutable.
 *
 * @param polledAt       the console's clock at the poll, epoch ms
 * @param changeMarker    the reader's change marker at the poll (SQLite: its data_version)
 * @param snapshot       a fresh snapshot, or null when the change marker had not moved
 * @param newEvents      journal events after the last one seen, oldest first
 * @param rejectionSeed  on the first poll only: the newest rejections (newest first), which may be older
 *                       than the events read; empty afterwards
 * @param subjectJournal the journal rows about the actor or process a page shows, read again when the change
 *                       marker moved or the page's subject changed; null when there was nothing to read
 */
public record PollResult(
        long polledAt,
        long changeMarker,
        AdminSnapshot snapshot,
        List<JournalEntry> newEvents,
        List<JournalEntry> rejectionSeed,
        JournalSlice subjectJournal) {
    public PollResult {
        newEvents = List.copyOf(newEvents);
        rejectionSeed = List.copyOf(rejectionSeed);
    }

    public PollResult(
            long polledAt,
            long changeMarker,
            AdminSnapshot snapshot,
            List<JournalEntry> newEvents,
            List<JournalEntry> rejectionSeed) {
        this(polledAt, changeMarker, snapshot, newEvents, rejectionSeed, null);
    }

    public boolean changed() {
        return snapshot != null;
    }
}
