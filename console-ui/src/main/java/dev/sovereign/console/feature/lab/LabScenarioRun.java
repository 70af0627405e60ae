package dev.sovereign.console.feature.lab;

import dev.sovereign.console.fx.UiExecutor;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.lab.Lab;
import dev.sovereign.engine.lab.LabGate;
import dev.sovereign.engine.lab.LabListener;
import dev.sovereign.engine.lab.LabOptions;
import dev.sovereign.engine.lab.LabRun;
import dev.sovereign.engine.lab.LabStep;
import dev.sovereign.engine.lab.LabVerdict;
import dev.sovereign.engine.lab.ScenarioInfo;
import dev.sovereign.engine.lab.WorkerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The Lab page's one-click scenarios: which one is selected, its narrative, and a run of it.
 *
 * <p>States: <b>idle</b> (the selected scenario's steps all pending; the last verdict, if any, shown)
 * → {@link #run()} → <b>running</b> (steps tick as the engine reports them; the workers it starts
 * show on the page) → <b>idle</b> with a verdict, or without one when it was {@linkplain #cancel()
 * stopped} or failed. Attaching another database {@linkplain #abandon() abandons} a run: it is
 * cancelled, and whatever it still reports is ignored (only the current run shows). Selecting another
 * scenario while idle shows its steps and clears the verdict; while running, the selection is locked.
 *
 * <p>The {@linkplain #paceProperty() pace} (decision 0117): in real time the run never waits; step by step it waits
 * before each step the story can wait for ({@link Lab#holds}) until {@link #nextStep()}; in slow motion it waits
 * {@link #SLOW_PAUSE} there. Only the lab's own next action waits: the workers are real processes and their TTLs
 * run on. The pace may change during a run (to real time releases a held step).
 *
 * <p>UI-thread confined; scenario steps arrive from the run's thread and are handed to the UI thread.
 */
final class LabScenarioRun {
    /** How long slow motion waits before each step that may wait. */
    static final Duration SLOW_PAUSE = Duration.ofSeconds(4);

    /** How a scenario plays: the lab's own actions in real time, one step per click, or slowed. */
    enum Pace {
        REAL_TIME("Real time"),
        STEP("Step by step"),
        SLOW("Slow motion");

        private final String label;

        Pace(String label) {
            this.label = label;
        }

        @Override
        public String toString() {
            return label;
        }
    }

    private final UiExecutor ui;
    private final ReadOnlyObjectProperty<LedgerLocation> target;
    private final BooleanProperty breakFence;
    private final LabActivity activity;
    private final Consumer<WorkerProcess> onWorkerStarted;

    private final List<ScenarioInfo> scenarios = Lab.scenarios();
    private final ObjectProperty<ScenarioInfo> selected =
            new SimpleObjectProperty<>(this, "selectedScenario", scenarios.get(0));
    private final ObservableList<LabStep> steps = FXCollections.observableArrayList();
    private final ObservableList<LabStep> stepsView = FXCollections.unmodifiableObservableList(steps);
    private final ReadOnlyBooleanWrapper running = new ReadOnlyBooleanWrapper(this, "running");
    private final ReadOnlyObjectWrapper<LabVerdict> verdict = new ReadOnlyObjectWrapper<>(this, "verdict");
    private final ReadOnlyStringWrapper scenarioActor = new ReadOnlyStringWrapper(this, "scenarioActor", "");
    private final ObjectProperty<Pace> pace = new SimpleObjectProperty<>(this, "pace", Pace.REAL_TIME);
    private final ReadOnlyObjectWrapper<LabStep> held = new ReadOnlyObjectWrapper<>(this, "heldBefore");
    private final ObservableList<Boolean> holds = FXCollections.observableArrayList();
    private final ObservableList<Boolean> holdsView = FXCollections.unmodifiableObservableList(holds);
    private Gate currentGate;
    private LabRun currentRun;
    private CountDownLatch currentRunEnded = new CountDownLatch(0);

    /** @param onWorkerStarted shows a worker the current run started (on the UI thread) */
    LabScenarioRun(
            UiExecutor ui,
            ReadOnlyObjectProperty<LedgerLocation> target,
            BooleanProperty breakFence,
            LabActivity activity,
            Consumer<WorkerProcess> onWorkerStarted) {
        this.ui = ui;
        this.target = target;
        this.breakFence = breakFence;
        this.activity = activity;
        this.onWorkerStarted = onWorkerStarted;
        steps.setAll(initialSteps(selected.get()));
        holds.setAll(Lab.holds(selected.get()));
        selected.addListener((obs, o, s) -> {
            if (!running.get() && s != null) {
                steps.setAll(initialSteps(s));
                holds.setAll(Lab.holds(s));
                verdict.set(null);
            }
        });
        pace.addListener((obs, o, p) -> {
            if (currentGate != null) {
                currentGate.pace = p == null ? Pace.REAL_TIME : p;
            }
        });
    }

    /** Runs the selected scenario against the attached database; its steps tick as they happen. */
    void run() {
        LedgerLocation t = target.get();
        ScenarioInfo picked = selected.get();
        if (running.get() || picked == null) {
            return;
        }
        if (t == null) {
            activity.problem(LabSentences.NO_DATABASE);
            return;
        }
        // on a server a scenario may tell its own story (clock-skew, decision 0909): its steps, as they will tick
        ScenarioInfo info = Lab.scenario(picked.name(), t).orElse(picked);
        steps.setAll(initialSteps(info));
        holds.setAll(Lab.holds(info));
        verdict.set(null);
        scenarioActor.set("");
        held.set(null);
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
                        onWorkerStarted.accept(worker);
                    }
                });
            }
        });
        self[0] = run;
        Gate gate = new Gate(pace.get(), () -> self[0]);
        run.gate(gate);
        currentGate = gate;
        currentRun = run;
        CountDownLatch ended = new CountDownLatch(1);
        currentRunEnded = ended;
        running.set(true);
        activity.say(LabSentences.runStarted(info.name(), breakFence.get()));
        ui.background(
                () -> {
                    try {
                        return run.run();
                    } finally {
                        ended.countDown();
                    }
                },
                v -> {
                    if (!finish(run)) {
                        return;
                    }
                    verdict.set(v);
                    activity.say(LabSentences.runEnded(info.name(), v));
                },
                e -> {
                    if (!finish(run)) {
                        return;
                    }
                    if (e instanceof InterruptedException) {
                        activity.say(LabSentences.runStopped(info.name()));
                    } else {
                        activity.problem(LabSentences.runFailed(info.name(), e));
                    }
                });
    }

    /** Ends {@code run} if it is still the current one; false when it was abandoned (another database). */
    private boolean finish(LabRun run) {
        if (currentRun != run) {
            return false;
        }
        currentRun = null;
        currentGate = null;
        held.set(null);
        running.set(false);
        return true;
    }

    /**
     * Lets the run begin the step it waits before (step by step, or the rest of a slow-motion pause); nothing
     * when it waits for nothing.
     */
    void nextStep() {
        LabStep h = held.get();
        if (currentGate != null && h != null) {
            currentGate.released = h.index();
            held.set(null);
        }
    }

    /**
     * The gate a run asks before each step that may wait, on the run's thread: it tells the page which step waits
     * and lets it go on a click (step by step), after {@link #SLOW_PAUSE} (slow motion), or at once (real time).
     */
    private final class Gate implements LabGate {
        volatile Pace pace;
        volatile int released = -1;
        private final Supplier<LabRun> self;
        private int waitingFor = -1;
        private long since;

        Gate(Pace pace, Supplier<LabRun> self) {
            this.pace = pace;
            this.self = self;
        }

        @Override
        public boolean released(LabStep next) {
            Pace p = pace;
            boolean go = p == Pace.REAL_TIME
                    || released >= next.index()
                    || (p == Pace.SLOW
                            && waitingFor == next.index()
                            && System.nanoTime() - since >= SLOW_PAUSE.toNanos());
            if (!go && waitingFor != next.index()) {
                waitingFor = next.index();
                since = System.nanoTime();
                ui.onUi(() -> {
                    if (currentRun == self.get()) {
                        held.set(next);
                    }
                });
            } else if (go && waitingFor == next.index()) {
                ui.onUi(() -> {
                    if (currentRun == self.get()
                            && held.get() != null
                            && held.get().index() == next.index()) {
                        held.set(null);
                    }
                });
            }
            return go;
        }
    }

    /** Stops the running scenario (it stops its workers, then ends without a verdict). */
    void cancel() {
        if (currentRun != null) {
            currentRun.cancel();
        }
    }

    /** Cancels the current run and forgets it: whatever it still reports is ignored. */
    void abandon() {
        cancel();
        currentRun = null;
        currentGate = null;
        held.set(null);
        running.set(false);
    }

    /** Back to the selected scenario's pending steps, no verdict, no actor (another database). */
    void clearNarrative() {
        steps.setAll(initialSteps(selected.get()));
        holds.setAll(Lab.holds(selected.get()));
        verdict.set(null);
        scenarioActor.set("");
    }

    /** Counts down when the current (or last) run's thread has ended. */
    CountDownLatch runEnded() {
        return currentRunEnded;
    }

    /** Waits (at most {@code seconds}) for the current run's thread to end. */
    void awaitEnd(long seconds) throws InterruptedException {
        currentRunEnded.await(seconds, TimeUnit.SECONDS);
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

    /** How many steps of the narrative are done (a step that saw the fence fail is done too). */
    long stepsDone() {
        return steps.stream()
                .filter(s -> s.status() == LabStep.Status.DONE || s.status() == LabStep.Status.VIOLATED)
                .count();
    }

    List<ScenarioInfo> scenarios() {
        return scenarios;
    }

    ObjectProperty<ScenarioInfo> selectedProperty() {
        return selected;
    }

    ObservableList<LabStep> steps() {
        return stepsView;
    }

    /** How the next run plays (and the current one, from now on): real time, step by step, slow motion. */
    ObjectProperty<Pace> paceProperty() {
        return pace;
    }

    /** The step the run waits before (step by step, slow motion), or null. */
    ReadOnlyObjectProperty<LabStep> heldProperty() {
        return held.getReadOnlyProperty();
    }

    /** For each step of the narrative, whether the run may wait before it (decision 0117). */
    ObservableList<Boolean> holds() {
        return holdsView;
    }

    ReadOnlyBooleanProperty runningProperty() {
        return running.getReadOnlyProperty();
    }

    ReadOnlyObjectProperty<LabVerdict> verdictProperty() {
        return verdict.getReadOnlyProperty();
    }

    ReadOnlyStringProperty scenarioActorProperty() {
        return scenarioActor.getReadOnlyProperty();
    }
}
