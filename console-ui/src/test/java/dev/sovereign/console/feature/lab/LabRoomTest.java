package dev.sovereign.console.feature.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.shell.ConsoleTheme;
import dev.sovereign.console.testing.LayoutChecks;
import java.util.ArrayList;
import java.util.List;
import javafx.scene.control.ListView;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Issue 31: the Lab page at the default window size (1320×820) and at 1024×700, light and dark, with three workers
 * running, shows at least three whole rows of the worker table, every scenario's description whole in the list
 * (wrapped to its width, never cut at its right edge nor scrolled sideways) and a narrative tall enough to read.
 */
@ExtendWith(ApplicationExtension.class)
class LabRoomTest {
    /** The narrative's least height: two steps, each a line and a wrapped detail. */
    private static final double NARRATIVE_AT_LEAST = 110;

    private LabConsole console;
    private Stage stage;

    @Start
    void start(Stage stage) throws Exception {
        this.stage = stage;
        console = new LabConsole();
        console.show(stage);
    }

    @AfterEach
    void tearDown(FxRobot robot) throws Exception {
        console.tearDown(robot);
    }

    @Test
    void threeWorkersWholeEveryScenarioWholeAndRoomToRead(FxRobot robot) throws Exception {
        console.openSandboxFromTheMenu(robot);
        for (int i = 1; i <= 3; i++) {
            int n = i;
            robot.clickOn("#lab-start-worker");
            console.await(() -> console.vm.lab().workers().size() == n);
        }
        List<String> problems = new ArrayList<>();
        for (int[] size : new int[][] {{1320, 820}, {1024, 700}}) {
            robot.interact(() -> {
                stage.setWidth(size[0]);
                stage.setHeight(size[1]);
            });
            for (ConsoleTheme theme : ConsoleTheme.values()) {
                robot.interact(() -> console.vm.themeProperty().set(theme));
                WaitForAsyncUtils.waitForFxEvents();
                String where = size[0] + "x" + size[1] + " " + theme + ": ";
                robot.interact(() -> {
                    var root = console.scene.getRoot();
                    root.applyCss();
                    root.layout();
                    int rows = LayoutChecks.wholeRows((TableView<?>) console.scene.lookup("#lab-workers"));
                    if (rows < 3) {
                        problems.add(where + rows + " whole rows of 3 workers, want 3");
                    }
                    double narrative = ((ScrollPane) console.scene.lookup("#lab-narrative-scroll")).getHeight();
                    if (narrative < NARRATIVE_AT_LEAST) {
                        problems.add(where + "the narrative is " + Math.round(narrative) + " px tall, want "
                                + NARRATIVE_AT_LEAST);
                    }
                    ListView<?> list = (ListView<?>) console.scene.lookup("#lab-scenarios");
                    for (int i = 0; i < list.getItems().size(); i++) {
                        list.scrollTo(i);
                        root.layout();
                        LayoutChecks.listCellsWhole(list, problems, where);
                    }
                    // (not LayoutChecks.truncated: a worker's last line, longer than its column, still ends in "…")
                    LayoutChecks.outside(root, console.scene.getWidth(), console.scene.getHeight(), problems, where);
                });
                console.screenshot(
                        robot,
                        "lab-room-" + size[0] + "x" + size[1] + "-"
                                + theme.name().toLowerCase());
            }
        }
        assertThat(problems)
                .as("fewer than three whole worker rows, a scenario's description cut, or a narrative too short")
                .containsExactly();
    }
}
