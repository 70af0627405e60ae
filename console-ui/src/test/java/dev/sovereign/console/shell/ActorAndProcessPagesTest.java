package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.feature.actor.ActorPageViewModel;
import dev.sovereign.console.fx.LinkedSentence;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.Scenario;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.ProcessRow;
import dev.sovereign.engine.journal.FenceEvent;
import java.util.List;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.TableView;
import javafx.scene.input.KeyCode;
import javafx.stage.Stage;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Issue 17, items 7 and 11: an actor's page and a process's page, opened from the ids in the tables, Back and
 * Forward across them, and "Stop process…" on a real process of a real SQLite ledger.
 */
@ExtendWith(ApplicationExtension.class)
class ActorAndProcessPagesTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;
    private Scenario scenario;

    @Start
    void start(Stage stage) {
        scenario = Scenario.build(fx);
        vm = fx.shell();
        MainWindow window = new MainWindow(vm, () -> {});
        Scene scene = new Scene(window.create(), 1320, 820);
        window.install(scene);
        stage.setScene(scene);
        stage.show();
        vm.attach(fx.file());
    }

    @Test
    void clickingAnActorInLeasesOpensItsPageWithItsHoldsAndTokensAndBackReturns(FxRobot robot) {
        robot.clickOn("#lease-actor-operator");
        WaitForAsyncUtils.waitForFxEvents();

        assertThat(vm.pageProperty().get()).isEqualTo(Page.ACTOR);
        assertThat(robot.lookup("#actor-title").queryAs(Label.class).getText()).isEqualTo("Actor operator");
        List<ActorPageViewModel.Hold> holds = vm.actorPage().holds();
        String a = scenario.workerA.processIdentity();
        String b = scenario.workerB.processIdentity();
        assertThat(holds)
                .extracting(ActorPageViewModel.Hold::token, h -> h.holder().identity(), ActorPageViewModel.Hold::ended)
                .containsExactly(
                        Tuple.tuple(
                                scenario.operatorFirst.token(),
                                a,
                                "taken over by worker 7102 (token " + scenario.operatorSecond.token() + ")"),
                        Tuple.tuple(scenario.operatorSecond.token(), b, "holds it now"));
        // on screen: one row per hold, the holder a link to its process
        assertThat(robot.lookup("#actor-hold-" + scenario.operatorFirst.token()).tryQuery())
                .isPresent();
        assertThat(robot.lookup("#actor-hold-holder-" + scenario.operatorSecond.token())
                        .queryLabeled()
                        .getText())
                .isEqualTo("worker 7102");
        // its runs and refusals, and every journal row that names it, with the journal's true count
        assertThat(vm.actorPage().runs())
                .extracting(r -> r.id())
                .contains(scenario.lostRun.id(), scenario.runningRun.id());
        assertThat(vm.actorPage().rejections())
                .isNotEmpty()
                .allMatch(JournalEntry::isRejection)
                .allMatch(e -> "operator".equals(e.actor()));
        long named = scenario.workerB.journal().since(0, 100_000).stream()
                .filter(e -> "operator".equals(e.actorId()))
                .count();
        assertThat(vm.actorPage().journal()).hasSize((int) Math.min(named, 200));
        assertThat(robot.lookup("#actor-journal-summary").queryAs(Label.class).getText())
                .isEqualTo("The newest " + Math.min(named, 200) + " of " + named
                        + " journal rows naming operator, oldest first.");

        robot.clickOn("#actor-back");
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(vm.pageProperty().get()).isEqualTo(Page.LEASES);
        robot.clickOn("#lease-holder-" + b);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(vm.pageProperty().get()).isEqualTo(Page.PROCESS);
        assertThat(vm.processPage().identity()).isEqualTo(b);
    }

    @Test
    void clickingAProcessInRejectionsOpensItsPageAndBackAndForwardMoveAcrossPages(FxRobot robot) {
        JournalEntry late = vm.rejections().rows().stream()
                .filter(e -> e.process() != null && e.process().identity().equals(scenario.workerA.processIdentity()))
                .findFirst()
                .orElseThrow();
        robot.interact(() -> vm.pageProperty().set(Page.REJECTIONS));
        WaitForAsyncUtils.waitForFxEvents();

        robot.clickOn("#rejection-process-" + late.seq());
        WaitForAsyncUtils.waitForFxEvents();

        assertThat(vm.pageProperty().get()).isEqualTo(Page.PROCESS);
        assertThat(robot.lookup("#process-title").queryAs(Label.class).getText())
                .startsWith("Process worker 7101 (");
        assertThat(robot.lookup("#process-facts").queryAs(Label.class).getText())
                .contains("kind worker")
                .contains("Identity " + late.process().identity());
        assertThat(vm.processPage().journal()).extracting(JournalEntry::seq).contains(late.seq());
        assertThat(vm.processPage().journal())
                .allMatch(e -> (e.process() != null
                                && e.process().identity().equals(late.process().identity()))
                        || late.process().identity().equals(e.resourceId()));
        assertThat(vm.processPage().attempts())
                .extracting(x -> x.assignmentId())
                .contains(scenario.lostRun.id());

        // from the process to an actor it held, then back twice and forward again
        robot.interact(() -> vm.navigation().openActor("operator"));
        assertThat(vm.pageProperty().get()).isEqualTo(Page.ACTOR);
        robot.press(KeyCode.ALT, KeyCode.LEFT).release(KeyCode.LEFT, KeyCode.ALT);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(vm.pageProperty().get()).isEqualTo(Page.PROCESS);
        assertThat(vm.processPage().identity()).isEqualTo(late.process().identity());
        robot.clickOn("#process-back");
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(vm.pageProperty().get()).isEqualTo(Page.REJECTIONS);
        robot.press(KeyCode.ALT, KeyCode.RIGHT).release(KeyCode.RIGHT, KeyCode.ALT);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(vm.pageProperty().get()).isEqualTo(Page.PROCESS);
        robot.clickOn("#process-forward");
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(vm.pageProperty().get()).isEqualTo(Page.ACTOR);
        assertThat(vm.actorPage().actor()).isEqualTo("operator");
    }

    @Test
    void stopProcessAsksNamingItsLeasesThenStopsTheRealProcess(FxRobot robot) {
        Engine c = scenario.workerC;
        String id = c.processIdentity();
        robot.interact(() -> vm.navigation().openProcess(id));
        WaitForAsyncUtils.waitForFxEvents();
        List<String> held = vm.ledger().snapshot().leases().stream()
                .filter(l -> l.holder() != null && l.holder().identity().equals(id))
                .map(l -> l.actor() + " token " + l.token())
                .toList();
        assertThat(held).isNotEmpty();

        robot.clickOn("#process-stop");
        WaitForAsyncUtils.waitForFxEvents();
        String question =
                robot.lookup("#process-stop-question").queryAs(Label.class).getText();
        assertThat(question)
                .startsWith("Stop process worker 7103 (" + id.substring(0, 13) + "\u2026)")
                .contains(
                        held.size() == 1
                                ? "Its lease (" + held.get(0) + ") is not released"
                                : "Its " + held.size() + " leases (" + String.join(", ", held) + ") are not released")
                .contains("It runs nothing.");
        assertThat(c.processes().find(id).orElseThrow().stoppedAt())
                .as("nothing happens before the answer")
                .isNull();

        robot.clickOn("#process-stop-confirm");
        WaitForAsyncUtils.waitForFxEvents();

        assertThat(c.processes().find(id).orElseThrow().stoppedAt())
                .as("stopped, as the engine reads it")
                .isNotNull();
        List<FenceEvent> stops = c.journal().forResource("process", id).stream()
                .filter(e -> e.kind().name().equals("PROCESS_STOPPED"))
                .toList();
        assertThat(stops).hasSize(1);
        assertThat(robot.lookup("#process-stop-action-message")
                        .queryAs(LinkedSentence.class)
                        .getText())
                .startsWith("Marked worker 7103 (")
                .contains("stopped");
        robot.interact(vm::pollNow);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(robot.lookup("#process-stop").queryAs(Button.class).isDisabled())
                .as("a stopped process")
                .isTrue();
        assertThat(robot.lookup("#process-facts").queryAs(Label.class).getText())
                .startsWith("State: stopped");
        assertThat(vm.processPage().journal()).extracting(JournalEntry::kind).contains("PROCESS_STOPPED");
        assertThat(robot.lookup("#process-journal").queryAs(TableView.class).getItems())
                .isNotEmpty();
    }

    @Test
    void theProcessesPageStopsTheSelectedProcessAfterAskingAndNotAStoppedOne(FxRobot robot) {
        String d = scenario.workerD.processIdentity();
        robot.interact(() -> vm.pageProperty().set(Page.PROCESSES));
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(robot.lookup("#processes-stop").queryAs(Button.class).isDisabled())
                .as("nothing selected")
                .isTrue();
        TableView<?> table = robot.lookup("#processes-table").queryAs(TableView.class);
        int row = 0;
        for (int i = 0; i < table.getItems().size(); i++) {
            if (((ProcessRow) table.getItems().get(i)).process().identity().equals(d)) {
                row = i;
            }
        }
        int r = row;
        robot.interact(() -> table.getSelectionModel().select(r));
        robot.clickOn("#processes-stop");
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(robot.lookup("#processes-stop-question").queryAs(Label.class).getText())
                .startsWith("Stop process worker 7104 (");
        robot.clickOn("#processes-stop-cancel");
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(scenario.workerD.processes().find(d).orElseThrow().stoppedAt())
                .isNull();
        assertThat(robot.lookup("#processes-stop-confirm-bar").query().isVisible())
                .isFalse();

        robot.clickOn("#processes-stop");
        robot.clickOn("#processes-stop-confirm");
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(scenario.workerD.processes().find(d).orElseThrow().stoppedAt())
                .isNotNull();
        robot.interact(() -> {
            vm.processes().showStoppedProperty().set(true);
            vm.pollNow();
        });
        WaitForAsyncUtils.waitForFxEvents();
        robot.interact(() -> {
            for (int i = 0; i < table.getItems().size(); i++) {
                if (((ProcessRow) table.getItems().get(i)).process().identity().equals(d)) {
                    table.getSelectionModel().clearAndSelect(i);
                }
            }
        });
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(robot.lookup("#processes-stop").queryAs(Button.class).isDisabled())
                .as("already stopped")
                .isTrue();
    }
}
