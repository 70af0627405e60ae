package dev.sovereign.console.shell;

import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.AssignmentRow;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.base.LedgerLocation;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Set;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.collections.ListChangeListener;

/**
 * Issue 17, item 10: tells the operator, without being asked, when a run becomes worker-lost or refused
 * writes spike ({@value #SPIKE} or more within a minute). Each alert is one sentence; the status bar shows
 * how many came since they were last looked at. Only changes seen while a database is attached count:
 * what a database already had when it was opened is not news. Can be turned off (remembered).
 * UI-thread confined.
 */
public final class Alerts {
    /** Refused writes within {@link #SPIKE_WINDOW_MS} that make a spike. */
    public static final int SPIKE = 10;

    static final long SPIKE_WINDOW_MS = 60_000;

    private final LiveLedger ledger;
    private final BooleanProperty enabled = new SimpleBooleanProperty(this, "enabled", true);
    private final ReadOnlyStringWrapper latest = new ReadOnlyStringWrapper(this, "latest", "");
    private final ReadOnlyIntegerWrapper unseen = new ReadOnlyIntegerWrapper(this, "unseen");
    /** Runs already known to need an operator in this database (so each is told once). */
    private final Set<String> knownLost = new HashSet<>();

    private final Deque<Long> recentRejections = new ArrayDeque<>();
    /** Unseen alerts about runs, by run id, oldest first: one goes when its run no longer needs an operator. */
    private final LinkedHashMap<String, String> unseenRuns = new LinkedHashMap<>();
    /** Unseen alerts about no run (refusal spikes). */
    private int unseenOther;
    /** The run the latest alert is about, or null. */
    private String latestRun;

    private LedgerLocation database;
    /** The journal's last seq when this database was opened: refusals after it are news. */
    private long baselineSeq = Long.MAX_VALUE;

    private long lastSpikeAlert = Long.MIN_VALUE / 2; // half: "now - it" must not overflow

    Alerts(LiveLedger ledger) {
        this.ledger = ledger;
        ledger.snapshotProperty().addListener((obs, old, s) -> onSnapshot(s));
        ledger.rejections().addListener((ListChangeListener<JournalEntry>) c -> {
            while (c.next()) {
                if (c.wasAdded()) {
                    // only refusals after the database was opened: the feed's first fill is its past
                    c.getAddedSubList().stream()
                            .filter(e -> e.seq() > baselineSeq)
                            .forEach(e -> recentRejections.addLast(e.at()));
                    checkSpike();
                }
            }
        });
    }

    public BooleanProperty enabledProperty() {
        return enabled;
    }

    /** The last alert's sentence, or empty. */
    public ReadOnlyStringProperty latestProperty() {
        return latest.getReadOnlyProperty();
    }

    /** Alerts since the operator last looked ({@link #seen}). */
    public ReadOnlyIntegerProperty unseenProperty() {
        return unseen.getReadOnlyProperty();
    }

    /** The operator looked: the status bar's count goes back to zero. */
    public void seen() {
        unseenRuns.clear();
        unseenOther = 0;
        unseen.set(0);
    }

    /** The run the latest alert is about (to open it selected), or null when it is about none. */
    public String latestRun() {
        return latestRun;
    }

    private void onSnapshot(AdminSnapshot s) {
        if (s == null) {
            return; // detached, or another file is being opened: keep what is known until the next one
        }
        boolean fresh = !s.location().equals(database);
        if (fresh) {
            database = s.location();
            baselineSeq = s.lastSeq();
            knownLost.clear();
            recentRejections.clear();
            latest.set("");
            latestRun = null;
            seen();
        }
        // a run retried or acknowledged meanwhile is no longer news: its alert goes (issue 31)
        Set<String> waiting = new HashSet<>();
        s.assignments().stream().filter(AssignmentRow::needsOperator).forEach(a -> waiting.add(a.id()));
        if (unseenRuns
                .keySet()
                .removeIf(
                        id -> !waiting.contains(id) && s.assignments().stream().anyMatch(a -> a.id().equals(id)))) {
            unseen.set(unseenRuns.size() + unseenOther);
        }
        if (latestRun != null
                && !waiting.contains(latestRun)
                && s.assignments().stream().anyMatch(a -> a.id().equals(latestRun))) {
            var next = unseenRuns.entrySet().stream().reduce((a, b) -> b).orElse(null);
            latestRun = next == null ? null : next.getKey();
            latest.set(next == null ? "" : next.getValue());
        }
        for (AssignmentRow a : s.assignments()) {
            if (a.needsOperator() && knownLost.add(a.id()) && !fresh) {
                alert(
                        "Run " + a.id() + " of actor " + a.actor() + " needs an operator: its worker died and the"
                                + " supervisor recovered it as worker_lost.",
                        a.id());
            }
        }
    }

    private void checkSpike() {
        long now = ledger.now();
        while (!recentRejections.isEmpty() && recentRejections.peekFirst() < now - SPIKE_WINDOW_MS) {
            recentRejections.removeFirst();
        }
        if (recentRejections.size() >= SPIKE && now - lastSpikeAlert >= SPIKE_WINDOW_MS) {
            lastSpikeAlert = now;
            alert(recentRejections.size() + " refused writes in the last minute: see the Rejections page.", null);
        }
    }

    private void alert(String sentence, String run) {
        if (!enabled.get()) {
            return;
        }
        latestRun = run;
        latest.set(sentence);
        if (run == null) {
            unseenOther++;
        } else {
            unseenRuns.put(run, sentence);
        }
        unseen.set(unseenRuns.size() + unseenOther);
    }
}
