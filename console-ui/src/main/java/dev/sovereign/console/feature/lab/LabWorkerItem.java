package dev.sovereign.console.feature.lab;

import dev.sovereign.engine.lab.WorkerProcess;
import java.time.Duration;
import java.util.Locale;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * One real worker process shown on the Lab page: what it is (label, pid, actor), what the OS says
 * (running, paused, ended), what the ledger says (hosting with which token, or waiting), its clock
 * offset and the last line it printed. UI-thread confined; the {@link LabViewModel} updates it.
 */
public final class LabWorkerItem {
    /** Where the process stands, as far as the console knows. */
    public enum State {
        STARTING,
        RUNNING,
        PAUSED,
        ENDED;

        public String text() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final WorkerProcess process;
    private final boolean fromScenario;
    private final ReadOnlyObjectWrapper<State> state = new ReadOnlyObjectWrapper<>(this, "state", State.STARTING);
    private final ReadOnlyStringWrapper ledger = new ReadOnlyStringWrapper(this, "ledger", "");
    private final ReadOnlyBooleanWrapper hosting = new ReadOnlyBooleanWrapper(this, "hosting");
    private final ReadOnlyStringWrapper lastLine = new ReadOnlyStringWrapper(this, "lastLine", "");
    /** How many of its newest lines the page keeps to show (issue 31, item 20). */
    static final int RECENT_LINES = 50;

    private final ObservableList<String> recent = FXCollections.observableArrayList();
    private final ObservableList<String> recentView = FXCollections.unmodifiableObservableList(recent);
    private final ReadOnlyObjectWrapper<Duration> clockOffset;
    private final ReadOnlyBooleanWrapper busy = new ReadOnlyBooleanWrapper(this, "busy");
    private final ReadOnlyStringWrapper endedHow = new ReadOnlyStringWrapper(this, "endedHow", "");
    /** The token the ledger last showed it holding while it ran: what a paused worker still believes. */
    private Long believedToken;

    LabWorkerItem(WorkerProcess process, boolean fromScenario) {
        this.process = process;
        this.fromScenario = fromScenario;
        this.clockOffset = new ReadOnlyObjectWrapper<>(this, "clockOffset", process.clockOffset());
    }

    WorkerProcess process() {
        return process;
    }

    public String label() {
        return process.label();
    }

    public long pid() {
        return process.pid();
    }

    public String actor() {
        return process.actor();
    }

    /** Its fencing identity once it printed its {@code started} line, else null. */
    public String identity() {
        return process.processIdentity();
    }

    /** Started by a scenario: shown, but controlled by the scenario, not by hand. */
    public boolean isFromScenario() {
        return fromScenario;
    }

    public boolean isFaultInjected() {
        return process.isFaultInjected();
    }

    public ReadOnlyObjectProperty<State> stateProperty() {
        return state.getReadOnlyProperty();
    }

    public State state() {
        return state.get();
    }

    void setState(State s) {
        state.set(s);
    }

    /** {@code hosts operator · token 12}, {@code waits for operator (held by worker B, token 12)}, or empty. */
    public ReadOnlyStringProperty ledgerProperty() {
        return ledger.getReadOnlyProperty();
    }

    void setLedger(String text, boolean hosts) {
        ledger.set(text);
        hosting.set(hosts);
    }

    Long believedToken() {
        return believedToken;
    }

    void setBelievedToken(Long token) {
        believedToken = token;
    }

    /** Whether the ledger names this process as the holder of its actor's lease. */
    public ReadOnlyBooleanProperty hostingProperty() {
        return hosting.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty lastLineProperty() {
        return lastLine.getReadOnlyProperty();
    }

    void setLastLine(String line) {
        lastLine.set(line);
        recent.add(line);
        if (recent.size() > RECENT_LINES) {
            recent.remove(0, recent.size() - RECENT_LINES);
        }
    }

    /** Its newest lines, oldest first, at most {@link #RECENT_LINES}: what the page's output pane shows. */
    public ObservableList<String> recentLines() {
        return recentView;
    }

    public ReadOnlyObjectProperty<Duration> clockOffsetProperty() {
        return clockOffset.getReadOnlyProperty();
    }

    void setClockOffset(Duration d) {
        clockOffset.set(d);
    }

    /** An action on it is in flight (buttons are disabled meanwhile). */
    public ReadOnlyBooleanProperty busyProperty() {
        return busy.getReadOnlyProperty();
    }

    void setBusy(boolean b) {
        busy.set(b);
    }

    /** How it ended ({@code exit 0}, {@code killed (SIGKILL)}), once {@link State#ENDED}. */
    public ReadOnlyStringProperty endedHowProperty() {
        return endedHow.getReadOnlyProperty();
    }

    void setEndedHow(String how) {
        endedHow.set(how);
    }

    /** {@code +5 s}, {@code -2 s}, or {@code true clock}. */
    public static String offsetText(Duration d) {
        if (d == null || d.isZero()) {
            return "true clock";
        }
        long ms = d.toMillis();
        String n = ms % 1000 == 0 ? Long.toString(Math.abs(ms / 1000)) + " s" : Math.abs(ms) + " ms";
        return (ms > 0 ? "+" : "\u2212") + n;
    }
}
