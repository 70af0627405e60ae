package dev.sovereign.console.feature.processes;

import dev.sovereign.console.actions.ActionStatus;
import dev.sovereign.console.actions.OperatorDesk;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.AttemptRow;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.admin.ProcessRow;
import dev.sovereign.engine.admin.ProcessState;
import java.util.List;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.BooleanBinding;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.SimpleObjectProperty;

/**
 * "Stop process…" (issue 17, item 11): marks a process stopped through {@code OperatorActions.stopProcess}
 * (decision 0304), after a question that names the process and says what becomes of what it holds — nothing is
 * released: its leases expire and the next host takes them over, its running attempts are recovered by the
 * supervisor as worker_lost once they expire, and the fence keeps its late writes out. Disabled for a stopped
 * process and while no operator actions are available (a read-only view). UI-thread confined.
 */
public final class StopProcessAction {
    /** The question awaiting the operator's answer. */
    public record Question(String identity, String text, String confirmText) {}

    private final LiveLedger ledger;
    private final OperatorDesk desk;
    private final ActionStatus status = new ActionStatus();
    private final ObjectProperty<ProcessRow> target = new SimpleObjectProperty<>(this, "target");
    private final ReadOnlyObjectWrapper<Question> pending = new ReadOnlyObjectWrapper<>(this, "pending");
    private final BooleanBinding canStop;

    public StopProcessAction(LiveLedger ledger, OperatorDesk desk) {
        this.ledger = ledger;
        this.desk = desk;
        canStop = Bindings.createBooleanBinding(
                () -> desk.availableProperty().get()
                        && !status.isBusy()
                        && target.get() != null
                        && target.get().stoppedAt() == null,
                target,
                desk.availableProperty(),
                status.busyProperty());
        // a question about another database's process must not be answered on this one
        ledger.snapshotProperty().addListener((obs, old, s) -> {
            if (s == null || old == null || !s.location().equals(old.location())) {
                pending.set(null);
            }
        });
    }

    /** The process the button acts on (the selected row, or the process page's own); the view keeps it current. */
    public ObjectProperty<ProcessRow> targetProperty() {
        return target;
    }

    public BooleanBinding canStopProperty() {
        return canStop;
    }

    public ReadOnlyObjectProperty<Question> pendingProperty() {
        return pending.getReadOnlyProperty();
    }

    public ActionStatus status() {
        return status;
    }

    /** Asks first: which process, and what happens to its leases and runs. */
    public void ask() {
        ProcessRow p = target.get();
        if (!canStop.get()) {
            return;
        }
        pending.set(new Question(p.process().identity(), question(p, ledger.snapshot()), "Stop process"));
    }

    public void cancel() {
        pending.set(null);
    }

    /** Stops the process asked about, in the background; the outcome in one sentence. */
    public void confirm() {
        Question q = pending.get();
        pending.set(null);
        if (q == null || !desk.availableProperty().get()) {
            return;
        }
        ProcessRow p =
                target.get() != null && target.get().process().identity().equals(q.identity()) ? target.get() : null;
        String name = p == null ? q.identity() : p.process().displayName();
        desk.run(
                status,
                "Stopping " + name + "\u2026",
                actions -> {
                    actions.stopProcess(q.identity());
                    return q.identity();
                },
                id -> "Marked " + name + " stopped (journalled); its leases and runs were not released.",
                id -> {});
    }

    /** The confirmation's words: the process by name, then what it holds now and what becomes of it. */
    static String question(ProcessRow p, AdminSnapshot s) {
        String id = p.process().identity();
        List<LeaseRow> leases = s == null
                ? List.of()
                : s.leases().stream()
                        .filter(l -> l.holder() != null && l.holder().identity().equals(id))
                        .toList();
        List<AttemptRow> running = s == null
                ? List.of()
                : s.attempts().stream()
                        .filter(a -> a.process().identity().equals(id) && "ACTIVE".equals(a.state()))
                        .toList();
        StringBuilder sb = new StringBuilder("Stop process ")
                .append(p.process().displayName())
                .append(p.process().pid() == null ? "" : ", pid " + p.process().pid())
                .append(p.process().host() == null ? "" : " on " + p.process().host())
                .append("? It is marked stopped in the registry and the stop is journalled; the process itself is"
                        + " not signalled.");
        if (leases.isEmpty()) {
            sb.append(" It holds no lease.");
        } else {
            sb.append(" Its ")
                    .append(leases.size() == 1 ? "lease" : leases.size() + " leases")
                    .append(" (")
                    .append(String.join(
                            ", ",
                            leases.stream()
                                    .map(l -> l.actor() + " token " + l.token())
                                    .toList()))
                    .append(leases.size() == 1 ? ") is" : ") are")
                    .append(" not released: each expires on its own and the next host takes it over.");
        }
        if (running.isEmpty()) {
            sb.append(" It runs nothing.");
        } else {
            // the attempt named as an attempt, with the run it belongs to (an assignment id called an attempt misled)
            sb.append(" Its ")
                    .append(running.size() == 1 ? "running attempt" : running.size() + " running attempts")
                    .append(" (")
                    .append(String.join(
                            ", ",
                            running.stream()
                                    .map(a -> a.id() + " of run " + a.assignmentId())
                                    .toList()))
                    .append(running.size() == 1 ? ") is" : ") are")
                    .append(" recovered by the supervisor as worker_lost once expired.");
        }
        sb.append(" Its late writes are refused by the fence as always.");
        return sb.toString();
    }

    /** Whether {@code p} can still be stopped (a stopped one cannot). */
    public static boolean stoppable(ProcessRow p, long now) {
        return p != null && p.stateAt(now) != ProcessState.STOPPED;
    }
}
