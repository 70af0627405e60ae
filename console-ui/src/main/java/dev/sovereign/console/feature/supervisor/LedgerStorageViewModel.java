package dev.sovereign.console.feature.supervisor;

import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.LedgerPoller;
import dev.sovereign.console.ledger.LedgerStorage;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.engine.admin.LedgerMetrics;
import dev.sovereign.engine.admin.Retention;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;

/**
 * The Supervisor page's "Ledger" section (issue 29 item 4): the ledger's size on disk with its rows per table, the
 * journal's oldest retained event and its growth over the last day — the numbers {@code sovereign status} shows, read
 * by the console's reader with the same statements ({@link LedgerStorage}) — and the room left on the disk holding a
 * SQLite file, with the warning when it runs low (decision 0606). UI-thread confined.
 */
public final class LedgerStorageViewModel {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss");
    private static final DateTimeFormatter DATE_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private final LiveLedger ledger;
    private final Formats formats;
    private final ReadOnlyStringWrapper size = new ReadOnlyStringWrapper(this, "size", "");
    private final ReadOnlyStringWrapper journal = new ReadOnlyStringWrapper(this, "journal", "");
    private final ReadOnlyStringWrapper retention = new ReadOnlyStringWrapper(this, "retention", "");
    private final ReadOnlyStringWrapper disk = new ReadOnlyStringWrapper(this, "disk", "");
    private final ReadOnlyStringWrapper warning = new ReadOnlyStringWrapper(this, "warning", "");
    private final ReadOnlyStringWrapper readAt = new ReadOnlyStringWrapper(this, "readAt", "");
    private final ReadOnlyBooleanWrapper known = new ReadOnlyBooleanWrapper(this, "known");

    public LedgerStorageViewModel(LiveLedger ledger, Formats formats) {
        this.ledger = ledger;
        this.formats = formats;
        ledger.storageProperty().addListener((obs, old, s) -> show(s));
        show(ledger.storageProperty().get());
    }

    /** The times follow the console's zone (View → Show times in UTC). */
    public void zoneChanged() {
        show(ledger.storageProperty().get());
    }

    private void show(LedgerStorage s) {
        known.set(s != null);
        if (s == null) {
            size.set("");
            journal.set("");
            retention.set("");
            disk.set("");
            warning.set("");
            readAt.set("");
            return;
        }
        LedgerMetrics m = s.metrics();
        size.set(s.sizeText());
        long rows = m.journalRows();
        journal.set(
                m.oldestEventAt() < 0
                        ? "empty"
                        : rows + " event" + (rows == 1 ? "" : "s") + "; oldest " + wall(m.oldestEventAt(), m.readAt())
                                + ", " + s.growthText());
        retention.set(retentionText(m.retention(), m.readAt()));
        disk.set(s.diskText());
        warning.set(s.warning());
        readAt.set("Read at " + formats.time(s.readAt()) + (formats.isUtc() ? " UTC" : "") + "; read again every "
                + LedgerPoller.STORAGE_EVERY.toSeconds() + " s and on Refresh now (F5). The same numbers as 'sovereign"
                + " status'.");
    }

    /**
     * {@code journal kept 30 days (the default); never pruned}, or {@code …; 1,204 rows pruned, last 2026-12-01
     * 03:10:00}: the ledger's retention policy and its last prune (decision 0018), as {@code sovereign status} says them.
     */
    private String retentionText(Retention r, long now) {
        return "journal kept " + span(r.keepJournal()) + (r.isDefault() ? " (the default)" : "") + "; "
                + (r.lastPrunedAt() < 0
                        ? "never pruned"
                        : String.format("%,d rows pruned, last %s", r.prunedRows(), wall(r.lastPrunedAt(), now)))
                + "; finished runs " + span(r.keepRuns()) + ", messages " + span(r.keepMessages())
                + ", stopped processes " + span(r.keepProcesses())
                + (r.prunedRuns() + r.prunedMessages() + r.prunedProcesses() == 0
                        ? ""
                        : String.format(
                                " (%,d runs, %,d messages, %,d processes pruned)",
                                r.prunedRuns(), r.prunedMessages(), r.prunedProcesses()))
                + ". Set with 'sovereign retention', pruned by the supervisor and 'sovereign prune'.";
    }

    /** {@code 30 days}, or {@code 12 hours} for what is not whole days. */
    private static String span(java.time.Duration d) {
        long days = d.toDays();
        long hours = d.toHours();
        return days >= 1 && d.equals(java.time.Duration.ofDays(days))
                ? days + (days == 1 ? " day" : " days")
                : hours + (hours == 1 ? " hour" : " hours");
    }

    /** As {@code sovereign status} says a time: the time alone today, with its date otherwise. */
    private String wall(long at, long now) {
        ZonedDateTime t = Instant.ofEpochMilli(at).atZone(formats.zone());
        LocalDate today = Instant.ofEpochMilli(now).atZone(formats.zone()).toLocalDate();
        return (t.toLocalDate().equals(today) ? TIME : DATE_TIME).format(t);
    }

    /** Whether the numbers were read yet (false while nothing is attached, and until the first read). */
    public ReadOnlyBooleanProperty knownProperty() {
        return known.getReadOnlyProperty();
    }

    /** {@code 1.6 MB (rows: fence_events 2841, processes 310, …)}. */
    public ReadOnlyStringProperty sizeProperty() {
        return size.getReadOnlyProperty();
    }

    /** {@code 2841 events; oldest 09:12:40, 611 events in the last 24 hours}, or {@code empty}. */
    public ReadOnlyStringProperty journalProperty() {
        return journal.getReadOnlyProperty();
    }

    /** The retention policy and the last prune (decision 0018). */
    public ReadOnlyStringProperty retentionProperty() {
        return retention.getReadOnlyProperty();
    }

    /** The free space of a file's disk and the level the console warns below; for a server, that the server watches. */
    public ReadOnlyStringProperty diskProperty() {
        return disk.getReadOnlyProperty();
    }

    /** The warning that the disk runs low, saying what to do; empty while there is room. */
    public ReadOnlyStringProperty warningProperty() {
        return warning.getReadOnlyProperty();
    }

    /** When they were read, and how often they are. */
    public ReadOnlyStringProperty readAtProperty() {
        return readAt.getReadOnlyProperty();
    }
}
