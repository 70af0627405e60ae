package dev.sovereign.console.ledger;

import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.JournalSlice;
import dev.sovereign.engine.base.StorageException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import javafx.beans.property.LongProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.SimpleLongProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The console's picture of the attached database: the last snapshot, the journal seen so far
 * (bounded), the rejection feed, the connection's health and the ticking {@code now} the countdowns
 * use. Every feature view model reads from here; only the poller's results (applied on the UI thread)
 * and the ticker change it.
 *
 * <p>Confined to the UI thread (the FX application thread in the app, the test thread in view-model
 * tests); it never touches the database.
 */
public final class LiveLedger {
    /** How many journal events are kept for the timeline; older ones drop off the front. */
    public static final int MAX_EVENTS = 20_000;
    /** How many more than needed a trim drops: once full, the window holds 15,000 to 20,000 events. */
    static final int TRIM_SLACK = MAX_EVENTS / 4;
    /** How many rejections the feed keeps. */
    public static final int MAX_REJECTIONS = 2_000;

    private final ObjectProperty<AdminSnapshot> snapshot = new SimpleObjectProperty<>(this, "snapshot");
    private final LongProperty now = new SimpleLongProperty(this, "now");
    private final ObservableList<JournalEntry> events = FXCollections.observableArrayList();
    /** Made once: a fresh unmodifiable wrapper per call would drop listeners when collected. */
    private final ObservableList<JournalEntry> eventsView = FXCollections.unmodifiableObservableList(events);

    private final ObservableList<JournalEntry> rejections = FXCollections.observableArrayList();
    /** Made once: a fresh unmodifiable wrapper per call would drop listeners when collected. */
    private final ObservableList<JournalEntry> rejectionsView = FXCollections.unmodifiableObservableList(rejections);

    private final ObjectProperty<Health> health = new SimpleObjectProperty<>(this, "health", Health.DETACHED);
    private final StringProperty healthDetail = new SimpleStringProperty(this, "healthDetail", "");
    private final LongProperty lastRefresh = new SimpleLongProperty(this, "lastRefresh");
    private final LongProperty lastPoll = new SimpleLongProperty(this, "lastPoll");
    private final LongProperty changeMarker = new SimpleLongProperty(this, "changeMarker", -1);
    private final LongProperty journalRevision = new SimpleLongProperty(this, "journalRevision");
    private final LongProperty revision = new SimpleLongProperty(this, "revision");
    private final ObjectProperty<JournalSlice> subjectJournal = new SimpleObjectProperty<>(this, "subjectJournal");
    /** The ledger's size, rows, oldest event and growth, and its disk's free space, as last read (null: not yet). */
    private final ObjectProperty<LedgerStorage> storage = new SimpleObjectProperty<>(this, "storage");
    /** What the operator is looking for: every page filters its rows by it (the search box). */
    private final Search search = new Search();
    /** When the snapshot's countdowns need the fine tick rate; see {@link #wantsFineTicks}. */
    private FineTicks fineTicks = FineTicks.NONE;

    /** The search every page's rows are filtered by (an empty query: every row). */
    public Search search() {
        return search;
    }

    public ReadOnlyObjectProperty<AdminSnapshot> snapshotProperty() {
        return snapshot;
    }

    public AdminSnapshot snapshot() {
        return snapshot.get();
    }

    /** The console's clock, advanced by the ticker several times a second; countdowns derive from it. */
    public ReadOnlyLongProperty nowProperty() {
        return now;
    }

    public long now() {
        return now.get();
    }

    /** Journal events seen since attaching (the last {@link #MAX_EVENTS}), oldest first. */
    public ObservableList<JournalEntry> events() {
        return eventsView;
    }

    /** Rejections, newest first. */
    public ObservableList<JournalEntry> rejections() {
        return rejectionsView;
    }

    /** Bumped once per batch of new events, so listeners recompute once, not per event. */
    public ReadOnlyLongProperty journalRevisionProperty() {
        return journalRevision;
    }

    /**
     * Bumped once at the end of every poll result that changed anything (snapshot or journal) and when
     * the picture is cleared: for views that derive from both and should recompute once, not twice.
     */
    public ReadOnlyLongProperty revisionProperty() {
        return revision;
    }

    /**
     * The newest journal rows about the actor or process a page shows (read by the poller, with their true
     * count), or null before the first read; a page checks that the slice's subject is its own.
     */
    public ReadOnlyObjectProperty<JournalSlice> subjectJournalProperty() {
        return subjectJournal;
    }

    /**
     * The ledger's size on disk, rows per table, oldest retained event and growth over the last day, with the free
     * space of the disk holding a SQLite file, as the poller last read them (seldom: {@link LedgerPoller#STORAGE_EVERY});
     * null before the first read and while nothing is attached.
     */
    public ReadOnlyObjectProperty<LedgerStorage> storageProperty() {
        return storage;
    }

    /** The poller read the ledger's storage numbers (applied on the UI thread). */
    public void applyStorage(LedgerStorage read) {
        storage.set(read);
    }

    public ReadOnlyObjectProperty<Health> healthProperty() {
        return health;
    }

    public ReadOnlyStringProperty healthDetailProperty() {
        return healthDetail;
    }

    /** The console's clock when the last snapshot was applied (0 before the first). */
    public ReadOnlyLongProperty lastRefreshProperty() {
        return lastRefresh;
    }

    /** The console's clock at the last successful poll, changed or not. */
    public ReadOnlyLongProperty lastPollProperty() {
        return lastPoll;
    }

    public ReadOnlyLongProperty dataVersionProperty() {
        return changeMarker;
    }

    /** Advances the console clock (called by the ticker; tests call it by hand). */
    public void tick(long nowMillis) {
        now.set(nowMillis);
    }

    /**
     * Whether a countdown of the last snapshot (a held lease, an ACTIVE attempt, a message claim) shows tenths
     * of a second at {@code now} — less than a minute before or after its expiry — or is short enough for
     * its bar to move visibly within a second. Otherwise one tick a second shows everything the clock drives.
     */
    public boolean wantsFineTicks(long now) {
        return fineTicks.wanted(now);
    }

    /** A database is being attached: forget the last one's picture. */
    public void connecting() {
        clear();
        health.set(Health.CONNECTING);
        healthDetail.set("Opening\u2026");
    }

    /** No database attached. */
    public void detached() {
        clear();
        health.set(Health.DETACHED);
        healthDetail.set("");
    }

    private void clear() {
        snapshot.set(null);
        fineTicks = FineTicks.NONE;
        subjectJournal.set(null);
        storage.set(null);
        events.clear();
        rejections.clear();
        lastRefresh.set(0);
        lastPoll.set(0);
        changeMarker.set(-1);
        journalRevision.set(journalRevision.get() + 1);
        revision.set(revision.get() + 1);
    }

    /** Applies one poll's result. */
    public void apply(PollResult r) {
        lastPoll.set(r.polledAt());
        changeMarker.set(r.changeMarker());
        health.set(Health.CONNECTED);
        healthDetail.set("Connected");
        // the clock catches up with a poll only when it brought something to show against it: an idle poll (four a
        // second) moving it made every clocked text change at the poll's phase as well as the tick's, two redraws a
        // second instead of one (issue 31 item 21)
        boolean brought = r.snapshot() != null
                || !r.newEvents().isEmpty()
                || !r.rejectionSeed().isEmpty()
                || r.subjectJournal() != null;
        if (brought && now.get() < r.polledAt()) {
            now.set(r.polledAt());
        }
        boolean journalChanged = false;
        if (!r.rejectionSeed().isEmpty()) {
            rejections.setAll(r.rejectionSeed());
            journalChanged = true;
        }
        if (!r.newEvents().isEmpty()) {
            appendEvents(r.newEvents());
            journalChanged = true;
        }
        if (r.subjectJournal() != null) {
            subjectJournal.set(r.subjectJournal());
        }
        if (r.snapshot() != null) {
            lastRefresh.set(r.polledAt());
            fineTicks = FineTicks.of(r.snapshot());
            snapshot.set(r.snapshot());
        }
        if (journalChanged) {
            journalRevision.set(journalRevision.get() + 1);
        }
        if (journalChanged || r.snapshot() != null || r.subjectJournal() != null) {
            revision.set(revision.get() + 1);
        }
    }

    private void appendEvents(List<JournalEntry> fresh) {
        long lastSeen = events.isEmpty() ? 0 : events.get(events.size() - 1).seq();
        List<JournalEntry> add = new ArrayList<>();
        List<JournalEntry> newRejections = new ArrayList<>();
        long newestRejection = rejections.isEmpty() ? 0 : rejections.get(0).seq();
        for (JournalEntry e : fresh) {
            if (e.seq() <= lastSeen) {
                continue;
            }
            add.add(e);
            if (e.isRejection() && e.seq() > newestRejection) {
                newRejections.add(e);
            }
        }
        int over = events.size() + add.size() - MAX_EVENTS;
        if (over <= 0) {
            events.addAll(add);
        } else {
            // Trim a quarter more than needed, so the next polls only append (a trim is a setAll of
            // the whole window, and every listener walks it).
            over = Math.min(events.size() + add.size(), over + TRIM_SLACK);
            // The window slides: one setAll of the kept tail plus the new events. Removing the oldest
            // in place would be quadratic (an ObservableList removes a range one element at a time:
            // 13 ms for 10,000 of 30,000 here, against 1-3 ms for this).
            List<JournalEntry> next = new ArrayList<>(MAX_EVENTS);
            if (over < events.size()) {
                next.addAll(events.subList(over, events.size()));
                next.addAll(add);
            } else {
                next.addAll(add.subList(over - events.size(), add.size()));
            }
            events.setAll(next);
        }
        if (!newRejections.isEmpty()) {
            newRejections.sort(Comparator.comparingLong(JournalEntry::seq).reversed());
            rejections.addAll(0, newRejections);
            if (rejections.size() > MAX_REJECTIONS) {
                rejections.remove(MAX_REJECTIONS, rejections.size());
            }
        }
    }

    /** The last poll failed; the picture stays as it was, marked as not current. */
    public void failed(Throwable problem) {
        if (problem instanceof StorageException se && se.problem() == StorageException.Problem.BUSY) {
            health.set(Health.BUSY);
        } else {
            health.set(Health.FAILING);
        }
        healthDetail.set(problem.getMessage() == null ? problem.toString() : problem.getMessage());
    }
}
