package dev.sovereign.console.actions;

import dev.sovereign.console.fx.UiExecutor;
import dev.sovereign.engine.Ledgers;
import dev.sovereign.engine.admin.OperatorActions;
import dev.sovereign.engine.admin.SupervisorTickRow;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.StorageException;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongFunction;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;

/**
 * Where the console's operator actions run: on the attached file (once the reader accepted it),
 * through {@link OperatorActions} — an engine of kind {@code console} opened on the first action, not
 * on attach, so a console that only watches never registers a process or writes anything. Every
 * action runs on a background thread of the {@link UiExecutor}; its progress and its outcome (one
 * sentence: what happened, or the refusal's own sentence) go to the feature's {@link ActionStatus}.
 *
 * <p>Also keeps the state of this console's auto-ticking supervisor, and the last tick it made.
 *
 * <p>UI-thread confined; the session behind it is touched only by background threads.
 */
public final class OperatorDesk implements AutoCloseable {
    /** Opens the actions on a ledger; the app uses {@code Ledgers.openOperatorActions(LedgerLocation)}. */
    @FunctionalInterface
    public interface ActionsOpener {
        OperatorActions open(LedgerLocation database);
    }

    /** The real actions, the app's: an engine of kind {@code console} on the ledger, on {@code clock}. */
    public static ActionsOpener realActions(Clock clock) {
        return location -> Ledgers.openOperatorActions(location, clock);
    }

    /** The supervisor intervals the console offers. */
    public static final List<Duration> INTERVALS = List.of(
            Duration.ofMillis(500),
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            Duration.ofSeconds(5),
            Duration.ofSeconds(10));

    private final UiExecutor ui;
    private final ActionsOpener opener;
    private final ReadOnlyBooleanWrapper available = new ReadOnlyBooleanWrapper(this, "available");
    private final ReadOnlyBooleanWrapper supervisorRunning = new ReadOnlyBooleanWrapper(this, "supervisorRunning");
    private final ReadOnlyObjectWrapper<Duration> supervisorInterval =
            new ReadOnlyObjectWrapper<>(this, "supervisorInterval", Duration.ofSeconds(1));
    private final ReadOnlyObjectWrapper<SupervisorTickRow> lastOwnTick =
            new ReadOnlyObjectWrapper<>(this, "lastOwnTick");
    private final ReadOnlyStringWrapper supervisorProblem = new ReadOnlyStringWrapper(this, "supervisorProblem", "");
    private Session session;
    /** Every feature's status this desk has reported to; forgotten when the database is let go. */
    private final Set<ActionStatus> statuses = Collections.newSetFromMap(new IdentityHashMap<>());

    public OperatorDesk(UiExecutor ui, ActionsOpener opener) {
        this.ui = ui;
        this.opener = opener;
    }

    /** The file the reader accepted: actions may now be opened on it (lazily). */
    public void attach(LedgerLocation database) {
        detach();
        session = new Session(database);
        available.set(true);
    }

    /** Stops this console's supervisor and closes the actions, in the background. */
    public void detach() {
        Session s = session;
        session = null;
        // a result about the database let go must not show over the next one (issue 17)
        statuses.forEach(ActionStatus::forget);
        available.set(false);
        supervisorRunning.set(false);
        lastOwnTick.set(null);
        supervisorProblem.set("");
        if (s != null) {
            ui.background(
                    () -> {
                        s.close();
                        return null;
                    },
                    x -> {},
                    x -> {});
        }
    }

    /**
     * Runs {@code action} in the background. {@code working} shows at once; then the sentence
     * {@code done} makes of the result, or the refusal's sentence. {@code after} gets the result on
     * the UI thread (only if the same file is still attached).
     */
    public <T> void run(
            ActionStatus status,
            String working,
            Function<OperatorActions, T> action,
            Function<T, String> done,
            Consumer<T> after) {
        Session s = session;
        if (s == null) {
            status.working(working);
            status.finished(ActionStatus.Tone.FAILED, "No database is attached.");
            return;
        }
        statuses.add(status);
        status.working(working);
        ui.background(
                () -> {
                    OperatorActions actions = s.borrow();
                    try {
                        return action.apply(actions);
                    } finally {
                        s.giveBack();
                    }
                },
                result -> {
                    if (s != session) {
                        return; // about a database no longer attached: its status was forgotten
                    }
                    status.finished(ActionStatus.Tone.DONE, done.apply(result));
                    after.accept(result);
                },
                problem -> {
                    if (s == session) {
                        status.finished(
                                problem instanceof Refusal ? ActionStatus.Tone.REFUSED : ActionStatus.Tone.FAILED,
                                sentence(problem));
                    }
                });
    }

    /**
     * Runs one supervisor tick now; its sentence gives its time as {@code time} writes it (the console's format and
     * zone), so it is not taken for a newer tick of another supervisor (decision 0428).
     */
    public void tickNow(ActionStatus status, LongFunction<String> time, Consumer<SupervisorTickRow> after) {
        run(
                status,
                "Running a supervisor tick\u2026",
                OperatorActions::tickSupervisor,
                t -> describeTick(t, time.apply(t.at())),
                after);
    }

    /** Starts (or restarts with a new interval) this console's auto-ticking supervisor. */
    public void startSupervisor(Duration interval, ActionStatus status) {
        run(
                status,
                "Starting the supervisor\u2026",
                a -> {
                    a.startSupervisor(interval);
                    return interval;
                },
                i -> "Started this console's supervisor.",
                i -> { // the page says how often, once (issue 31)
                    supervisorInterval.set(i);
                    supervisorRunning.set(true);
                });
    }

    /** Stops this console's auto-ticking supervisor after its tick in progress. */
    public void stopSupervisor(ActionStatus status) {
        run(
                status,
                "Stopping the supervisor\u2026",
                a -> {
                    a.stopSupervisor();
                    return Boolean.TRUE;
                },
                x -> "Stopped this console's supervisor.",
                x -> supervisorRunning.set(false));
    }

    /** This console's tick's outcome in one sentence: {@code Tick done at 10:42:07 by this console: …}. */
    public static String describeTick(SupervisorTickRow t, String at) {
        String done = "Tick done at " + at + " by this console: ";
        if (t.recovered() + t.sweptClaims() + t.failures() == 0) {
            return done + "nothing to recover, no expired claims (" + t.expiredLeases() + " expired "
                    + (t.expiredLeases() == 1 ? "lease" : "leases") + " reported).";
        }
        return done + t.recovered() + (t.recovered() == 1 ? " run" : " runs") + " recovered as worker_lost, "
                + t.sweptClaims() + (t.sweptClaims() == 1 ? " claim" : " claims") + " swept"
                + (t.failures() == 0 ? "." : ", " + t.failures() + (t.failures() == 1 ? " failure." : " failures."));
    }

    /** {@code 1 s}, {@code 0.5 s}. */
    public static String seconds(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + " s" : String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }

    static String sentence(Throwable problem) {
        if (problem instanceof Refusal
                || problem instanceof StorageException
                || problem instanceof IllegalArgumentException) {
            return problem.getMessage();
        }
        String m = problem.getMessage() == null ? problem.getClass().getSimpleName() : problem.getMessage();
        int nl = m.indexOf('\n');
        return "The action failed: " + (nl < 0 ? m : m.substring(0, nl));
    }

    /** Whether a database is attached, so actions can run. */
    public ReadOnlyBooleanProperty availableProperty() {
        return available.getReadOnlyProperty();
    }

    /** Whether this console's own supervisor ticks by itself. */
    public ReadOnlyBooleanProperty supervisorRunningProperty() {
        return supervisorRunning.getReadOnlyProperty();
    }

    /** The interval of this console's supervisor (the last one started, or the default). */
    public ReadOnlyObjectProperty<Duration> supervisorIntervalProperty() {
        return supervisorInterval.getReadOnlyProperty();
    }

    /** The last tick this console made (auto or asked), or null. */
    public ReadOnlyObjectProperty<SupervisorTickRow> lastOwnTickProperty() {
        return lastOwnTick.getReadOnlyProperty();
    }

    /** Empty, or the last failure of this console's auto-ticking supervisor in one sentence. */
    public ReadOnlyStringProperty supervisorProblemProperty() {
        return supervisorProblem.getReadOnlyProperty();
    }

    /** Closes the actions now, on the calling thread (the app's exit); waits for the supervisor's last tick. */
    @Override
    public void close() {
        Session s = session;
        session = null;
        available.set(false);
        supervisorRunning.set(false);
        if (s != null) {
            s.close();
        }
    }

    /**
     * One attached file's actions, opened for an action and closed when the last action in flight is done, unless
     * this console's supervisor ticks by itself (issue 31 item 9): the console writes only while it acts. Its process
     * registers with the action and stops after it, as a CLI call's does; only a running supervisor keeps one process
     * beating. Thread-safe.
     */
    private final class Session implements OperatorActions.SupervisorListener {
        private final LedgerLocation database;
        private OperatorActions actions;
        private int inUse;
        private boolean closed;

        Session(LedgerLocation database) {
            this.database = database;
        }

        /** The actions for one action, opened if none are: give them back when the action is done. */
        synchronized OperatorActions borrow() {
            if (closed) {
                throw new IllegalStateException("The database was closed before the action ran.");
            }
            if (actions == null) {
                actions = opener.open(database);
                actions.addSupervisorListener(this);
            }
            inUse++;
            return actions;
        }

        /** One action done: the last one closes the actions (its process stops) unless the supervisor runs. */
        synchronized void giveBack() {
            inUse--;
            if (inUse == 0 && actions != null && !actions.isSupervisorRunning()) {
                OperatorActions done = actions;
                actions = null;
                done.close();
            }
        }

        synchronized void close() {
            closed = true;
            if (actions != null) {
                actions.close();
            }
        }

        @Override
        public void ticked(SupervisorTickRow tick) {
            ui.onUi(() -> {
                if (session == this) {
                    lastOwnTick.set(tick);
                    supervisorProblem.set("");
                }
            });
        }

        @Override
        public void failed(String sentence) {
            ui.onUi(() -> {
                if (session == this) {
                    supervisorProblem.set(sentence);
                }
            });
        }
    }
}
