package dev.sovereign.console.feature.processes;

import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.console.ledger.Search;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.ProcessRow;
import dev.sovereign.engine.admin.ProcessState;
import java.util.List;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The process registry: who is live, stale (missed its own heartbeats) or stopped, and what each
 * holds. States are derived from the ticking clock. Stopped processes are hidden unless asked for or
 * searched for (a busy ledger has hundreds of finished CLI calls); a CLI identity that never beat — a durable
 * {@code lease acquire} identity, or one named with {@code --process} — is not "stale": it was never
 * meant to beat, and says so. UI-thread confined.
 */
public final class ProcessesViewModel {
    /** What the State column says of a process. */
    public enum Shown {
        LIVE("live"),
        STALE("stale"),
        STOPPED("stopped"),
        NO_HEARTBEAT("no heartbeat (CLI)");

        private final String text;

        Shown(String text) {
            this.text = text;
        }

        public String text() {
            return text;
        }
    }

    private final LiveLedger ledger;
    private final ObservableList<ProcessRow> rows = FXCollections.observableArrayList();
    /** Made once: a fresh unmodifiable wrapper per call would drop listeners when collected. */
    private final ObservableList<ProcessRow> rowsView = FXCollections.unmodifiableObservableList(rows);

    private final ReadOnlyStringWrapper summary = new ReadOnlyStringWrapper(this, "summary", "");
    private final ReadOnlyStringWrapper showStoppedText = new ReadOnlyStringWrapper(this, "showStoppedText", "");
    private final BooleanProperty showStopped = new SimpleBooleanProperty(this, "showStopped", false);
    /** Every process of the snapshot, whatever the search: the summary counts them all. */
    private List<ProcessRow> all = List.of();

    public ProcessesViewModel(LiveLedger ledger) {
        this.ledger = ledger;
        ledger.snapshotProperty().addListener((obs, old, s) -> refresh(s));
        ledger.nowProperty().addListener((obs, old, now) -> updateSummary());
        ledger.search().queryProperty().addListener((obs, old, q) -> refresh(ledger.snapshot()));
        showStopped.addListener((obs, old, show) -> refresh(ledger.snapshot()));
        refresh(ledger.snapshot());
    }

    public ObservableList<ProcessRow> rows() {
        return rowsView;
    }

    public ReadOnlyStringProperty summaryProperty() {
        return summary.getReadOnlyProperty();
    }

    /** Whether stopped processes are listed (off by default). */
    public BooleanProperty showStoppedProperty() {
        return showStopped;
    }

    /** The toggle's text: {@code Show stopped (12)}. */
    public ReadOnlyStringProperty showStoppedTextProperty() {
        return showStoppedText.getReadOnlyProperty();
    }

    public LiveLedger ledger() {
        return ledger;
    }

    public ProcessState stateOf(ProcessRow row) {
        return row.stateAt(ledger.now());
    }

    /** What the State column shows: a CLI identity that never beat is neither live nor stale. */
    public Shown shownOf(ProcessRow row) {
        return shownAt(row, ledger.now());
    }

    /** What the State column shows of {@code row} at {@code now}. */
    public static Shown shownAt(ProcessRow row, long now) {
        // the engine's one definition (Staleness): the supervisor's tick counts the same stale processes
        return switch (row.stateAt(now)) {
            case STOPPED -> Shown.STOPPED;
            case NO_HEARTBEAT -> Shown.NO_HEARTBEAT;
            case STALE -> Shown.STALE;
            case LIVE -> Shown.LIVE;
        };
    }

    /** A CLI identity that has never sent a heartbeat: its interval means nothing. */
    public static boolean neverBeatingCli(ProcessRow row) {
        return !row.promisedToBeat();
    }

    /** The "Beats every" column: the interval, or a dash for a CLI identity that does not beat. */
    public static String beatsEvery(ProcessRow row) {
        return neverBeatingCli(row) ? "\u2014" : Formats.duration(row.heartbeatIntervalMs());
    }

    private void refresh(AdminSnapshot s) {
        all = s == null ? List.of() : s.processes();
        long now = ledger.now();
        List<ProcessRow> fresh = all.stream()
                // a search finds stopped processes too: it should find anything
                .filter(r -> showStopped.get() || ledger.search().isActive() || r.stateAt(now) != ProcessState.STOPPED)
                .filter(r -> ledger.search()
                        .matches(new long[0], Search.concat(Search.names(r.process()), r.kind(), r.lastClaimedBy())))
                .toList();
        if (!fresh.equals(rows)) {
            rows.setAll(fresh);
        }
        updateSummary();
    }

    private void updateSummary() {
        long now = ledger.now();
        int[] n = new int[Shown.values().length];
        all.forEach(r -> n[shownAt(r, now).ordinal()]++);
        int stopped = n[Shown.STOPPED.ordinal()];
        summary.set(n[Shown.LIVE.ordinal()] + " live \u00b7 " + n[Shown.STALE.ordinal()] + " stale \u00b7 "
                + (n[Shown.NO_HEARTBEAT.ordinal()] == 0
                        ? ""
                        : n[Shown.NO_HEARTBEAT.ordinal()] + " CLI without heartbeat \u00b7 ")
                + stopped + " stopped" + (showStopped.get() || stopped == 0 ? "" : " (hidden)"));
        showStoppedText.set("Show stopped (" + stopped + ")");
    }
}
