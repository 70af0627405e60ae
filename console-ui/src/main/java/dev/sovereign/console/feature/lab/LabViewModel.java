package dev.sovereign.console.feature.lab;

import dev.sovereign.console.fx.UiExecutor;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.lab.Lab;
import dev.sovereign.engine.lab.LabStep;
import dev.sovereign.engine.lab.LabVerdict;
import dev.sovereign.engine.lab.ScenarioInfo;
import dev.sovereign.engine.lab.WorkerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javafx.beans.binding.Bindings;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.StringProperty;
import javafx.beans.value.ObservableValue;
import javafx.collections.ObservableList;

/**
 * The Lab page's state and commands: real worker processes started by hand against the attached
 * database (start, pause, resume, kill, skew, stop, give the actor a job), one-click scenarios whose
 * narrative ticks step by step with a verdict at the end, and the lab sandbox (a throw-away database
 * the console attaches; reset it to start over).
 *
 * <p>The page's rooms, each in its own class: {@link LabWorkers} (the form and the worker list),
 * {@link LabScenarioRun} (the scenarios and a run's state machine), {@link LabSandbox} (the sandbox
 * folder and whether the target is one), {@link LabActivity} (the message line and the spinner) and
 * {@link LabSentences} (every sentence the page says). This class wires them together and owns what
 * spans them: another database attached, the sandbox reset, the console closing, the page's summary.
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
    public static final List<Duration> TTL_CHOICES =
            List.of(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(10));
    public static final List<Duration> SKEW_CHOICES =
            List.of(Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofSeconds(-5), Duration.ZERO);
    /** How long a job given from the page runs: long enough to pause its worker in the middle. */
    public static final Duration JOB_LENGTH = Duration.ofSeconds(4);

    private final LiveLedger ledger;
    private final UiExecutor ui;
    private final ReadOnlyObjectProperty<Path> target;
    private final ObjectProperty<String> server = new SimpleObjectProperty<>(this, "server");
    /** The attached server ledger WITH its password (for the workers' environment), or null: bound by the shell. */
    private final ObjectProperty<LedgerLocation> serverLedger = new SimpleObjectProperty<>(this, "serverLedger");
    /** What the lab knows of the attached server: a lab sandbox or not (decision 0426). */
    private final ReadOnlyObjectWrapper<ServerLab> serverLab =
            new ReadOnlyObjectWrapper<>(this, "serverLab", ServerLab.NONE);
    /** Where workers and scenarios run: the attached file, or the attached server when it is a lab sandbox. */
    private final ReadOnlyObjectWrapper<LedgerLocation> labTarget = new ReadOnlyObjectWrapper<>(this, "labTarget");

    private long serverCheck;
    private final Consumer<Path> attach;
    private final LabBenches benches = new LabBenches();
    private final BooleanProperty breakFence = new SimpleBooleanProperty(this, "breakFence");
    private final BooleanProperty presenter = new SimpleBooleanProperty(this, "presenter");
    private final LabActivity activity;
    private final LabSandbox sandbox;
    private final LabWorkers workers;
    private final LabScenarioRun scenario;
    private final ReadOnlyStringWrapper summary = new ReadOnlyStringWrapper(this, "summary", "");
    private final ReadOnlyStringWrapper liveLease = new ReadOnlyStringWrapper(this, "liveLease", "");
    private final ReadOnlyStringWrapper liveRejection = new ReadOnlyStringWrapper(this, "liveRejection", "");
    private final ReadOnlyStringWrapper liveStaleCommit = new ReadOnlyStringWrapper(this, "liveStaleCommit", "");

    /** How an engine sentence is shown: its ISO instants in the console's time format (the shell's Formats). */
    private java.util.function.UnaryOperator<String> humanize = text -> text;

    /** Shows the scenarios' sentences through {@code humanize} (the shell's {@code Formats::humanize}). */
    public void humanizeWith(java.util.function.UnaryOperator<String> humanize) {
        this.humanize = humanize;
    }

    /** {@code text} (a step's detail, an engine sentence) as the console shows it. */
    public String humanize(String text) {
        return humanize.apply(text);
    }

    /**
     * @param target           the attached database (the lab acts on it)
     * @param attach           attaches a database (used for the sandbox)
     * @param sandboxDirectory where lab sandboxes are created
     */
    public LabViewModel(
            LiveLedger ledger,
            UiExecutor ui,
            ReadOnlyObjectProperty<Path> target,
            Consumer<Path> attach,
            Path sandboxDirectory) {
        this.ledger = ledger;
        this.ui = ui;
        this.target = target;
        this.attach = attach;
        this.activity = new LabActivity(ui);
        this.sandbox = new LabSandbox(target, attach, ui, activity, sandboxDirectory);
        this.workers = new LabWorkers(ledger, ui, labTarget.getReadOnlyProperty(), breakFence, benches, activity);
        this.scenario = new LabScenarioRun(
                ui, labTarget.getReadOnlyProperty(), breakFence, activity, workers::trackScenarioWorker);
        target.addListener((obs, old, now) -> {
            sandbox.targetChanged();
            relocate();
        });
        serverLedger.addListener((obs, old, now) -> checkServer(now));
        labTarget.addListener((obs, old, now) -> onTargetChanged(old, now));
        relocate();
        summary.bind(Bindings.createStringBinding(
                this::describe,
                target,
                server,
                serverLab,
                labTarget,
                scenario.runningProperty(),
                scenario.verdictProperty(),
                workers.items(),
                scenario.steps(),
                scenario.scenarioActorProperty(),
                workers.revisionProperty()));
        liveLease.bind(Bindings.createStringBinding(
                this::describeLease,
                ledger.snapshotProperty(),
                ledger.nowProperty(),
                scenario.scenarioActorProperty(),
                workers.actorProperty()));
        liveRejection.bind(Bindings.createStringBinding(
                () -> LabSentences.liveRejection(
                        ledger.rejections(),
                        scenario.scenarioActorProperty().get(),
                        scenario.runningProperty().get()),
                ledger.rejections(),
                scenario.scenarioActorProperty(),
                scenario.runningProperty()));
        liveStaleCommit.bind(Bindings.createStringBinding(
                () -> LabSentences.staleCommit(
                        ledger.events(), scenario.scenarioActorProperty().get()),
                ledger.journalRevisionProperty(),
                scenario.scenarioActorProperty()));
    }

    /** The actor the live panel watches: the running (or last) scenario's, else the one in the form. */
    private String watchedActor() {
        String a = scenario.scenarioActorProperty().get();
        return a == null || a.isEmpty() ? workers.formActor() : a;
    }

    private String describeLease() {
        String a = watchedActor();
        AdminSnapshot s = ledger.snapshot();
        if (s == null || a.isEmpty()) {
            return "";
        }
        return LabSentences.liveLease(
                a,
                s.leases().stream().filter(l -> l.actor().equals(a)).findFirst().orElse(null),
                ledger.now());
    }

    /** Whether the attached server is a lab sandbox (decision 0426). */
    public enum ServerLab {
        /** A file or nothing is attached. */
        NONE,
        /** Being asked, off the UI thread. */
        CHECKING,
        /** A lab sandbox on the server: the page runs workers and scenarios there. */
        SANDBOX,
        /** A real ledger (or one the lab could not read as a sandbox): the lab leaves it alone. */
        NOT_A_SANDBOX
    }

    /**
     * Where the lab acts: the attached file; else the attached server once it is known to be a lab sandbox; else
     * nothing.
     */
    private void relocate() {
        Path t = target.get();
        if (t != null) {
            labTarget.set(LedgerLocation.file(t));
            return;
        }
        LedgerLocation s = serverLedger.get();
        labTarget.set(s != null && serverLab.get() == ServerLab.SANDBOX ? s : null);
    }

    /**
     * Asks the attached server, off the UI thread, whether its ledger is a lab sandbox: the engine's own mark
     * ({@code ledger_mark.lab_sandbox}, read by {@link Lab#serverSandbox} without registering or writing
     * anything on a ledger that exists, as an attached one does), never its name.
     */
    private void checkServer(LedgerLocation s) {
        long generation = ++serverCheck;
        serverLab.set(s == null ? ServerLab.NONE : ServerLab.CHECKING);
        relocate();
        if (s == null) {
            return;
        }
        ui.background(
                () -> {
                    try {
                        Lab.serverSandbox(s);
                        return ServerLab.SANDBOX;
                    } catch (Refusal notOne) {
                        return ServerLab.NOT_A_SANDBOX;
                    }
                },
                kind -> {
                    if (generation == serverCheck) {
                        serverLab.set(kind);
                        relocate();
                    }
                },
                problem -> {
                    if (generation == serverCheck) {
                        serverLab.set(ServerLab.NOT_A_SANDBOX);
                        relocate();
                        activity.problem(LabSentences.failed("Asking the server whether it is a lab sandbox", problem));
                    }
                });
    }

    /** One line for the page header: the target, the living workers, the run or its verdict. */
    private String describe() {
        Path t = target.get();
        LedgerLocation where = labTarget.get();
        if (t == null && server.get() != null && where == null) {
            return serverLab.get() == ServerLab.CHECKING
                    ? LabSentences.checkingServer(server.get())
                    : LabSentences.labNeedsASandbox(server.get());
        }
        if (where == null) {
            return "No database attached: open the lab sandbox to start.";
        }
        long alive = workers.alive();
        StringBuilder b = new StringBuilder("Against "
                + (t != null
                        ? t.getFileName() + (sandbox.targetIsSandboxProperty().get() ? " (the lab sandbox)" : "")
                        : where.withoutSecrets() + " (a lab sandbox on the server)")
                + " \u00b7 " + alive
                + (alive == 1 ? " worker process" : " worker processes"));
        LabVerdict v = scenario.verdictProperty().get();
        if (scenario.runningProperty().get()) {
            b.append(" \u00b7 running ")
                    .append(scenario.selectedProperty().get().name())
                    .append(": ")
                    .append(scenario.stepsDone())
                    .append(" of ")
                    .append(scenario.steps().size())
                    .append(" steps done");
        } else if (v != null) {
            b.append(" \u00b7 ")
                    .append(v.scenario())
                    .append(": ")
                    .append(v.verdict().code());
        }
        return b.toString();
    }

    /** Where sandboxes are made: {@code sovereign.lab.dir}, else {@code <tmp>/sovereign-lab-<user>}. */
    public static Path defaultSandboxDirectory() {
        return LabSandbox.defaultDirectory();
    }

    public void useSandboxDirectory(Path dir) {
        sandbox.useDirectory(dir);
    }

    public Path sandboxDirectory() {
        return sandbox.directory();
    }

    /** Whether this OS can freeze a process (SIGSTOP); elsewhere a pause is cooperative. */
    public boolean hasStopSignals() {
        return WorkerProcess.hasStopSignals();
    }

    /** Empty where SIGSTOP exists; else what a pause does instead. */
    public String platformNote() {
        return LabSentences.platformNote(hasStopSignals());
    }

    // ---- what spans the rooms: the sandbox reset, another database ----

    /** Attaches the most recent lab sandbox, or a new one when there is none. */
    public void openSandbox() {
        sandbox.open();
    }

    /**
     * Stops every process started from this page, attaches a brand-new sandbox, and deletes the old one.
     * Only when the attached database is a sandbox.
     */
    public void resetSandbox() {
        Path old = target.get();
        if (!sandbox.isSandbox(old)) {
            activity.problem(LabSentences.RESET_NEEDS_A_SANDBOX);
            return;
        }
        scenario.cancel();
        Path dir = sandbox.directory();
        CountDownLatch runEnded = scenario.runEnded();
        activity.act(
                "Resetting the lab sandbox",
                () -> {
                    runEnded.await(30, TimeUnit.SECONDS);
                    benches.close();
                    return Lab.createSandbox(dir);
                },
                fresh -> {
                    workers.forgetAll();
                    attach.accept(fresh);
                    sandbox.deleteInBackground(old);
                    activity.say(LabSentences.sandboxReset(fresh));
                });
    }

    private void onTargetChanged(LedgerLocation old, LedgerLocation now) {
        if (old == null || old.equals(now)) {
            return;
        }
        // Another database (or none): what was started against the old one stops.
        scenario.abandon();
        boolean hadWorkers = workers.forgetAll();
        if (hadWorkers || benches.isOpen()) {
            ui.background(
                    () -> {
                        benches.close();
                        return null;
                    },
                    x -> {},
                    x -> {});
        }
        scenario.clearNarrative();
    }

    // ---- workers ----

    /** Starts a real worker for the chosen actor (added if missing), TTL, clock offset and fence switch. */
    public void startWorker() {
        workers.start();
    }

    /** Gives the chosen actor a {@link #JOB_LENGTH} scripted job; the worker hosting it runs it. */
    public void giveJob() {
        workers.giveJob();
    }

    public void pause(LabWorkerItem item) {
        workers.pause(item);
    }

    public void resume(LabWorkerItem item) {
        workers.resume(item);
    }

    public void kill(LabWorkerItem item) {
        workers.kill(item);
    }

    /** SIGTERM: it releases its lease and exits. */
    public void stop(LabWorkerItem item) {
        workers.stop(item);
    }

    public void skew(LabWorkerItem item, Duration offset) {
        workers.skew(item, offset);
    }

    /** Forgets the rows of workers that have ended. */
    public void clearEnded() {
        workers.clearEnded();
    }

    // ---- scenarios ----

    /** Runs the selected scenario against the attached database; its steps tick as they happen. */
    public void runScenario() {
        scenario.run();
    }

    /** Stops the running scenario (it stops its workers, then ends without a verdict). */
    public void cancelScenario() {
        scenario.cancel();
    }

    /** Lets a scenario that waits (step by step, slow motion) begin its next step (decision 0117). */
    public void nextStep() {
        scenario.nextStep();
    }

    /** How scenarios play: real time, step by step, slow motion (decision 0117). */
    public ObjectProperty<LabScenarioRun.Pace> paceProperty() {
        return scenario.paceProperty();
    }

    /** The step a running scenario waits before, or null. */
    public ReadOnlyObjectProperty<LabStep> heldStepProperty() {
        return scenario.heldProperty();
    }

    /** For each step of the narrative, whether a scenario may wait before it. */
    public ObservableList<Boolean> stepHolds() {
        return scenario.holds();
    }

    /** Larger type and the narrative alone on the page, for a projector. */
    public BooleanProperty presenterProperty() {
        return presenter;
    }

    /**
     * Follows the server the console attaches, for the page's words and the workers' environment: {@code attached}
     * is the attached ledger without its secrets (a file, a server, or null), {@code serverWithSecrets} the attached
     * server ledger with its password (null for a file or nothing). The shell calls this once.
     */
    public void followServer(
            ObservableValue<LedgerLocation> attached, ObservableValue<LedgerLocation> serverWithSecrets) {
        server.bind(Bindings.createObjectBinding(
                () -> attached.getValue() == null || attached.getValue().isFile()
                        ? null
                        : attached.getValue().toString(),
                attached));
        serverLedger.bind(serverWithSecrets);
    }

    // ---- properties ----

    /**
     * The server the console watches, shown without secrets, or null (a file or nothing): the page names it when it
     * is not a lab sandbox (decision 0426).
     */
    public ObjectProperty<String> serverProperty() {
        return server;
    }

    public ReadOnlyObjectProperty<Path> targetProperty() {
        return target;
    }

    /**
     * The attached server ledger with its password, or null (a file or nothing): the shell binds it. The password
     * reaches the lab's workers by their environment only, never their command line (decision 0909).
     */
    public ObjectProperty<LedgerLocation> serverLedgerProperty() {
        return serverLedger;
    }

    /** Where workers and scenarios run: the attached file, or a lab sandbox on the attached server; else null. */
    public ReadOnlyObjectProperty<LedgerLocation> labTargetProperty() {
        return labTarget.getReadOnlyProperty();
    }

    /** Whether the attached server is a lab sandbox (NONE for a file or nothing). */
    public ReadOnlyObjectProperty<ServerLab> serverLabProperty() {
        return serverLab.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty targetIsSandboxProperty() {
        return sandbox.targetIsSandboxProperty();
    }

    public ObservableList<LabWorkerItem> workers() {
        return workers.items();
    }

    public StringProperty actorProperty() {
        return workers.actorProperty();
    }

    public ObjectProperty<Duration> ttlProperty() {
        return workers.ttlProperty();
    }

    public ObjectProperty<Duration> clockOffsetProperty() {
        return workers.clockOffsetProperty();
    }

    /** Start workers (by hand and in scenarios) with the terminal fence switched off. */
    public BooleanProperty breakFenceProperty() {
        return breakFence;
    }

    /** Some lab action is in flight. */
    public ReadOnlyBooleanProperty busyProperty() {
        return activity.busyProperty();
    }

    /** What the last action did, or why it failed. */
    public ReadOnlyStringProperty messageProperty() {
        return activity.messageProperty();
    }

    public ReadOnlyBooleanProperty messageIsProblemProperty() {
        return activity.messageIsProblemProperty();
    }

    public List<ScenarioInfo> scenarios() {
        return scenario.scenarios();
    }

    public ObjectProperty<ScenarioInfo> selectedScenarioProperty() {
        return scenario.selectedProperty();
    }

    /** The selected (or running) scenario's narrative, one entry per step, ticking as it runs. */
    public ObservableList<LabStep> steps() {
        return scenario.steps();
    }

    public ReadOnlyBooleanProperty runningProperty() {
        return scenario.runningProperty();
    }

    /** The last run's verdict, or null. */
    public ReadOnlyObjectProperty<LabVerdict> verdictProperty() {
        return scenario.verdictProperty();
    }

    /** The fresh actor the running (or last) scenario uses, or empty. */
    public ReadOnlyStringProperty scenarioActorProperty() {
        return scenario.scenarioActorProperty();
    }

    /** The watched actor's lease right now, ticking: who hosts it, token, time left. */
    public ReadOnlyStringProperty liveLeaseProperty() {
        return liveLease.getReadOnlyProperty();
    }

    /**
     * The newest rejection, in words: of the running (or last) scenario only, else the database's newest
     * ({@link LabSentences#liveRejection}).
     */
    public ReadOnlyStringProperty liveRejectionProperty() {
        return liveRejection.getReadOnlyProperty();
    }

    /** The scenario's stale write the ledger accepted (the fence switched off), in words, or empty. */
    public ReadOnlyStringProperty liveStaleCommitProperty() {
        return liveStaleCommit.getReadOnlyProperty();
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
        scenario.cancel();
        try {
            scenario.awaitEnd(30);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        benches.close();
    }
}
