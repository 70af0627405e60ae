package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.feature.timeline.TimelineMarker;
import dev.sovereign.console.fx.LinkedSentence;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.Scenario;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.ProcessRow;
import dev.sovereign.engine.journal.FenceEvent;
import java.util.List;
import java.util.Optional;
import javafx.geometry.Bounds;
import javafx.scene.Parent;
import javafx.scene.Scene;
import javafx.scene.control.Hyperlink;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuItem;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.TableView;
import javafx.scene.input.KeyCode;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Issue 17, item 7 (the rest): ids inside sentences link — a refusal's explanation, a run's history, the result
 * of an action ("Retried asg_… as asg_…") — and Back returns; a tick that changes no words rebuilds no sentence.
 * And Actions → Stop selected process… (Ctrl+Shift+S) stops the selected process of a real SQLite ledger after
 * asking, and is off without a selection.
 */
@ExtendWith(ApplicationExtension.class)
class SentenceLinksTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;
    private Scenario scenario;
    private Scene scene;

    @Start
    void start(Stage stage) {
        scenario = Scenario.build(fx);
        vm = fx.shell();
        MainWindow window = new MainWindow(vm, () -> {});
        scene = new Scene(window.create(), 1320, 820);
        window.install(scene);
        stage.setScene(scene);
        stage.show();
        vm.attach(fx.file());
    }

    private static Optional<Hyperlink> link(LinkedSentence s, String text) {
        return s.getChildren().stream()
                .filter(n -> n instanceof Hyperlink h && h.getText().equals(text))
                .map(n -> (Hyperlink) n)
                .findFirst();
    }

    private LinkedSentence sentence(FxRobot robot, String id) {
        return robot.lookup("#" + id).queryAs(LinkedSentence.class);
    }

    @Test
    void theIdsAndTheActorInARefusalsExplanationLinkAndBackReturns(FxRobot robot) {
        // the late write is one incident (decision 0320): its explanation lists every part, the run's refusal too
        JournalEntry late = vm.rejections().rows().stream()
                .flatMap(e -> vm.rejections().incident(e).parts().stream())
                .filter(e -> "assignment".equals(e.resourceType()))
                .findFirst()
                .orElseThrow();
        JournalEntry row = vm.rejections().rows().stream()
                .filter(e -> vm.rejections().incident(e).contains(late))
                .findFirst()
                .orElseThrow();
        robot.interact(() -> {
            vm.pageProperty().set(Page.REJECTIONS);
            vm.rejections().selectedProperty().set(row);
        });
        WaitForAsyncUtils.waitForFxEvents();
        LinkedSentence detail = sentence(robot, "rejection-detail");
        String text = detail.getText();
        assertThat(text).as("the explanation names the run").contains(late.resourceId());

        robot.clickOn(link(detail, late.resourceId()).orElseThrow(() -> new AssertionError("no link in " + text)));
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(vm.pageProperty().get()).isEqualTo(Page.RUNS);
        assertThat(vm.runs().selectedProperty().get().id()).isEqualTo(late.resourceId());

        robot.press(KeyCode.ALT, KeyCode.LEFT).release(KeyCode.LEFT, KeyCode.ALT);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(vm.pageProperty().get()).as("Back").isEqualTo(Page.REJECTIONS);

        // the actor, from the refusal's own row, where the sentence names it
        if (late.actor() != null && text.contains(late.actor())) {
            robot.clickOn(
                    link(sentence(robot, "rejection-detail"), late.actor()).orElseThrow());
            WaitForAsyncUtils.waitForFxEvents();
            assertThat(vm.pageProperty().get()).isEqualTo(Page.ACTOR);
            assertThat(vm.actorPage().actor()).isEqualTo(late.actor());
            robot.interact(vm.navigation()::back);
            assertThat(vm.pageProperty().get()).isEqualTo(Page.REJECTIONS);
        }
    }

    @Test
    void aProcessNamedInARunsHistoryLinksToItsPage(FxRobot robot) {
        String lost = scenario.lostRun.id();
        robot.interact(() -> vm.navigation().openAssignment(lost));
        WaitForAsyncUtils.waitForFxEvents();
        LinkedSentence history = sentence(robot, "run-history");
        String text = history.getText();
        List<Hyperlink> links = history.getChildren().stream()
                .filter(Hyperlink.class::isInstance)
                .map(Hyperlink.class::cast)
                .toList();
        assertThat(links).as("links in: " + text).isNotEmpty();
        Hyperlink process = links.stream()
                .filter(h -> h.getText().startsWith("proc_"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no process link in " + text));
        String shown = process.getText();

        // the history is at the foot of a scrolling pane: bring the link into view, then click it
        robot.interact(() -> {
            for (Parent p = process.getParent(); p != null; p = p.getParent()) {
                if (p instanceof ScrollPane sp) {
                    Bounds at = sp.getContent().sceneToLocal(process.localToScene(process.getBoundsInLocal()));
                    double room = sp.getContent().getBoundsInLocal().getHeight()
                            - sp.getViewportBounds().getHeight();
                    sp.setVvalue(room <= 0 ? 0 : Math.min(1, Math.max(0, at.getMinY() - 10) / room) * sp.getVmax());
                }
            }
        });
        WaitForAsyncUtils.waitForFxEvents();
        robot.clickOn(process);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(vm.pageProperty().get()).isEqualTo(Page.PROCESS);
        String expected = vm.ledger().snapshot().processes().stream()
                .map(p -> p.process().identity())
                .filter(id -> id.startsWith(shown.replace("\u2026", "")))
                .findFirst()
                .orElseThrow();
        assertThat(vm.processPage().identity())
                .as("the whole identity, also from a short id")
                .isEqualTo(expected);

        robot.interact(vm.navigation()::back);
        assertThat(vm.pageProperty().get()).isEqualTo(Page.RUNS);
        assertThat(vm.runs().selectedProperty().get().id()).isEqualTo(lost);
    }

    @Test
    void aRetrysResultLinksToTheNewRunAndTicksThatChangeNoWordsBuildNothing(FxRobot robot) throws Exception {
        String lost = scenario.lostRun.id();
        robot.interact(() -> vm.navigation().openAssignment(lost));
        WaitForAsyncUtils.waitForFxEvents();
        robot.interact(() -> vm.runs().retrySelected()); // this shell acts on the FX thread and polls when told
        robot.interact(vm::pollNow);
        WaitForAsyncUtils.waitForFxEvents();
        String retry = vm.runs().assignments().stream()
                .filter(a -> lost.equals(a.retryOf()))
                .findFirst()
                .orElseThrow()
                .id();
        robot.interact(() -> vm.navigation().openAssignment(lost)); // back on the old run; the result names both
        WaitForAsyncUtils.waitForFxEvents();
        LinkedSentence message = sentence(robot, "runs-action-message");
        assertThat(message.getText()).startsWith("Retried " + lost + " as " + retry);
        assertThat(link(message, lost)).isPresent();

        // ticks that change no words leave every sentence's pieces alone (decision 0415)
        LinkedSentence history = sentence(robot, "run-history");
        int messageBuilds = message.builds();
        int historyBuilds = history.builds();
        for (int i = 1; i <= 5; i++) {
            long at = fx.clock.millis() + i * 1000L;
            robot.interact(() -> vm.tick(at));
        }
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(message.builds()).isEqualTo(messageBuilds);
        assertThat(history.builds()).isEqualTo(historyBuilds);

        robot.clickOn(link(message, retry).orElseThrow());
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(vm.runs().selectedProperty().get().id()).as("the new run").isEqualTo(retry);
    }

    @Test
    void theTimelinesMarkerSentenceAndTheSupervisorsReportLink(FxRobot robot) {
        robot.interact(() -> vm.pageProperty().set(Page.TIMELINE));
        WaitForAsyncUtils.waitForFxEvents();
        TimelineMarker refusal = vm.timeline().lanes().stream()
                .flatMap(l -> l.markers().stream())
                .filter(m ->
                        m.event().resourceId() != null && m.event().resourceId().startsWith("asg_"))
                .findFirst()
                .orElseThrow();
        robot.interact(() -> vm.timeline().selectedProperty().set(refusal));
        WaitForAsyncUtils.waitForFxEvents();
        LinkedSentence detail = sentence(robot, "timeline-detail");
        String run = refusal.event().resourceId();
        robot.clickOn(link(detail, run).orElseThrow(() -> new AssertionError("no link in " + detail.getText())));
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(vm.pageProperty().get()).isEqualTo(Page.RUNS);
        assertThat(vm.runs().selectedProperty().get().id()).isEqualTo(run);
        robot.interact(vm.navigation()::back);
        assertThat(vm.pageProperty().get()).isEqualTo(Page.TIMELINE);

        // the supervisor's report names what it recovered and who went stale: each id links
        robot.interact(() -> vm.pageProperty().set(Page.SUPERVISOR));
        WaitForAsyncUtils.waitForFxEvents();
        LinkedSentence report = sentence(robot, "supervisor-report");
        Hyperlink first = report.getChildren().stream()
                .filter(Hyperlink.class::isInstance)
                .map(Hyperlink.class::cast)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no link in " + report.getText()));
        String named = first.getText().replace("\u2026", "");
        robot.clickOn(first);
        WaitForAsyncUtils.waitForFxEvents();
        if (named.startsWith("proc_")) {
            assertThat(vm.pageProperty().get()).isEqualTo(Page.PROCESS);
            assertThat(vm.processPage().identity()).startsWith(named);
        } else {
            assertThat(vm.pageProperty().get()).isEqualTo(Page.RUNS);
            assertThat(vm.runs().selectedProperty().get().id()).startsWith(named);
        }
        robot.interact(vm.navigation()::back);
        assertThat(vm.pageProperty().get()).isEqualTo(Page.SUPERVISOR);
    }

    @Test
    void theActionsMenuStopsTheSelectedProcessAfterAskingAndIsOffWithoutOne(FxRobot robot) {
        MenuItem item = menuItem("menu-stop-process");
        assertThat(item.isDisable()).as("no process selected").isTrue();
        assertThat(ShortcutSheet.rows(robot.lookup("#menu-bar").queryAs(MenuBar.class)))
                .anySatisfy(r -> assertThat(r[1]).isEqualTo("Actions \u2192 Stop selected process\u2026"));

        String d = scenario.workerD.processIdentity();
        robot.interact(() -> vm.pageProperty().set(Page.PROCESSES));
        WaitForAsyncUtils.waitForFxEvents();
        TableView<?> table = robot.lookup("#processes-table").queryAs(TableView.class);
        robot.interact(() -> {
            for (int i = 0; i < table.getItems().size(); i++) {
                if (((ProcessRow) table.getItems().get(i)).process().identity().equals(d)) {
                    table.getSelectionModel().clearAndSelect(i);
                }
            }
        });
        robot.interact(() -> vm.pageProperty().set(Page.LEASES)); // the shortcut works from every page
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(item.isDisable()).as("a live process selected").isFalse();

        robot.press(KeyCode.CONTROL, KeyCode.SHIFT, KeyCode.S).release(KeyCode.S, KeyCode.SHIFT, KeyCode.CONTROL);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(vm.pageProperty().get()).as("asked where the row is").isEqualTo(Page.PROCESSES);
        assertThat(robot.lookup("#processes-stop-question").queryLabeled().getText())
                .startsWith("Stop process worker 7104 (");
        assertThat(scenario.workerD.processes().find(d).orElseThrow().stoppedAt())
                .as("not before the answer")
                .isNull();
        robot.clickOn("#processes-stop-confirm");
        WaitForAsyncUtils.waitForFxEvents();

        assertThat(scenario.workerD.processes().find(d).orElseThrow().stoppedAt())
                .as("stopped, as the engine reads it")
                .isNotNull();
        List<FenceEvent> stops = scenario.workerD.journal().forResource("process", d).stream()
                .filter(e -> e.kind().name().equals("PROCESS_STOPPED"))
                .toList();
        assertThat(stops).hasSize(1);
        robot.interact(vm::pollNow);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(item.isDisable()).as("a stopped process, or none shown").isTrue();
    }

    private MenuItem menuItem(String id) {
        MenuBar bar = (MenuBar) scene.lookup("#menu-bar");
        for (Menu m : bar.getMenus()) {
            for (MenuItem i : m.getItems()) {
                if (id.equals(i.getId())) {
                    return i;
                }
            }
        }
        throw new AssertionError("no menu item " + id);
    }
}
