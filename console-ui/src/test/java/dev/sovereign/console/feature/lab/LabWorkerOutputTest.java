package dev.sovereign.console.feature.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.testing.LayoutChecks;
import java.util.ArrayList;
import java.util.List;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Issue 31, item 20 (its Lab half): selecting a worker shows its recent output lines, not only the last one, and
 * keeps following what it prints; at 1024x700 the pane beside the table cuts nothing off.
 */
@ExtendWith(ApplicationExtension.class)
class LabWorkerOutputTest {
    private LabConsole console;

    @Start
    void start(Stage stage) throws Exception {
        console = new LabConsole();
        console.show(stage, 700);
        stage.setWidth(1024);
    }

    @AfterEach
    void tearDown(FxRobot robot) throws Exception {
        console.tearDown(robot);
    }

    private static List<String> lines(TextArea output) {
        return output.getText().isEmpty() ? List.of() : List.of(output.getText().split("\n"));
    }

    @Test
    void aSelectedWorkerShowsItsRecentLinesAndFollowsThem(FxRobot robot) throws Exception {
        console.openSandboxFromTheMenu(robot);
        robot.interact(() -> console.vm.lab().startWorker());
        console.await(() -> console.vm.lab().workers().size() == 1
                && console.vm.lab().workers().get(0).recentLines().size() >= 2);
        LabWorkerItem worker = console.vm.lab().workers().get(0);
        assertThat(robot.lookup("#lab-output-pane").query().isVisible())
                .as("no row selected")
                .isFalse();

        robot.interact(() -> robot.lookup("#lab-workers")
                .queryAs(TableView.class)
                .getSelectionModel()
                .select(0));
        WaitForAsyncUtils.waitForFxEvents();
        TextArea output = robot.lookup("#lab-output").queryAs(TextArea.class);
        assertThat(robot.lookup("#lab-output-pane").query().isVisible()).isTrue();
        assertThat(lines(output)).hasSizeGreaterThanOrEqualTo(2);
        List<String> printed = worker.process().lines();
        assertThat(lines(output))
                .as("its newest lines, in order")
                .containsExactlyElementsOf(
                        printed.subList(Math.max(0, printed.size() - LabWorkerItem.RECENT_LINES), printed.size()));

        int before = lines(output).size();
        robot.interact(() -> console.vm.lab().pause(worker)); // it prints that it paused
        console.await(() -> lines(output).size() > before || before == LabWorkerItem.RECENT_LINES);
        assertThat(lines(output).get(lines(output).size() - 1))
                .isEqualTo(worker.lastLineProperty().get());

        List<String> cut = new ArrayList<>();
        robot.interact(() -> {
            console.scene.getRoot().applyCss();
            console.scene.getRoot().layout();
            // the pane's words whole (the table's one-line "Last line it printed" cell may end in "…": the pane
            // beside it is where the whole lines are)
            LayoutChecks.truncated(console.scene.lookup("#lab-output-pane"), cut, "1024x700: ");
            LayoutChecks.outside(
                    console.scene.getRoot(), console.scene.getWidth(), console.scene.getHeight(), cut, "1024x700: ");
        });
        console.screenshot(robot, "lab-worker-output-1024x700");
        assertThat(cut).isEmpty();
    }
}
