package dev.sovereign.console.shell;

import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.AssignmentRow;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.base.LedgerLocation;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.collections.ListChangeListener;

/**
 * Issue 17, item 10: tells the operator, without being asked, when a run comes to need them ({@link
 * AssignmentRow#needsOperator()}: it ended failed or blocked, worker-lost or not) or refused writes spike ({@value #SPIKE} or more within a minute). Each alert is one sentence. Only changes seen while a
 * database is attached raise one: what a database already had when it was opened is not news. The status bar's
 * count is one number for one fact (issue 31): the runs that need the operator as the ledger counts them (the
 * Runs page's number), plus a spike not yet looked at. Can be turned off (remembered).
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
    private final Set<String> knownWaiting = new HashSet<>();

    private final Deque<Long> recentRejections = new ArrayDeque<>();
    /**
     * The ledger's count of runs that need the operator at the last snapshot (0 when alerts are off): the status
     * bar shows it as it is, not a tally of alerts, so it agrees with the Runs page and drops when a run is seen to.
     */
    private long waitingRuns;
    /** The oldest run the last snapshot lists as needing the operator, or null: the one the alerts open. */
    private String oldestWaiting;
    /** Unseen alerts about no run (refusal spikes). */
    private int unseenOther;
    /** The run the latest alert is about, or null. */
    private String latestRun;

    private LedgerLocation database;
    private AdminSnapshot lastSnapshot;
    /** The journal's last seq when this database was opened: refusals after it are news. */
    private long baselineSeq = Long.MAX_VALUE;

    private long lastSpikeAlert = Long.MIN_VALUE / 2; // half: "now - it" must not overflow

    Alerts(LiveLedger ledger) {
        this.ledger = ledger;
        ledger.snapshotProperty().addListener((obs, old, s) -> onSnapshot(s));
        // turned off, the count goes at once; turned on, it is the ledger's again (not at the next snapshot only)
        enabled.addListener((obs, was, on) -> {
            waitingRuns = on && lastSnapshot != null ? lastSnapshot.counts().needsOperator() : 0;
            if (!on) {
                unseenOther = 0;
            }
            unseen.set((int) waitingRuns + unseenOther);
        });
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

    /**
     * The runs that need the operator now (the ledger's count, as on the Runs page) plus the refusal spikes not
     * yet looked at ({@link #seen}).
     */
    public ReadOnlyIntegerProperty unseenProperty() {
        return unseen.getReadOnlyProperty();
    }

    /**
     * The operator looked: the spikes are no longer counted. The runs stay counted while they need the operator:
     * looking at a run does not see to it, a retry or an acknowledgement does.
     */
    public void seen() {
        unseenOther = 0;
        unseen.set((int) waitingRuns);
    }

    /** The run the latest alert is about, or null when it is about none. */
    public String latestRun() {
        return latestRun;
    }

    /**
     * The run the alerts open, selected: the oldest that needs the operator (issue 31), or null when none does
     * (then the latest alert is about a spike, or there is none).
     */
    public String runToOpen() {
        return oldestWaiting;
    }

    /** Whether the latest alert is a refusal spike not yet looked at: then the alerts open the Rejections page. */
    public boolean spikeIsNews() {
        return latestRun == null && unseenOther > 0;
    }

    /** The sentence about {@link #runToOpen()}, for the banner; empty when no run needs the operator. */
    public String runToOpenSentence() {
        return oldestWaiting == null ? "" : sentenceAbout(lastSnapshot, oldestWaiting);
    }

    private void onSnapshot(AdminSnapshot s) {
        if (s == null) {
            return; // detached, or another file is being opened: keep what is known until the next one
        }
        lastSnapshot = s;
        boolean fresh = !s.location().equals(database);
        if (fresh) {
            database = s.location();
            baselineSeq = s.lastSeq();
            knownWaiting.clear();
            recentRejections.clear();
            latest.set("");
            latestRun = null;
            seen();
        }
        // one number for one fact (issue 31): the runs counted are the ledger's own count of runs that need the
        // operator, the same number the Runs page shows; a run retried or acknowledged leaves it at this snapshot
        waitingRuns = enabled.get() ? s.counts().needsOperator() : 0;
        oldestWaiting = s.assignments().stream()
                .filter(AssignmentRow::needsOperator)
                .min(Comparator.comparingLong(AssignmentRow::createdAt).thenComparing(AssignmentRow::id))
                .map(AssignmentRow::id)
                .orElse(null);
        if (latestRun != null && oldestWaiting == null) {
            latestRun = null;
            latest.set("");
        } else if (latestRun != null
                && s.assignments().stream().anyMatch(a -> a.id().equals(latestRun) && !a.needsOperator())) {
            latestRun = oldestWaiting;
            latest.set(sentenceAbout(s, oldestWaiting));
        }
        unseen.set((int) waitingRuns + unseenOther);
        for (AssignmentRow a : s.assignments()) {
            if (a.needsOperator() && knownWaiting.add(a.id()) && !fresh) {
                alert(sentenceAbout(a), a.id());
            }
        }
    }

    private static String sentenceAbout(AdminSnapshot s, String run) {
        return s.assignments().stream()
                .filter(a -> a.id().equals(run))
                .findFirst()
                .map(Alerts::sentenceAbout)
                .orElse("Run " + run + " needs an operator.");
    }

    /** Why a run needs the operator, in one sentence: its worker died, or how it ended. */
    static String sentenceAbout(AssignmentRow a) {
        String why;
        if (a.isWorkerLost()) {
            why = "its worker died and the supervisor recovered it as worker_lost.";
        } else if (a.receipt() != null && a.receipt().failureCategory() != null) {
            why = "it ended " + a.state() + " (" + a.receipt().failureCategory() + ").";
        } else {
            why = "it ended " + a.state() + ".";
        }
        return "Run " + a.id() + " of actor " + a.actor() + " needs an operator: " + why;
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
        }
        unseen.set((int) waitingRuns + unseenOther);
    }
}
