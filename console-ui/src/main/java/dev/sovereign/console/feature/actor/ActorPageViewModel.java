package dev.sovereign.console.feature.actor;

import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.AssignmentRow;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.JournalSlice;
import dev.sovereign.engine.admin.JournalSubject;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.admin.LeaseState;
import dev.sovereign.engine.admin.ProcessRef;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.value.ObservableValue;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * One actor's page (issue 17, item 7): its holds over time — who held it, with which token, from when to
 * when and how each ended — its runs, its refused writes and every journal row that names it, oldest first
 * like a run's history. Derived from the snapshot and the poller's slice of the journal about the actor
 * (the newest {@code LedgerPoller.SUBJECT_ROWS} rows, with their true count), so it is live through the one
 * poller. UI-thread confined.
 */
public final class ActorPageViewModel {
    /**
     * One hold of the actor's lease.
     *
     * @param to    when it ended, or null while it lasts
     * @param ended how it ended ({@code released}, {@code taken over by worker 7102 (token 6)}, ...) or that it
     *              lasts
     */
    public record Hold(long token, ProcessRef holder, String began, long from, Long to, String ended) {}

    private final LiveLedger ledger;
    private final Formats formats;
    private final ObservableValue<JournalSubject> subject;
    private final ReadOnlyStringWrapper title = new ReadOnlyStringWrapper(this, "title", "");
    private final ReadOnlyStringWrapper now = new ReadOnlyStringWrapper(this, "now", "");
    private final ReadOnlyStringWrapper journalSummary = new ReadOnlyStringWrapper(this, "journalSummary", "");
    private final ReadOnlyStringWrapper runsSummary = new ReadOnlyStringWrapper(this, "runsSummary", "");
    private final ObservableList<Hold> holds = FXCollections.observableArrayList();
    private final ObservableList<AssignmentRow> runs = FXCollections.observableArrayList();
    private final ObservableList<JournalEntry> rejections = FXCollections.observableArrayList();
    private final ObservableList<JournalEntry> journal = FXCollections.observableArrayList();
    /** Whether the page shows: only then does it follow the ledger and the clock (idle CPU, issue 17 item 15). */
    private final BooleanProperty active = new SimpleBooleanProperty(this, "active", true);
    /** The actor's lease as last read (the clock's ticks look at it, not at every lease). */
    private LeaseRow lease;

    public ActorPageViewModel(LiveLedger ledger, Formats formats, ObservableValue<JournalSubject> subject) {
        this.ledger = ledger;
        this.formats = formats;
        this.subject = subject;
        ledger.revisionProperty().addListener((obs, o, r) -> refreshIfActive());
        subject.addListener((obs, o, s) -> refreshIfActive());
        // "expired" follows the clock, but only the words that changed are set
        ledger.nowProperty().addListener((obs, o, t) -> {
            if (active.get()) {
                describeNow();
            }
        });
        active.addListener((obs, was, on) -> refreshIfActive());
        refresh();
    }

    /** Whether the page shows (the shell binds it); while it does not, nothing is recomputed. */
    public BooleanProperty activeProperty() {
        return active;
    }

    private void refreshIfActive() {
        if (active.get()) {
            refresh();
        }
    }

    /** The actor shown, or null when the page is about something else. */
    public String actor() {
        JournalSubject s = subject.getValue();
        return s == null || s.kind() != JournalSubject.Kind.ACTOR ? null : s.id();
    }

    private void refresh() {
        String actor = actor();
        AdminSnapshot s = ledger.snapshot();
        JournalSlice slice = ledger.subjectJournalProperty().get();
        if (slice != null && !slice.subject().equals(subject.getValue())) {
            slice = null; // the rows of the page shown before; this one's come with the next poll
        }
        title.set(actor == null ? "" : "Actor " + actor);
        List<JournalEntry> rows = slice == null ? List.of() : new ArrayList<>(slice.entries());
        Collections.reverse(rows); // oldest first, like a run's history
        List<AssignmentRow> theirRuns = s == null || actor == null
                ? List.of()
                : s.assignments().stream().filter(a -> a.actor().equals(actor)).toList();
        setIfChanged(runs, theirRuns);
        setIfChanged(rejections, rows.stream().filter(JournalEntry::isRejection).toList());
        setIfChanged(journal, rows);
        lease = lease(s, actor);
        setIfChanged(holds, holds(rows, lease, ledger.now()));
        journalSummary.set(
                actor == null
                        ? ""
                        : slice == null
                                ? "Reading the journal\u2026"
                                : slice.total() == 0
                                        ? "No journal row names " + actor + "."
                                        : "The newest " + slice.entries().size() + " of " + slice.total()
                                                + " journal rows naming " + actor + ", oldest first"
                                                + (slice.wholeJournal() ? "." : " (of the journal's last rows)."));
        runsSummary.set(
                actor == null || s == null
                        ? ""
                        : theirRuns.size()
                                + (theirRuns.size() == 1 ? " run" : " runs")
                                + (s.assignments().size() < s.counts().assignments()
                                        ? " among the database's "
                                                + s.assignments().size() + " most recent (of "
                                                + s.counts().assignments() + ")."
                                        : "."));
        describeNow();
    }

    private static LeaseRow lease(AdminSnapshot s, String actor) {
        return s == null || actor == null
                ? null
                : s.leases().stream()
                        .filter(l -> l.actor().equals(actor))
                        .findFirst()
                        .orElse(null);
    }

    private void describeNow() {
        String actor = actor();
        LeaseRow l = lease;
        String text;
        if (actor == null) {
            text = "";
        } else if (ledger.snapshot() == null) {
            text = "";
        } else if (l == null) {
            text = "There is no actor " + actor + " in this database.";
        } else if (l.isFree()) {
            text = "Free: no process holds its lease.";
        } else {
            LeaseState st = l.stateAt(ledger.now());
            text = "Held by " + l.holder().displayName() + " with token " + l.token() + " since "
                    + formats.time(l.acquiredAt())
                    + (st == LeaseState.EXPIRED
                            ? "; its lease expired at " + formats.time(l.expiresAt()) + " and nobody took it over yet."
                            : "; its lease runs until " + formats.time(l.expiresAt()) + " unless renewed.");
        }
        if (!text.equals(now.get())) {
            now.set(text);
        }
    }

    /**
     * The holds the rows show, oldest first: a grant (acquired, taken over) starts one; a release, the next
     * grant or the lease's expiry ends it. The last one is checked against the snapshot's lease; a hold older
     * than the rows read is taken from the snapshot.
     */
    static List<Hold> holds(List<JournalEntry> oldestFirst, LeaseRow lease, long now) {
        List<Hold> out = new ArrayList<>();
        Hold open = null;
        for (JournalEntry e : oldestFirst) {
            switch (e.kind()) {
                case "LEASE_ACQUIRED", "LEASE_TAKEN_OVER" -> {
                    boolean takeover = e.kind().equals("LEASE_TAKEN_OVER");
                    ProcessRef who = e.process() == null ? ProcessRef.unknown("?") : e.process();
                    if (open != null) {
                        out.add(new Hold(
                                open.token(),
                                open.holder(),
                                open.began(),
                                open.from(),
                                e.at(),
                                takeover ? "taken over by " + who.name() + " (token " + e.token() + ")" : "expired"));
                    }
                    open = new Hold(
                            e.token() == null ? 0 : e.token(),
                            who,
                            takeover ? "took over" : "acquired",
                            e.at(),
                            null,
                            "");
                }
                case "LEASE_RELEASED" -> {
                    if (open != null) {
                        out.add(new Hold(open.token(), open.holder(), open.began(), open.from(), e.at(), "released"));
                        open = null;
                    }
                }
                default -> {}
            }
        }
        boolean held = lease != null && !lease.isFree();
        if (open != null) {
            if (held && lease.token() == open.token()) {
                out.add(
                        lease.stateAt(now) == LeaseState.EXPIRED
                                ? new Hold(
                                        open.token(),
                                        open.holder(),
                                        open.began(),
                                        open.from(),
                                        lease.expiresAt(),
                                        "expired; nobody took it over yet")
                                : new Hold(
                                        open.token(), open.holder(), open.began(), open.from(), null, "holds it now"));
            } else {
                out.add(new Hold(
                        open.token(),
                        open.holder(),
                        open.began(),
                        open.from(),
                        null,
                        "ended (how is not in the rows read)"));
            }
        } else if (held && out.stream().noneMatch(h -> h.token() == lease.token())) {
            out.add(new Hold(
                    lease.token(),
                    lease.holder(),
                    "acquired",
                    lease.acquiredAt(),
                    null,
                    lease.stateAt(now) == LeaseState.EXPIRED ? "expired; nobody took it over yet" : "holds it now"));
        }
        return out;
    }

    private static <T> void setIfChanged(ObservableList<T> list, List<T> fresh) {
        if (!list.equals(fresh)) {
            list.setAll(fresh);
        }
    }

    public ReadOnlyStringProperty titleProperty() {
        return title.getReadOnlyProperty();
    }

    /** Who holds it now, with which token, until when; or that it is free. */
    public ReadOnlyStringProperty nowProperty() {
        return now.getReadOnlyProperty();
    }

    /** {@code The newest 200 of 1234 journal rows naming operator, oldest first.} */
    public ReadOnlyStringProperty journalSummaryProperty() {
        return journalSummary.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty runsSummaryProperty() {
        return runsSummary.getReadOnlyProperty();
    }

    public ObservableList<Hold> holds() {
        return holds;
    }

    public ObservableList<AssignmentRow> runs() {
        return runs;
    }

    public ObservableList<JournalEntry> rejections() {
        return rejections;
    }

    /** The journal rows read about it, oldest first. */
    public ObservableList<JournalEntry> journal() {
        return journal;
    }

    public Formats formats() {
        return formats;
    }

    public LiveLedger ledger() {
        return ledger;
    }
}
