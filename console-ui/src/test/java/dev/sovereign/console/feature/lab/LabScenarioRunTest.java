package dev.sovereign.console.feature.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.fx.CurrentThreadUiExecutor;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.lab.LabStep;
import dev.sovereign.engine.lab.ScenarioInfo;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import org.junit.jupiter.api.Test;

/**
 * The Lab page's scenario state and message line without a toolkit or a database: what an idle
 * selection shows, a run refused without a database, and an action's message and busy flag.
 */
class LabScenarioRunTest {
    private final CurrentThreadUiExecutor ui = new CurrentThreadUiExecutor();
    private final LabActivity activity = new LabActivity(ui);
    private final ReadOnlyObjectWrapper<LedgerLocation> target = new ReadOnlyObjectWrapper<>();
    private final List<Object> workersShown = new ArrayList<>();
    private final LabScenarioRun scenario = new LabScenarioRun(
            ui, target.getReadOnlyProperty(), new SimpleBooleanProperty(), activity, workersShown::add);

    @Test
    void anIdleSelectionShowsThatScenariosStepsAllPending() {
        ScenarioInfo second = scenario.scenarios().get(1);

        scenario.selectedProperty().set(second);

        assertThat(scenario.steps()).extracting(LabStep::title).containsExactlyElementsOf(second.steps());
        assertThat(scenario.steps()).allMatch(s -> s.status() == LabStep.Status.PENDING);
        assertThat(scenario.verdictProperty().get()).isNull();
        assertThat(scenario.stepsDone()).isZero();
    }

    @Test
    void withoutADatabaseARunIsRefusedInWordsAndNothingStarts() {
        scenario.run();

        assertThat(scenario.runningProperty().get()).isFalse();
        assertThat(activity.messageProperty().get()).isEqualTo(LabSentences.NO_DATABASE);
        assertThat(activity.messageIsProblemProperty().get()).isTrue();
        assertThat(workersShown).isEmpty();
    }

    @Test
    void anActionSaysWhatItDidOrWhyItFailedAndIsNotBusyAfterwards() {
        List<String> results = new ArrayList<>();
        activity.act("Opening the lab sandbox", () -> "lab-1.db", r -> {
            results.add(r);
            activity.say("Attached " + r);
        });
        assertThat(results).containsExactly("lab-1.db");
        assertThat(activity.messageProperty().get()).isEqualTo("Attached lab-1.db");
        assertThat(activity.busyProperty().get()).isFalse();

        boolean[] undone = new boolean[1];
        activity.act(
                "Starting worker B",
                () -> {
                    throw new IOException("no such file\nstack");
                },
                r -> results.add("never"),
                () -> undone[0] = true);

        assertThat(undone[0]).isTrue();
        assertThat(activity.messageProperty().get()).isEqualTo("Starting worker B failed: no such file");
        assertThat(activity.messageIsProblemProperty().get()).isTrue();
        assertThat(activity.busyProperty().get()).isFalse();
        assertThat(results).containsExactly("lab-1.db");
    }
}
