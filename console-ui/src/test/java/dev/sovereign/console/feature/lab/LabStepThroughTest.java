package dev.sovereign.console.feature.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.lab.LabStep;
import dev.sovereign.engine.lab.Verdict;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.input.KeyCode;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

/**
 * Issue 31, item 15 (decision 0117): gc-pause step by step from the Lab page, with real workers. The lab waits
 * before starting worker A (nothing started yet); Space, the right arrow and the Next button each let one step
 * begin; the steps that must follow in real time (freeze A, the takeover, the re-run, wake A) never wait, so the
 * page goes from waiting before step 3 straight to waiting before step 8; the verdict is HELD. Also pictures the
 * page waiting, and in presenter mode, for docs/console.md.
 */
@ExtendWith(ApplicationExtension.class)
class LabStepThroughTest {
    private LabConsole console;
    private Stage stage;

    @Start
    void start(Stage stage) throws Exception {
        this.stage = stage;
        console = new LabConsole();
        console.show(stage, 900);
        stage.setWidth(1440);
    }

    @AfterEach
    void tearDown(FxRobot robot) throws Exception {
        console.tearDown(robot);
    }

    @Test
    void gcPauseStepByStepWaitsOnlyWhereTheStoryCan(FxRobot robot) throws Exception {
        console.openSandboxFromTheMenu(robot);
        List<Integer> heldAt = new CopyOnWriteArrayList<>();
        robot.interact(() -> {
            console.vm.lab().heldStepProperty().addListener((obs, o, h) -> {
                if (h != null) {
                    heldAt.add(h.index() + 1);
                }
            });
            console.vm.lab().paceProperty().set(LabScenarioRun.Pace.STEP);
        });
        robot.clickOn("gc-pause");
        robot.clickOn("#lab-run");

        console.await(() -> held() == 1);
        assertThat(console.vm.lab().workers())
                .as("nothing started while the lab waits")
                .isEmpty();
        assertThat(console.vm.lab().steps()).allMatch(s -> s.status() == LabStep.Status.PENDING);
        assertThat(robot.lookup("#lab-step-held").queryAs(Label.class).getText())
                .contains("waits for you");
        assertThat(robot.lookup("#lab-step-4").queryAs(javafx.scene.layout.HBox.class).lookupAll(".label").stream()
                        .map(n -> ((Label) n).getText())
                        .anyMatch(t -> t.endsWith("real time")))
                .as("freezing A is marked as following in real time")
                .isTrue();

        robot.clickOn("#lab-narrative-scroll"); // the page has the focus, not a text field
        robot.type(KeyCode.SPACE);
        console.await(() -> held() == 2);
        assertThat(console.vm.lab().steps().get(0).status()).isEqualTo(LabStep.Status.DONE);
        assertThat(console.vm.lab().workers()).hasSize(1);
        console.screenshot(robot, "lab-step-by-step-1440x900");
        robot.interact(() -> {
            stage.setWidth(1024);
            stage.setHeight(700);
        });
        console.screenshot(robot, "lab-step-by-step-1024x700");
        assertThat(outOfSight(robot, 2, 2))
                .as("the waiting step in a 1024x700 window")
                .isEmpty();

        robot.type(KeyCode.RIGHT);
        console.await(() -> held() == 3);
        robot.interact(() -> console.vm.lab().presenterProperty().set(true));
        console.screenshot(robot, "lab-presenter-1024x700");
        assertThat(outOfSight(robot, 1, 9))
                .as("presenter mode at 1024x700, waiting before step 3")
                .isEmpty();
        robot.interact(() -> {
            stage.setWidth(1440);
            stage.setHeight(900);
        });
        console.screenshot(robot, "lab-presenter-1440x900");

        robot.clickOn("#lab-next-step");
        console.await(() -> held() == 8);
        assertThat(console.vm.lab().steps().subList(0, 7)).allMatch(s -> s.status() == LabStep.Status.DONE);
        robot.interact(() -> console.vm.lab().nextStep());
        console.await(() -> held() == 9);
        robot.interact(() -> console.vm.lab().nextStep());
        console.await(() -> console.vm.lab().verdictProperty().get() != null);
        console.screenshot(robot, "lab-presenter-verdict-1440x900");
        robot.interact(() -> console.vm.lab().presenterProperty().set(false));

        assertThat(console.vm.lab().verdictProperty().get().verdict())
                .as(console.describe())
                .isEqualTo(Verdict.HELD);
        assertThat(heldAt).containsExactly(1, 2, 3, 8, 9);
        assertThat(robot.lookup("#lab-next-step").queryAs(Button.class).isDisabled())
                .isTrue();

        // issue 31, item 16: the timeline zooms to the scenario just run, and its summary says so
        String actor = console.vm.lab().scenarioActorProperty().get();
        robot.clickOn("#nav-timeline");
        console.await(
                () -> actor.equals(console.vm.timeline().lastScenarioProperty().get()));
        robot.clickOn("#timeline-last-scenario");
        console.await(() -> robot.lookup("#timeline-summary")
                .queryAs(Label.class)
                .getText()
                .startsWith("Window: the last scenario, " + actor + ", "));
        console.screenshot(robot, "lab-timeline-last-scenario-1440x900");
    }

    /** The steps from..to that are not whole inside the narrative's viewport. */
    private List<Integer> outOfSight(FxRobot robot, int from, int to) throws Exception {
        List<Integer> out = new CopyOnWriteArrayList<>();
        org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
        robot.interact(() -> {
            javafx.scene.Node scroll = console.scene.lookup("#lab-narrative-scroll");
            javafx.geometry.Bounds view = scroll.localToScene(scroll.getLayoutBounds());
            for (int i = from; i <= to; i++) {
                javafx.scene.Node step = console.scene.lookup("#lab-step-" + i);
                javafx.geometry.Bounds b = step.localToScene(step.getLayoutBounds());
                if (b.getMinY() < view.getMinY() - 0.5 || b.getMaxY() > view.getMaxY() + 0.5) {
                    out.add(i);
                }
            }
        });
        return out;
    }

    private int held() {
        LabStep h = console.vm.lab().heldStepProperty().get();
        return h == null ? -1 : h.index() + 1;
    }
}
