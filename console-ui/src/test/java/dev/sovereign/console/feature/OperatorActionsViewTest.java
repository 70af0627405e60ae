package dev.sovereign.console.feature;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.feature.runs.RunsView;
import dev.sovereign.console.feature.supervisor.SupervisorView;
import dev.sovereign.console.fx.FxUiExecutor;
import dev.sovereign.console.fx.LinkedSentence;
import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.Scenario;
import dev.sovereign.console.testing.ViewHarness;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.AssignmentRow;
import dev.sovereign.engine.run.Assignment;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.control.TableView;
import javafx.scene.control.ToggleButton;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The operator actions as an operator uses them, headless: the real background executor and the
 * real poller thread, so what the click changes comes back through the live read path.
 */
@ExtendWith(ApplicationExtension.class)
class OperatorActionsViewTest {
    private static final int WAIT_S = 20;

    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private Scenario scenario;
    private Assignment abandoned;
    private ShellViewModel vm;
    private TabPane tabs;

    @Start
    void start(Stage stage) {
        scenario = Scenario.build(fx);
        // a second run whose worker goes silent: no supervisor has looked at it yet
        Engine silent = fx.engine("worker 7105");
        silent.leases().acquire("archivist", Duration.ofSeconds(5));
        abandoned = fx.gatedRun(silent, "archivist", Duration.ofSeconds(5), "silent");
        fx.clock.advance(Duration.ofSeconds(6));
        vm = fx.shell(new FxUiExecutor(), Duration.ofMillis(50));
        tabs = new TabPane(
                new Tab("runs", new RunsView(vm.runs(), vm.formats()).create()),
                new Tab("supervisor", new SupervisorView(vm.supervisor()).create()));
        ViewHarness.show(stage, tabs);
        vm.attach(fx.file());
    }

    private void awaitFx(String what, Callable<Boolean> condition) throws Exception {
        try {
            WaitForAsyncUtils.waitFor(
                    WAIT_S,
                    TimeUnit.SECONDS,
                    () -> WaitForAsyncUtils.asyncFx(condition).get());
        } catch (TimeoutException e) {
            String state = WaitForAsyncUtils.asyncFx(() -> "the view model selects "
                            + (vm.runs().selectedProperty().get() == null
                                    ? "nothing"
                                    : vm.runs().selectedProperty().get().id())
                            + ", the table "
                            + new FxRobot()
                                    .lookup("#assignments-table")
                                    .queryAs(TableView.class)
                                    .getSelectionModel()
                                    .getSelectedItems()
                            + ", rows "
                            + vm.runs().assignments().stream()
                                    .map(AssignmentRow::id)
                                    .toList())
                    .get();
            throw new AssertionError("waited " + WAIT_S + " s for " + what + "; " + state, e);
        }
    }

    @Test
    void clickingRetryOnAWorkerLostRunMakesTheNewAssignmentAppearLive(FxRobot robot) throws Exception {
        String lost = scenario.lostRun.id();
        awaitFx(
                "the worker-lost row",
                () -> robot.lookup("#assignment-" + lost).tryQuery().isPresent());
        assertThat(robot.lookup("#run-retry").queryAs(Button.class).isDisabled())
                .isTrue();

        robot.clickOn("#assignment-" + lost);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(robot.lookup("#run-retry").queryAs(Button.class).isDisabled())
                .isFalse();
        robot.clickOn("#run-retry");

        awaitFx(
                "the retry in the table",
                () -> vm.runs().assignments().stream().anyMatch(a -> lost.equals(a.retryOf())));
        AssignmentRow retry = WaitForAsyncUtils.asyncFx(() -> vm.runs().assignments().stream()
                        .filter(a -> lost.equals(a.retryOf()))
                        .findFirst()
                        .orElseThrow())
                .get();
        awaitFx(
                "the retry's row selected",
                // the same run (by id), not the same object: a poll between the two reads may hand the view model a
                // fresh, equal row while the table still holds the one it selected (seen under load)
                () -> robot.lookup("#assignment-" + retry.id()).tryQuery().isPresent()
                        && robot.lookup("#assignments-table")
                                        .queryAs(TableView.class)
                                        .getSelectionModel()
                                        .getSelectedItem()
                                instanceof AssignmentRow shown
                        && shown.id().equals(retry.id())
                        && vm.runs().selectedProperty().get().id().equals(retry.id()));
        assertThat(retry.state()).isEqualTo("CREATED");
        assertThat(robot.lookup("#runs-action-message")
                        .queryAs(LinkedSentence.class)
                        .getText())
                .isEqualTo("Retried " + lost + " as " + retry.id() + ": a new assignment for operator, waiting for a"
                        + " worker to run it.");
        assertThat(robot.lookup("#runs-action-progress").query().isVisible()).isFalse();
        // the notice no longer counts the retried run: only the scenario's failed one waits (issue 31, item 18)
        awaitFx(
                "the notice down to one run",
                () -> vm.runs().needsOperatorProperty().get() == 1
                        && vm.runs().attentionProperty().get().startsWith("1 run ended failed or blocked"));
        assertThat(robot.lookup("#run-detail").queryAs(LinkedSentence.class).getText())
                .contains("It retries " + lost);
    }

    @Test
    void runATickNowRecoversTheSilentRunAndShowsItsReport(FxRobot robot) throws Exception {
        robot.interact(() -> tabs.getSelectionModel().select(1));
        awaitFx(
                "the supervisor page",
                () -> vm.ledger().snapshot() != null
                        && !robot.lookup("#supervisor-tick")
                                .queryAs(Button.class)
                                .isDisabled());
        assertThat(robot.lookup("#tile-attempts-recovered")
                        .lookup(".tile-number")
                        .queryAs(Label.class)
                        .getText())
                .as("the scenario's own tick")
                .isEqualTo("1");

        robot.clickOn("#supervisor-tick");

        awaitFx(
                "the tick's sentence",
                () -> robot.lookup("#supervisor-action-message")
                        .queryAs(LinkedSentence.class)
                        .getText()
                        .startsWith("Tick done"));
        assertThat(robot.lookup("#supervisor-action-message")
                        .queryAs(LinkedSentence.class)
                        .getText())
                .startsWith("Tick done at ")
                .contains(" by this console: 1 run recovered as worker_lost, ");
        assertThat(robot.lookup("#supervisor-report")
                        .queryAs(LinkedSentence.class)
                        .getText())
                .contains("Recovered assignment " + abandoned.id() + " as failed / worker_lost");
        assertThat(robot.lookup("#supervisor-summary").queryAs(Label.class).getText())
                .contains("console ");
        awaitFx(
                "the run flagged",
                () -> vm.runs().assignments().stream()
                        .anyMatch(a -> a.id().equals(abandoned.id()) && a.needsOperator()));
    }

    @Test
    void theAutoTickingSupervisorStartsStopsAndKeepsTheReportLive(FxRobot robot) throws Exception {
        robot.interact(() -> tabs.getSelectionModel().select(1));
        awaitFx(
                "the supervisor page",
                () -> !robot.lookup("#supervisor-auto")
                        .queryAs(ToggleButton.class)
                        .isDisabled());

        long before = WaitForAsyncUtils.asyncFx(
                        () -> vm.supervisor().lastTickProperty().get().seq())
                .get();

        robot.clickOn("#supervisor-auto");

        awaitFx(
                "auto-tick on",
                () -> robot.lookup("#supervisor-auto")
                        .queryAs(ToggleButton.class)
                        .isSelected());
        assertThat(robot.lookup("#supervisor-own").queryAs(Label.class).getText())
                .isEqualTo("This console's supervisor ticks every 1 s.");
        awaitFx(
                "the silent run recovered by an auto tick",
                () -> vm.runs().assignments().stream()
                        .anyMatch(a -> a.id().equals(abandoned.id()) && a.needsOperator()));
        awaitFx(
                "two ticks by themselves, shown live",
                () -> vm.supervisor().lastTickProperty().get().seq() >= before + 2);
        assertThat(robot.lookup("#supervisor-summary").queryAs(Label.class).getText())
                .contains("console ");

        robot.clickOn("#supervisor-auto");

        awaitFx(
                "auto-tick off",
                () -> !robot.lookup("#supervisor-auto")
                                .queryAs(ToggleButton.class)
                                .isSelected()
                        && !vm.supervisor().isAutoTicking());
        assertThat(robot.lookup("#supervisor-auto").queryAs(ToggleButton.class).getText())
                .isEqualTo("Auto-tick: off");
    }
}
