package dev.sovereign.console.feature.process;

import dev.sovereign.console.feature.processes.ProcessesViewModel;
import dev.sovereign.console.feature.processes.StopProcessAction;
import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.AttemptRow;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.JournalSlice;
import dev.sovereign.engine.admin.JournalSubject;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.admin.LeaseState;
import dev.sovereign.engine.admin.ProcessRow;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.value.ObservableValue;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * One process's page (issue 17, item 7): what it is (label, kind, host, pid, started, last heartbeat, state),
 * the leases it holds now, the attempts it ran, and the journal rows that name it — its grants, the refusals
 * of its stale writes, identity claims, its start and stop — oldest first, live through the one poller. Its
 * "Stop process…" is the Processes page's {@link StopProcessAction}. UI-thread confined.
 */
public final class ProcessPageViewModel {
    private final LiveLedger ledger;
    private final Formats formats;
    private final ObservableValue<JournalSubject> subject;
    private final StopProcessAction stop;
    private final ReadOnlyObjectWrapper<ProcessRow> row = new ReadOnlyObjectWrapper<>(this, "row");
    private final ReadOnlyStringWrapper title = new ReadOnlyStringWrapper(this, "title", "");
    private final ReadOnlyStringWrapper facts = new ReadOnlyStringWrapper(this, "facts", "");
    private final ReadOnlyStringWrapper journalSummary = new ReadOnlyStringWrapper(this, "journalSummary", "");
    private final ObservableList<LeaseRow> leases = FXCollections.observableArrayList();
    private final ObservableList<AttemptRow> attempts = FXCollections.observableArrayList();
    private final ObservableList<JournalEntry> journal = FXCollections.observableArrayList();
    /** Whether the page shows: only then does it follow the ledger and the clock. */
    private final BooleanProperty active = new SimpleBooleanProperty(this, "active", true);

    public ProcessPageViewModel(
            LiveLedger ledger, Formats formats, ObservableValue<JournalSubject> subject, StopProcessAction stop) {
        this.ledger = ledger;
        this.formats = formats;
        this.subject = subject;
        this.stop = stop;
        ledger.revisionProperty().addListener((obs, o, r) -> refreshIfActive());
        subject.addListener((obs, o, s) -> refreshIfActive());
        ledger.nowProperty().addListener((obs, o, t) -> {
            if (active.get()) {
                describe(); // live turns stale by the clock alone
                showLeases(); // and a held lease expires by the clock alone
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

    /** The identity shown, or null when the page is about something else. */
    public String identity() {
        JournalSubject s = subject.getValue();
        return s == null || s.kind() != JournalSubject.Kind.PROCESS ? null : s.id();
    }

    private void refresh() {
        String id = identity();
        AdminSnapshot s = ledger.snapshot();
        JournalSlice slice = ledger.subjectJournalProperty().get();
        if (slice != null && !slice.subject().equals(subject.getValue())) {
            slice = null;
        }
        ProcessRow r = s == null || id == null
                ? null
                : s.processes().stream()
                        .filter(p -> p.process().identity().equals(id))
                        .findFirst()
                        .orElse(null);
        row.set(r);
        title.set(id == null ? "" : "Process " + (r == null ? id : r.process().displayName()));
        showLeases();
        setIfChanged(
                attempts,
                s == null || id == null
                        ? List.of()
                        : s.attempts().stream()
                                .filter(a -> a.process().identity().equals(id))
                                .toList());
        List<JournalEntry> rows = slice == null ? List.of() : new ArrayList<>(slice.entries());
        Collections.reverse(rows);
        setIfChanged(journal, rows);
        journalSummary.set(
                id == null
                        ? ""
                        : slice == null
                                ? "Reading the journal\u2026"
                                : slice.total() == 0
                                        ? "No journal row names this process"
                                                + (slice.wholeJournal()
                                                        ? "."
                                                        : " among the journal's last "
                                                                + (slice.lastSeq() - slice.searchedAfterSeq())
                                                                + " rows.")
                                        : "The newest " + slice.entries().size() + " of " + slice.total()
                                                + " journal rows naming it, oldest"
                                                + " first"
                                                + (slice.wholeJournal()
                                                        ? "."
                                                        : " (what it wrote: among the journal's last "
                                                                + (slice.lastSeq() - slice.searchedAfterSeq())
                                                                + " rows)."));
        if (id != null) {
            stop.targetProperty().set(r);
        }
        describe();
    }

    /** The leases it holds now: an expired one is no longer held (issue 31), whatever its row still names. */
    private void showLeases() {
        String id = identity();
        AdminSnapshot s = ledger.snapshot();
        long now = ledger.now();
        setIfChanged(
                leases,
                s == null || id == null
                        ? List.of()
                        : s.leases().stream()
                                .filter(l -> l.holder() != null
                                        && l.holder().identity().equals(id))
                                .filter(l -> l.stateAt(now) != LeaseState.EXPIRED)
                                .toList());
    }

    private void describe() {
        String id = identity();
        ProcessRow r = row.get();
        String text;
        if (id == null || ledger.snapshot() == null) {
            text = "";
        } else if (r == null) {
            text = "Identity " + id + " is not in the registry as read (never registered — a refused call's — or"
                    + " stopped long ago, beyond the " + AdminReader.STOPPED_PROCESSES_SHOWN
                    + " most recent stopped ones).";
        } else {
            ProcessesViewModel.Shown shown = ProcessesViewModel.shownAt(r, ledger.now());
            text = "State: " + shown.text() + " \u00b7 kind " + r.kind()
                    + (r.process().pid() == null
                            ? ""
                            : " \u00b7 pid " + r.process().pid())
                    + (r.process().host() == null ? "" : " on " + r.process().host())
                    + "\nIdentity " + id
                    + "\nStarted " + formats.time(r.startedAt())
                    + (shown == ProcessesViewModel.Shown.NO_HEARTBEAT
                            ? " \u00b7 no heartbeat (CLI)"
                            : " \u00b7 last heartbeat " + formats.time(r.heartbeatAt()) + " (beats every "
                                    + Formats.duration(r.heartbeatIntervalMs()) + ")")
                    + (r.stoppedAt() == null ? "" : " \u00b7 stopped " + formats.time(r.stoppedAt()))
                    + (r.lastClaim() == null ? "" : "\nLast acted as with --process by " + r.lastClaimedBy() + ".");
        }
        if (!text.equals(facts.get())) {
            facts.set(text);
        }
    }

    private static <T> void setIfChanged(ObservableList<T> list, List<T> fresh) {
        if (!list.equals(fresh)) {
            list.setAll(fresh);
        }
    }

    /** The registry row read for it, or null (not registered, or not in the snapshot). */
    public ReadOnlyObjectProperty<ProcessRow> rowProperty() {
        return row.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty titleProperty() {
        return title.getReadOnlyProperty();
    }

    /** State, kind, pid and host, started, last heartbeat, in a few lines. */
    public ReadOnlyStringProperty factsProperty() {
        return facts.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty journalSummaryProperty() {
        return journalSummary.getReadOnlyProperty();
    }

    public ObservableList<LeaseRow> leases() {
        return leases;
    }

    public ObservableList<AttemptRow> attempts() {
        return attempts;
    }

    public ObservableList<JournalEntry> journal() {
        return journal;
    }

    public StopProcessAction stop() {
        return stop;
    }

    public Formats formats() {
        return formats;
    }
}
