package dev.sovereign.console.feature.lab;

import dev.sovereign.console.fx.UiExecutor;
import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.lab.Lab;
import dev.sovereign.engine.lab.LabBench;
import dev.sovereign.engine.lab.LabListener;
import dev.sovereign.engine.lab.LabOptions;
import dev.sovereign.engine.lab.LabRun;
import dev.sovereign.engine.lab.LabStep;
import dev.sovereign.engine.lab.LabVerdict;
import dev.sovereign.engine.lab.ScenarioInfo;
import dev.sovereign.engine.lab.WorkerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javafx.beans.binding.Bindings;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The Lab page's state and commands: real worker processes started by hand against the attached
 * database (start, pause, resume, kill, skew, stop, give the actor a job), one-click scenarios whose
 * narrative ticks step by step with a verdict at the end, and the lab sandbox (a throw-away database
 * the console attaches; reset it to start over).
 *
 * <p>Every action that touches a process or the database runs through the {@link UiExecutor}'s
 * background threads; results and worker output come back on the UI thread. Nothing here opens the
 * database until the first lab action (attaching a database to watch it stays read-only). Every
 * process started from this page — by hand or by a scenario — is stopped when another database is
 * attached, the sandbox is reset, or {@link #close()} is called (the console closing).
 *
 * <p>UI-thread confined, except that worker output and scenario steps arrive from other threads and
 * are handed to the UI thread.
 */
public final class LabViewModel implements AutoCloseable {
    public static final List<Duration> TTL_CHOICES = List.of(Duration.ofSeconds(1), Duration.ofSeconds(2),
            Duration.ofSeconds(5), Duration.ofSeconds(10));
    public static final List<Duration> SKEW_CHOICES = List.of(Duration.ofSeconds(5), Duration.ofSeconds(30),
            Duration.ofSeconds(-5), Duration.ZERO);
    /** How long a job given from the page runs: long enough to pause its worker in the middle. */
    public static final Duration JOB_LENGTH = Duration.ofSeconds(4);

    private final LiveLedger ledger;
    private final UiExecutor ui;
    private final ReadOnlyObjectProperty<Path> target;
    private final Consumer<Path> attach;
    private final Benches benches = new Benches();
    private Path sandboxDirectory;

    private final ObservableList<LabWorkerItem> workers = FXCollections.observableArrayList();
    /** Made once: a fresh unmodifiable wrapper per call would drop listeners when collected. */
    private final ObservableList<LabWorkerItem> workersView = FXCollections.unmodifiableObservableList(workers);
    private final StringProperty actor = new SimpleStringProperty(this, "actor", "operator");
    private final ObjectProperty<Duration> ttl = new SimpleObjectProperty<>(this, "ttl", Duration.ofSeconds(2));
    private final ObjectProperty<Duration> clockOffset = new SimpleObjectProperty<>(this, "clockOffset",
            Duration.ZERO);
    private final BooleanProperty breakFence = new SimpleBooleanProperty(this, "breakFence");
    private final IntegerProperty inFlight = new SimpleIntegerProperty(this, "inFlight");
    /** Bumped whenever a worker row appears, ends or goes: the summary counts the living. */
    private final IntegerProperty workersRevision = new SimpleIntegerProperty(this, "workersRevision");
    private final ReadOnlyBooleanWrapper busy = new ReadOnlyBooleanWrapper(this, "busy");
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper(this, "message", "");
    private final ReadOnlyBooleanWrapper messageIsProblem = new ReadOnlyBooleanWrapper(this, "messageIsProblem");
    private int letters;

    private final List<ScenarioInfo> scenarios = Lab.scenarios();
    private final ObjectProperty<ScenarioInfo> selectedScenario = new SimpleObjectProperty<>(this,
            "selectedScenario", scenarios.get(0));
    private final ObservableList<LabStep> steps = FXCollections.observableArrayList();
    private final ObservableList<LabStep> stepsView = FXCollections.unmodifiableObservableList(steps);
    private final ReadOnlyBooleanWrapper running = new ReadOnlyBooleanWrapper(this, "running");
    private final ReadOnlyObjectWrapper<LabVerdict> verdict = new ReadOnlyObjectWrapper<>(this, "verdict");
    private final ReadOnlyStringWrapper scenarioActor = new ReadOnlyStringWrapper(this, "scenarioActor", "");
    private final ReadOnlyBooleanWrapper targetIsSandbox = new ReadOnlyBooleanWrapper(this, "targetIsSandbox");
    private final ReadOnlyStringWrapper summary = new ReadOnlyStringWrapper(this, "summary", "");
    private final ReadOnlyStringWrapper liveLease = new ReadOnlyStringWrapper(this, "liveLease", "");
    private final ReadOnlyStringWrapper liveRejection = new ReadOnlyStringWrapper(this, "liveRejection", "");
    private LabRun currentRun;
    private CountDownLatch currentRunEnded = new CountDownLatch(0);

    /**
     * @param target           the attached database (the lab acts on it)
     * @param attach           attaches a database (used for the sandbox)
     * @param sandboxDirectory where lab sandboxes are created
     */
    public LabViewModel(LiveLedger ledger, UiExecutor ui, ReadOnlyObjectProperty<Path> target, Consumer<Path> attach,
                        Path sandboxDirectory) {
        this.ledger = ledger;
        this.ui = ui;
        this.target = target;
        this.attach = attach;
        this.sandboxDirectory = sandboxDirectory;
        busy.bind(inFlight.greaterThan(0));
        selectStepsOf(selectedScenario.get());
        selectedScenario.addListener((obs, o, s) -> {
            if (!running.get() && s != null) {
                selectStepsOf(s);
                verdict.set(null);
            }
        });
        target.addListener((obs, old, now) -> onTargetChanged(old, now));
        targetIsSandbox.set(isSandbox(target.get()));
        ledger.snapshotProperty().addListener((obs, o, s) -> refreshLedgerStatus());
        summary.bind(Bindings.createStringBinding(this::describe, target, running, verdict, workers, steps,
                scenarioActor, workersRevision));
        liveLease.bind(Bindings.createStringBinding(this::describeLease, ledger.snapshotProperty(),
                ledger.nowProperty(), scenarioActor, actor));
        liveRejection.bind(Bindings.createStringBinding(() -> ledger.rejections().isEmpty()
                ? "No write has been refused on this database yet."
                : ledger.rejections().get(0).sentence(), ledger.rejections()));
    }

    /** The actor the live panel watches: the running (or last) scenario's, else the one in the form. */
    private String watchedActor() {
        String a = scenarioActor.get();
        return a == null || a.isEmpty() ? (actor.get() == null ? "" : actor.get().trim()) : a;
    }

    private String describeLease() {
        String a = watchedActor();
        AdminSnapshot s = ledger.snapshot();
        if (s == null || a.isEmpty()) {
            return "";
        }
        Optional<LeaseRow> row = s.leases().stream().filter(l -> l.actor().equals(a)).findFirst();
        if (row.isEmpty()) {
            return a + ": no such actor yet";
        }
        LeaseRow r = row.get();
        if (r.isFree()) {
            return a + ": free, nobody hosts it";
        }
        long left = r.remainingAt(ledger.now());
        return a + ": hosted by " + r.holder().name() + " \u00b7 token " + r.token() + " \u00b7 "
                + (left <= 0 ? "EXPIRED, free to take over" : "expires in " + Formats.duration(left));
    }

    /** Where sandboxes are made: {@code sovereign.lab.dir}, else {@code <tmp>/sovereign-lab-<user>}. */
    public static Path defaultSandboxDirectory() {
        String dir = System.getProperty("sovereign.lab.dir");
        if (dir != null && !dir.isBlank()) {
            return Path.of(dir);
        }
        return Path.of(System.getProperty("java.io.tmpdir"), "sovereign-lab-" + System.getProperty("user.name", "user"));
    }

    public void useSandboxDirectory(Path dir) {
        this.sandboxDirectory = dir;
        targetIsSandbox.set(isSandbox(target.get()));
    }

    public Path sandboxDirectory() {
        return sandboxDirectory;
    }

    /** Whether this OS can freeze a process (SIGSTOP); elsewhere a pause is cooperative. */
    public boolean hasStopSignals() {
        return WorkerProcess.hasStopSignals();
    }

    /** Empty where SIGSTOP exists; else what a pause does instead. */
    public String platformNote() {
        return hasStopSignals() ? "" : "This system has no SIGSTOP (or the lab was told not to use it), so Pause is"
                + " cooperative: the worker stops working and heartbeating until resumed, so its lease still expires"
                + " and another worker can take over, but a step already in progress (a job's last write) still"
                + " finishes. On Linux and macOS the pause is a real SIGSTOP, like a long GC pause.";
    }

    // ---- the sandbox ----

    /** Attaches the most recent lab sandbox, or a new one when there is none. */
    public void openSandbox() {
        Path dir = sandboxDirectory;
        act("Opening the lab sandbox", () -> Lab.latestSandbox(dir).orElseGet(() -> Lab.createSandbox(dir)), p -> {
            attach.accept(p);
            say("Attached the lab sandbox " + p.getFileName() + ". Start workers, or run a scenario.");
        });
    }

    /**
     * Stops every process started from this page, attaches a brand-new sandbox, and deletes the old one.
     * Only when the attached database is a sandbox.
     */
    public void resetSandbox() {
        Path old = target.get();
        if (!isSandbox(old)) {
            problem("Reset works on the lab sandbox only; this database is not one.");
            return;
        }
        cancelScenario();
        Path dir = sandboxDirectory;
        CountDownLatch runEnded = currentRunEnded;
        act("Resetting the lab sandbox", () -> {
            runEnded.await(30, TimeUnit.SECONDS);
            benches.close();
            return Lab.createSandbox(dir);
        }, fresh -> {
            workers.clear();
            attach.accept(fresh);
            ui.background(() -> {
                Lab.deleteSandbox(old);
                return null;
            }, x -> { }, x -> { });
            say("A fresh sandbox " + fresh.getFileName() + " is attached; the old one and its workers are gone.");
        });
    }

    private boolean isSandbox(Path p) {
        return p != null && Lab.isSandbox(p) && sandboxDirectory != null
                && p.toAbsolutePath().normalize().startsWith(sandboxDirectory.toAbsolutePath().normalize());
    }

    private void onTargetChanged(Path old, Path now) {
        targetIsSandbox.set(isSandbox(now));
        if (old == null || old.equals(now)) {
            return;
        }
        // Another database (or none): what was started against the old one stops.
        cancelScenario();
        currentRun = null;
        running.set(false);
        List<LabWorkerItem> gone = new ArrayList<>(workers);
        workers.clear();
        if (!gone.isEmpty() || benches.isOpen()) {
            ui.background(() -> {
                benches.close();
                return null;
            }, x -> { }, x -> { });
        }
        steps.setAll(initialSteps(selectedScenario.get()));
        verdict.set(null);
        scenarioActor.set("");
    }

    // ---- workers ----

    /** Starts a real worker for the chosen actor (added if missing), TTL, clock offset and fence switch. */
    public void startWorker() {
        Path t = target.get();
        String a = actor.get() == null ? "" : actor.get().trim();
        if (t == null) {
            problem("Attach a database first, or open the lab sandbox.");
            return;
        }
        if (a.isEmpty()) {
            problem("Name the actor the worker should host.");
            return;
        }
        String label = "worker " + nextLetter();
        Duration workerTtl = ttl.get();
        Duration offset = clockOffset.get();
        boolean fault = breakFence.get();
        act("Starting " + label, () -> {
            LabBench b = benches.forTarget(t);
            b.ensureActor(a);
            return b.startWorker(new WorkerProcess.Spec(t, a, workerTtl, offset, label), fault);
        }, w -> {
            track(w, false);
            say("Started " + label + " (pid " + w.pid() + ") for " + a + ", TTL " + workerTtl.toSeconds() + " s"
                    + (offset.isZero() ? "" : ", clock " + LabWorkerItem.offsetText(offset))
                    + (fault ? ", with the terminal fence switched OFF" : "") + ".");
        });
    }

    /** Gives the chosen actor a {@link #JOB_LENGTH} scripted job; the worker hosting it runs it. */
    public void giveJob() {
        Path t = target.get();
        String a = actor.get() == null ? "" : actor.get().trim();
        if (t == null || a.isEmpty()) {
            problem(t == null ? "Attach a database first, or open the lab sandbox." : "Name the actor first.");
            return;
        }
        act("Giving " + a + " a job", () -> {
            LabBench b = benches.forTarget(t);
            b.ensureActor(a);
            return b.assignJob(a, JOB_LENGTH);
        }, id -> say("Gave " + a + " a " + JOB_LENGTH.toSeconds() + " s job (" + id + "): the worker hosting " + a
                + " runs it now. Pause that worker while it runs to see its late write refused."));
    }

    public void pause(LabWorkerItem item) {
        onWorker(item, LabWorkerItem.State.RUNNING, "Pausing", b -> b.pause(item.process()), () -> {
            item.setState(LabWorkerItem.State.PAUSED);
            say("Paused " + item.label() + (hasStopSignals() ? " with SIGSTOP" : " (cooperatively)")
                    + ": no heartbeat, no writes. Its lease expires within its TTL and another worker may take over.");
        });
    }

    public void resume(LabWorkerItem item) {
        onWorker(item, LabWorkerItem.State.PAUSED, "Resuming", b -> b.resume(item.process()), () -> {
            item.setState(LabWorkerItem.State.RUNNING);
            say("Resumed " + item.label() + (hasStopSignals() ? " with SIGCONT" : "") + ": whatever it still"
                    + " believes it holds is checked by the ledger at its next write.");
        });
    }

    public void kill(LabWorkerItem item) {
        onWorker(item, null, "Killing", b -> b.kill(item.process()), () -> say("Killed " + item.label()
                + " with SIGKILL: it released nothing. Its lease and attempt expire; the supervisor recovers its job."));
    }

    /** SIGTERM: it releases its lease and exits. */
    public void stop(LabWorkerItem item) {
        onWorker(item, null, "Stopping", b -> b.stop(item.process(), Duration.ofSeconds(10)),
                () -> say("Stopped " + item.label() + ": it released its lease and exited."));
    }

    public void skew(LabWorkerItem item, Duration offset) {
        onWorker(item, null, "Skewing", b -> b.skew(item.process(), offset), () -> {
            item.setClockOffset(offset);
            say(item.label() + "'s clock now reads " + (offset.isZero() ? "the true time"
                    : LabWorkerItem.offsetText(offset) + (offset.isNegative() ? " behind" : " ahead"))
                    + ". A fast clock may take a lease over early; it can never commit for the old holder.");
        });
    }

    /** Forgets the rows of workers that have ended. */
    public void clearEnded() {
        workers.removeIf(w -> w.state() == LabWorkerItem.State.ENDED);
    }

    @FunctionalInterface
    private interface BenchAction {
        void run(LabBench bench) throws Exception;
    }

    private void onWorker(LabWorkerItem item, LabWorkerItem.State required, String what, BenchAction action,
                          Runnable after) {
        if (item.isFromScenario() || item.state() == LabWorkerItem.State.ENDED || item.busyProperty().get()
                || (required != null && item.state() != required)) {
            return;
        }
        item.setBusy(true);
        Path t = target.get();
        act(what + " " + item.label(), () -> {
            action.run(benches.forTarget(t));
            return Boolean.TRUE;
        }, x -> {
            item.setBusy(false);
            after.run();
        }, () -> item.setBusy(false));
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
        workersRevision.set(workersRevision.get() + 1);
        int code = item.process().exitValue();
        item.setEndedHow(code == 137 || code == 9 ? "killed (SIGKILL)" : code == 0 ? "exited 0" : "exit " + code);
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
            String me = item.identity();
            Optional<LeaseRow> row = s == null ? Optional.empty()
                    : s.leases().stream().filter(l -> l.actor().equals(item.actor())).findFirst();
            if (me == null || row.isEmpty()) {
                item.setLedger(me == null ? "starting\u2026" : "", false);
            } else if (!row.get().isFree() && row.get().holder().identity().equals(me)) {
                item.setLedger("hosts " + item.actor() + " \u00b7 token " + row.get().token(), true);
            } else if (row.get().isFree()) {
                item.setLedger("waits: " + item.actor() + " is free", false);
            } else {
                item.setLedger("waits: " + row.get().holder().name() + " holds token " + row.get().token(), false);
            }
        }
    }

    private String nextLetter() {
        int n = letters++;
        return n < 26 ? String.valueOf((char) ('A' + n)) : Integer.toString(n + 1);
    }

    // ---- scenarios ----

    /** Runs the selected scenario against the attached database; its steps tick as they happen. */
    public void runScenario() {
        Path t = target.get();
        ScenarioInfo info = selectedScenario.get();
        if (running.get() || info == null) {
            return;
        }
        if (t == null) {
            problem("Attach a database first, or open the lab sandbox.");
            return;
        }
        steps.setAll(initialSteps(info));
        verdict.set(null);
        scenarioActor.set("");
        LabRun[] self = new LabRun[1];
        LabRun run = Lab.prepare(info.name(), new LabOptions(t, breakFence.get()), new LabListener() {
            // A cancelled run (another database was attached) may still report: only the current one shows.
            @Override
            public void onStep(LabStep step) {
                ui.onUi(() -> {
                    if (currentRun == self[0] && step.index() < steps.size()) {
                        steps.set(step.index(), step);
                    }
                });
            }

            @Override
            public void onActor(String chosen) {
                ui.onUi(() -> {
                    if (currentRun == self[0]) {
                        scenarioActor.set(chosen);
                    }
                });
            }

            @Override
            public void onWorkerStarted(WorkerProcess worker) {
                ui.onUi(() -> {
                    if (currentRun == self[0]) {
                        track(worker, true);
                    }
                });
            }
        });
        self[0] = run;
        currentRun = run;
        CountDownLatch ended = new CountDownLatch(1);
        currentRunEnded = ended;
        running.set(true);
        say("Running " + info.name() + (breakFence.get() ? " with the terminal fence switched OFF" : "")
                + ": watch Leases (Ctrl+1), Timeline (Ctrl+2) and Rejections (Ctrl+3) as it goes.");
        ui.background(() -> {
            try {
                return run.run();
            } finally {
                ended.countDown();
            }
        }, v -> {
            if (!finishRun(run)) {
                return;
            }
            verdict.set(v);
            say(info.name() + ": " + v.verdict().code() + ". " + capitalise(v.headline()) + ".");
        }, e -> {
            if (!finishRun(run)) {
                return;
            }
            if (e instanceof InterruptedException) {
                say(info.name() + " was stopped; every process it started has been stopped too.");
            } else {
                problem(info.name() + " could not run: " + oneLine(e));
            }
        });
    }

    /** Ends {@code run} if it is still the current one; false when it was abandoned (another database). */
    private boolean finishRun(LabRun run) {
        if (currentRun != run) {
            return false;
        }
        currentRun = null;
        running.set(false);
        return true;
    }

    /** Stops the running scenario (it stops its workers, then ends without a verdict). */
    public void cancelScenario() {
        if (currentRun != null) {
            currentRun.cancel();
        }
    }

    private void selectStepsOf(ScenarioInfo info) {
        steps.setAll(initialSteps(info));
    }

    private static List<LabStep> initialSteps(ScenarioInfo info) {
        List<LabStep> list = new ArrayList<>();
        if (info == null) {
            return list;
        }
        for (int i = 0; i < info.steps().size(); i++) {
            list.add(new LabStep(i, info.steps().size(), info.steps().get(i), LabStep.Status.PENDING, "", 0));
        }
        return list;
    }

    // ---- plumbing ----

    @FunctionalInterface
    private interface Work<T> {
        T call() throws Exception;
    }

    private <T> void act(String what, Work<T> work, Consumer<T> then) {
        act(what, work, then, () -> { });
    }

    private <T> void act(String what, Work<T> work, Consumer<T> then, Runnable onFailure) {
        inFlight.set(inFlight.get() + 1);
        message.set(what + "\u2026");
        messageIsProblem.set(false);
        ui.background(work::call, r -> {
            inFlight.set(inFlight.get() - 1);
            then.accept(r);
        }, e -> {
            inFlight.set(inFlight.get() - 1);
            onFailure.run();
            problem(what + " failed: " + oneLine(e));
        });
    }

    private void say(String text) {
        message.set(text);
        messageIsProblem.set(false);
    }

    private void problem(String text) {
        message.set(text);
        messageIsProblem.set(true);
    }

    private static String oneLine(Throwable e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    private static String capitalise(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    private String describe() {
        Path t = target.get();
        if (t == null) {
            return "No database attached: open the lab sandbox to start.";
        }
        long alive = workers.stream().filter(w -> w.state() != LabWorkerItem.State.ENDED).count();
        StringBuilder b = new StringBuilder("Against " + t.getFileName()
                + (targetIsSandbox.get() ? " (the lab sandbox)" : "") + " \u00b7 " + alive
                + (alive == 1 ? " worker process" : " worker processes"));
        if (running.get()) {
            long done = steps.stream().filter(s -> s.status() == LabStep.Status.DONE).count();
            b.append(" \u00b7 running ").append(selectedScenario.get().name()).append(": ").append(done).append(" of ")
                    .append(steps.size()).append(" steps done");
        } else if (verdict.get() != null) {
            b.append(" \u00b7 ").append(verdict.get().scenario()).append(": ").append(verdict.get().verdict().code());
        }
        return b.toString();
    }

    // ---- properties ----

    public ReadOnlyObjectProperty<Path> targetProperty() {
        return target;
    }

    public ReadOnlyBooleanProperty targetIsSandboxProperty() {
        return targetIsSandbox.getReadOnlyProperty();
    }

    public ObservableList<LabWorkerItem> workers() {
        return workersView;
    }

    public StringProperty actorProperty() {
        return actor;
    }

    public ObjectProperty<Duration> ttlProperty() {
        return ttl;
    }

    public ObjectProperty<Duration> clockOffsetProperty() {
        return clockOffset;
    }

    /** Start workers (by hand and in scenarios) with the terminal fence switched off. */
    public BooleanProperty breakFenceProperty() {
        return breakFence;
    }

    /** Some lab action is in flight. */
    public ReadOnlyBooleanProperty busyProperty() {
        return busy.getReadOnlyProperty();
    }

    /** What the last action did, or why it failed. */
    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty messageIsProblemProperty() {
        return messageIsProblem.getReadOnlyProperty();
    }

    public List<ScenarioInfo> scenarios() {
        return scenarios;
    }

    public ObjectProperty<ScenarioInfo> selectedScenarioProperty() {
        return selectedScenario;
    }

    /** The selected (or running) scenario's narrative, one entry per step, ticking as it runs. */
    public ObservableList<LabStep> steps() {
        return stepsView;
    }

    public ReadOnlyBooleanProperty runningProperty() {
        return running.getReadOnlyProperty();
    }

    /** The last run's verdict, or null. */
    public ReadOnlyObjectProperty<LabVerdict> verdictProperty() {
        return verdict.getReadOnlyProperty();
    }

    /** The fresh actor the running (or last) scenario uses, or empty. */
    public ReadOnlyStringProperty scenarioActorProperty() {
        return scenarioActor.getReadOnlyProperty();
    }

    /** The watched actor's lease right now, ticking: who hosts it, token, time left. */
    public ReadOnlyStringProperty liveLeaseProperty() {
        return liveLease.getReadOnlyProperty();
    }

    /** The newest rejection on the database, in words. */
    public ReadOnlyStringProperty liveRejectionProperty() {
        return liveRejection.getReadOnlyProperty();
    }

    /** One line for the page header. */
    public ReadOnlyStringProperty summaryProperty() {
        return summary.getReadOnlyProperty();
    }

    public LiveLedger ledger() {
        return ledger;
    }

    /**
     * Stops the running scenario and every process started from this page (SIGCONT for paused ones,
     * then SIGTERM, then SIGKILL), waiting for them. Called when the console closes.
     */
    @Override
    public void close() {
        cancelScenario();
        try {
            currentRunEnded.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        benches.close();
    }

    /** The bench (the lab's process and the workers started by hand) of the attached database. Thread-safe. */
    private static final class Benches {
        private LabBench bench;
        /** Read without the lock, so the UI thread never waits for a bench that is closing. */
        private volatile boolean open;

        synchronized LabBench forTarget(Path database) {
            Path wanted = database.toAbsolutePath().normalize();
            if (bench != null && !bench.database().toAbsolutePath().normalize().equals(wanted)) {
                bench.close();
                bench = null;
            }
            if (bench == null) {
                bench = LabBench.open(wanted, "console lab");
                open = true;
            }
            return bench;
        }

        boolean isOpen() {
            return open;
        }

        synchronized void close() {
            if (bench != null) {
                open = false;
                bench.close();
                bench = null;
            }
        }
    }
}
