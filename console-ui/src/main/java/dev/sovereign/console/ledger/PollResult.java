package dev.sovereign.console.ledger;

import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.JournalEntry;
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
 */
public record PollResult(long polledAt, long changeMarker, AdminSnapshot snapshot, List<JournalEntry> newEvents,
                         List<JournalEntry> rejectionSeed) {
    public PollResult {
        newEvents = List.copyOf(newEvents);
        rejectionSeed = List.copyOf(rejectionSeed);
    }

    public boolean changed() {
        return snapshot != null;
    }
}
