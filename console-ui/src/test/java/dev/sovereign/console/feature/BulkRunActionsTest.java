package dev.sovereign.console.feature;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.feature.runs.RunsView;
import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.Scenario;
import dev.sovereign.console.testing.ViewHarness;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.AssignmentRow;
import dev.sovereign.engine.run.Assignment;
import java.time.Duration;
import java.util.List;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.Labeled;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** Issue 17, item 8: retry or acknowledge several runs at once, after a confirmation that says how many. */
@ExtendWith(ApplicationExtension.class)
class BulkRunActionsTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;
    private Scenario scenario;
    private Assignment secondLost;

    @Start
    void start(Stage stage) {
        scenario = Scenario.build(fx);
        // a second run whose worker goes silent, recovered as worker_lost like the first
        Engine silent = fx.engine("worker 7105");
        silent.leases().acquire("archivist", Duration.ofSeconds(5));
        secondLost = fx.gatedRun(silent, "archivist", Duration.ofSeconds(5), "silent");
        fx.clock.advance(Duration.ofSeconds(6));
        try (Engine supervisor = fx.engine("supervisor 7111")) {
            supervisor.supervisor().tick();
        }
        vm = fx.attachedShell();
        ViewHarness.show(stage, new RunsView(vm.runs(), vm.formats()).create());
    }

    private String text(FxRobot robot, String id) {
        return robot.lookup(id).queryAs(Labeled.class).getText();
    }

    @Test
    void acknowledgeAllAsksHowManyThenAcknowledgesEveryWaitingRun(FxRobot robot) {
        // the two worker-lost runs and the scenario's failed one (issue 31, item 18)
        assertThat(vm.runs().needsOperatorProperty().get()).isEqualTo(3);

        robot.clickOn("#runs-acknowledge-all");
        assertThat(text(robot, "#runs-bulk-question"))
                .isEqualTo("Acknowledge 3 waiting runs? They stay as they ended and are no longer flagged.");
        assertThat(text(robot, "#runs-bulk-confirm")).isEqualTo("Acknowledge 3");

        robot.clickOn("#runs-bulk-cancel");
        assertThat(robot.lookup("#runs-bulk-confirm-bar").query().isVisible()).isFalse();
        robot.interact(vm::pollNow);
        assertThat(vm.runs().needsOperatorProperty().get())
                .as("cancel does nothing")
                .isEqualTo(3);

        robot.clickOn("#runs-acknowledge-all");
        robot.clickOn("#runs-bulk-confirm");
        robot.interact(vm::pollNow);

        assertThat(vm.runs().status().message()).isEqualTo("Acknowledged 3 of 3 runs.");
        assertThat(vm.runs().needsOperatorProperty().get()).isZero();
        assertThat(vm.runs().assignments().stream()
                        .filter(a -> List.of(scenario.lostRun.id(), secondLost.id(), scenario.failedRun.id())
                                .contains(a.id())))
                .hasSize(3)
                .allSatisfy(a -> assertThat(a.acknowledgedAt()).isNotNull());
    }

    @Test
    void severalSelectedRunsAreRetriedTogetherAfterTheQuestion(FxRobot robot) {
        @SuppressWarnings("unchecked")
        TableView<AssignmentRow> table = robot.lookup("#assignments-table").queryAs(TableView.class);
        robot.interact(() -> {
            table.getSelectionModel().clearSelection();
            for (AssignmentRow a : table.getItems()) {
                if (a.id().equals(scenario.lostRun.id())
                        || a.id().equals(scenario.failedRun.id())
                        || a.id().equals(scenario.completedRun.id())) {
                    table.getSelectionModel().select(a);
                }
            }
        });
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(robot.lookup("#run-retry").queryAs(Button.class).getText()).isEqualTo("Retry 3\u2026");

        robot.clickOn("#run-retry");
        // the completed run cannot be retried: it is not counted
        assertThat(text(robot, "#runs-bulk-question"))
                .isEqualTo("Retry 2 selected runs? Each gets a new assignment" + " that a worker will run again.");
        robot.clickOn("#runs-bulk-confirm");
        robot.interact(vm::pollNow);

        assertThat(vm.runs().status().message()).isEqualTo("Retried 2 of 2 runs.");
        assertThat(vm.runs().assignments())
                .filteredOn(a -> a.retryOf() != null)
                .extracting(AssignmentRow::retryOf)
                .containsExactlyInAnyOrder(scenario.lostRun.id(), scenario.failedRun.id());
        assertThat(robot.lookup("#runs-summary").queryAs(Label.class).getText()).contains("1 needs action");
    }
}
