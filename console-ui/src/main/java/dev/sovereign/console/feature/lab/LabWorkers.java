package dev.sovereign.console.feature.lab;

import dev.sovereign.console.fx.UiExecutor;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.lab.LabBench;
import dev.sovereign.engine.lab.WorkerProcess;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The Lab page's worker processes: the form that starts one (actor, TTL, clock offset), the list of
 * workers started by hand or by a scenario, and what can be done to one (pause, resume, kill, stop,
 * skew, give its actor a job). Each worker's row follows the process (its output lines, its exit) and
 * the ledger (does it host its actor, with which token).
 *
 * <p>UI-thread confined; worker output arrives from other threads and is handed to the UI thread.
 */
final class LabWorkers {
    private final LiveLedger ledger;
    private final UiExecutor ui;
    private final ReadOnlyObjectProperty<LedgerLocation> target;
    private final BooleanProperty breakFence;
    private final LabBenches benches;
    private final LabActivity activity;

    private final ObservableList<LabWorkerItem> workers = FXCollections.observableArrayList();
    /** Made once: a fresh unmodifiable wrapper per call would drop listeners when collected. */
    private final ObservableList<LabWorkerItem> workersView = FXCollections.unmodifiableObservableList(workers);

    private final StringProperty actor = new SimpleStringProperty(this, "actor", "operator");
    private final ObjectProperty<Duration> ttl = new SimpleObjectProperty<>(this, "ttl", Duration.ofSeconds(2));
    private final ObjectProperty<Duration> clockOffset = new SimpleObjectProperty<>(this, "clockOffset", Duration.ZERO);
    /** Bumped whenever a worker row ends: the summary counts the living. */
    private final ReadOnlyIntegerWrapper revision = new ReadOnlyIntegerWrapper(this, "revision");

    private int letters;

    LabWorkers(
            LiveLedger ledger,
            UiExecutor ui,
            ReadOnlyObjectProperty<LedgerLocation> target,
            BooleanProperty breakFence,
            LabBenches benches,
            LabActivity activity) {
        this.ledger = ledger;
        this.ui = ui;
        this.target = target;
        this.breakFence = breakFence;
        this.benches = benches;
        this.activity = activity;
        ledger.snapshotProperty().addListener((obs, o, s) -> refreshLedgerStatus());
    }

    /** The actor in the form, trimmed; empty when none is named. */
    String formActor() {
        return actor.get() == null ? "" : actor.get().trim();
    }

    /** Starts a real worker for the chosen actor (added if missing), TTL, clock offset and fence switch. */
    void start() {
        LedgerLocation t = target.get();
        String a = formActor();
        if (t == null) {
            activity.problem(LabSentences.NO_DATABASE);
            return;
        }
        if (a.isEmpty()) {
            activity.problem("Name the actor the worker should host.");
            return;
        }
        String label = LabSentences.manualWorkerLabel(nextLetter());
        Duration workerTtl = ttl.get();
        Duration offset = clockOffset.get();
        boolean fault = breakFence.get();
        activity.act(
                "Starting " + label,
                () -> {
                    LabBench b = benches.forTarget(t);
                    b.ensureActor(a);
                    return b.startWorker(new WorkerProcess.Spec(t, a, workerTtl, offset, label), fault);
                },
                w -> {
                    track(w, false);
                    activity.say(LabSentences.workerStarted(label, w.pid(), a, workerTtl, offset, fault));
                });
    }

    /** Gives the chosen actor a {@link LabViewModel#JOB_LENGTH} scripted job; the worker hosting it runs it. */
    void giveJob() {
        LedgerLocation t = target.get();
        String a = formActor();
        if (t == null || a.isEmpty()) {
            activity.problem(t == null ? LabSentences.NO_DATABASE : "Name the actor first.");
            return;
        }
        Duration length = LabViewModel.JOB_LENGTH;
        activity.act(
                "Giving " + a + " a job",
                () -> {
                    LabBench b = benches.forTarget(t);
                    b.ensureActor(a);
                    return b.assignJob(a, length);
                },
                id -> activity.say(LabSentences.jobGiven(a, length, id)));
    }

    void pause(LabWorkerItem item) {
        onWorker(item, LabWorkerItem.State.RUNNING, "Pausing", b -> b.pause(item.process()), () -> {
            item.setState(LabWorkerItem.State.PAUSED);
            refreshLedgerStatus();
            activity.say(LabSentences.paused(item.label(), WorkerProcess.hasStopSignals()));
        });
    }

    void resume(LabWorkerItem item) {
        onWorker(item, LabWorkerItem.State.PAUSED, "Resuming", b -> b.resume(item.process()), () -> {
            item.setState(LabWorkerItem.State.RUNNING);
            refreshLedgerStatus();
            activity.say(LabSentences.resumed(item.label(), WorkerProcess.hasStopSignals()));
        });
    }

    void kill(LabWorkerItem item) {
        onWorker(
                item,
                null,
                "Killing",
                b -> b.kill(item.process()),
                () -> activity.say(LabSentences.killed(item.label())));
    }

    /** SIGTERM: it releases its lease and exits. */
    void stop(LabWorkerItem item) {
        onWorker(
                item,
                null,
                "Stopping",
                b -> b.stop(item.process(), Duration.ofSeconds(10)),
                () -> activity.say(LabSentences.stopped(item.label())));
    }

    void skew(LabWorkerItem item, Duration offset) {
        onWorker(item, null, "Skewing", b -> b.skew(item.process(), offset), () -> {
            item.setClockOffset(offset);
            activity.say(LabSentences.skewed(item.label(), offset));
        });
    }

    /** Forgets the rows of workers that have ended. */
    void clearEnded() {
        workers.removeIf(w -> w.state() == LabWorkerItem.State.ENDED);
    }

    /** Forgets every row (their processes are being stopped with the bench); true when there were any. */
    boolean forgetAll() {
        boolean any = !workers.isEmpty();
        workers.clear();
        return any;
    }

    @FunctionalInterface
    private interface BenchAction {
        void run(LabBench bench) throws Exception;
    }

    private void onWorker(
            LabWorkerItem item, LabWorkerItem.State required, String what, BenchAction action, Runnable after) {
        if (item.isFromScenario()
                || item.state() == LabWorkerItem.State.ENDED
                || item.busyProperty().get()
                || (required != null && item.state() != required)) {
            return;
        }
        item.setBusy(true);
        LedgerLocation t = target.get();
        activity.act(
                what + " " + item.label(),
                () -> {
                    action.run(benches.forTarget(t));
                    return Boolean.TRUE;
                },
                x -> {
                    item.setBusy(false);
                    after.run();
                },
                () -> item.setBusy(false));
    }

    /** Shows a worker a scenario started: its row follows the process, but the scenario drives it. */
    void trackScenarioWorker(WorkerProcess w) {
        track(w, true);
    }

    private void track(WorkerProcess w, boolean fromScenario) {
        LabWorkerItem item = new LabWorkerItem(w, fromScenario);
        workers.add(item);
        List<String> before = w.lines();
        before.forEach(l -> onLine(item, l));
        w.addListener(line -> ui.onUi(() -> onLine(item, line)));
        w.onExit().thenAccept(p -> ui.onUi(() -> ended(item)));
    }

    private void onLine(LabWorkerItem item, String line) {
        item.setLastLine(line);
        if (line.startsWith("started ") && item.state() == LabWorkerItem.State.STARTING) {
            item.setState(LabWorkerItem.State.RUNNING);
        }
        if (line.startsWith("skewed")) {
            item.setClockOffset(item.process().clockOffset());
        }
        refreshLedgerStatus();
    }

    private void ended(LabWorkerItem item) {
        item.setState(LabWorkerItem.State.ENDED);
        revision.set(revision.get() + 1);
        item.setEndedHow(LabSentences.endedHow(item.process().exitValue()));
        refreshLedgerStatus();
    }

    /** What the ledger says of each worker: does it host its actor, with which token; else who does. */
    private void refreshLedgerStatus() {
        AdminSnapshot s = ledger.snapshot();
        for (LabWorkerItem item : workers) {
            if (item.state() == LabWorkerItem.State.ENDED) {
                item.setLedger(item.endedHowProperty().get(), false);
                continue;
            }
            Optional<LeaseRow> row = s == null
                    ? Optional.empty()
                    : s.leases().stream()
                            .filter(l -> l.actor().equals(item.actor()))
                            .findFirst();
            if (item.isFromScenario() && item.state() != LabWorkerItem.State.STARTING) {
                // the scenario pauses and resumes its own workers: follow the process
                item.setState(item.process().isPaused() ? LabWorkerItem.State.PAUSED : LabWorkerItem.State.RUNNING);
            }
            boolean paused = item.state() == LabWorkerItem.State.PAUSED;
            if (!paused) { // a frozen worker learns nothing: it keeps believing what it last held
                item.setBelievedToken(row.filter(l -> !l.isFree()
                                && item.identity() != null
                                && l.holder().identity().equals(item.identity()))
                        .map(LeaseRow::token)
                        .orElse(null));
            }
            LabSentences.WorkerLedger says = LabSentences.workerLedger(
                    item.actor(), item.identity(), row.orElse(null), paused, item.believedToken());
            item.setLedger(says.text(), says.hosts());
        }
    }

    private String nextLetter() {
        int n = letters++;
        return n < 26 ? String.valueOf((char) ('A' + n)) : Integer.toString(n + 1);
    }

    /** How many workers are still alive (not ended). */
    long alive() {
        return workers.stream()
                .filter(w -> w.state() != LabWorkerItem.State.ENDED)
                .count();
    }

    ObservableList<LabWorkerItem> items() {
        return workersView;
    }

    StringProperty actorProperty() {
        return actor;
    }

    ObjectProperty<Duration> ttlProperty() {
        return ttl;
    }

    ObjectProperty<Duration> clockOffsetProperty() {
        return clockOffset;
    }

    /** Bumped whenever a worker ends. */
    ReadOnlyIntegerProperty revisionProperty() {
        return revision.getReadOnlyProperty();
    }
}
