package dev.sovereign.console.feature.lab;

import dev.sovereign.console.fx.UiExecutor;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.lab.Lab;
import dev.sovereign.engine.lab.LabListener;
import dev.sovereign.engine.lab.LabOptions;
import dev.sovereign.engine.lab.LabRun;
import dev.sovereign.engine.lab.LabStep;
import dev.sovereign.engine.lab.LabVerdict;
import dev.sovereign.engine.lab.ScenarioInfo;
import dev.sovereign.engine.lab.WorkerProcess;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
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
 * <p>UI-thread confined; scenario steps arrive from the run's thread and are handed to the UI thread.
 */
final class LabScenarioRun {
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
        selected.addListener((obs, o, s) -> {
            if (!running.get() && s != null) {
                steps.setAll(initialSteps(s));
                verdict.set(null);
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
                        onWorkerStarted.accept(worker);
                    }
                });
            }
        });
        self[0] = run;
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
        running.set(false);
        return true;
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
        running.set(false);
    }

    /** Back to the selected scenario's pending steps, no verdict, no actor (another database). */
    void clearNarrative() {
        steps.setAll(initialSteps(selected.get()));
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
