package dev.sovereign.console.feature.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.shell.ConsoleTheme;
import dev.sovereign.console.testing.LayoutChecks;
import java.util.ArrayList;
import java.util.List;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.control.ScrollPane;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Issue 31, items 15 and 3: the Lab page at 1024×700 and 1440×900, light and dark, with the step-by-step controls
 * showing, cuts nothing off and puts no control beyond the window's edge; in presenter mode the type is larger and
 * every step of the longest narrative is in sight without scrolling.
 */
@ExtendWith(ApplicationExtension.class)
class LabPresenterLayoutTest {
    private LabConsole console;
    private Stage stage;

    @Start
    void start(Stage stage) throws Exception {
        this.stage = stage;
        console = new LabConsole();
        console.show(stage, 700);
    }

    @AfterEach
    void tearDown(FxRobot robot) throws Exception {
        console.tearDown(robot);
    }

    @Test
    void thePageFitsAndPresenterModeShowsEveryStepLarger(FxRobot robot) throws Exception {
        console.openSandboxFromTheMenu(robot);
        robot.interact(() -> console.vm
                .lab()
                .selectedScenarioProperty()
                .set(console.vm.lab().scenarios().stream()
                        .filter(s -> s.name().equals("gc-pause"))
                        .findFirst()
                        .orElseThrow()));
        List<String> problems = new ArrayList<>();
        for (int[] size : new int[][] {{1024, 700}, {1440, 900}}) {
            robot.interact(() -> {
                stage.setWidth(size[0]);
                stage.setHeight(size[1]);
            });
            for (ConsoleTheme theme : ConsoleTheme.values()) {
                for (boolean presenter : new boolean[] {false, true}) {
                    robot.interact(() -> {
                        console.vm.themeProperty().set(theme);
                        console.vm.lab().paceProperty().set(LabScenarioRun.Pace.STEP);
                        console.vm.lab().presenterProperty().set(presenter);
                    });
                    WaitForAsyncUtils.waitForFxEvents();
                    String where = size[0] + "x" + size[1] + " " + theme + (presenter ? " presenter" : "") + " (scene "
                            + console.scene.getWidth() + "x" + console.scene.getHeight() + "): ";
                    double[] font = new double[1];
                    robot.interact(() -> {
                        var root = console.scene.getRoot();
                        root.applyCss();
                        root.layout();
                        LayoutChecks.truncated(root, problems, where);
                        LayoutChecks.outside(
                                root, console.scene.getWidth(), console.scene.getHeight(), problems, where);
                        if (presenter) {
                            ScrollPane scroll = (ScrollPane) console.scene.lookup("#lab-narrative-scroll");
                            Bounds view = scroll.localToScene(scroll.getLayoutBounds());
                            for (int i = 1; i <= 9; i++) {
                                Node step = console.scene.lookup("#lab-step-" + i);
                                Bounds b = step.localToScene(step.getLayoutBounds());
                                if (b.getMaxY() > view.getMaxY() + 0.5 || b.getMinY() < view.getMinY() - 0.5) {
                                    problems.add(where + "step " + i + " is out of sight (" + b.getMinY() + ".."
                                            + b.getMaxY() + " in a narrative " + view.getMinY() + ".."
                                            + view.getMaxY() + ")");
                                }
                            }
                            font[0] = ((javafx.scene.control.Label) ((javafx.scene.layout.VBox)
                                                    ((javafx.scene.layout.HBox) console.scene.lookup("#lab-step-1"))
                                                            .getChildren()
                                                            .get(1))
                                            .getChildren()
                                            .get(0))
                                    .getFont()
                                    .getSize();
                        }
                    });
                    if (presenter && font[0] < 17) {
                        problems.add(where + "a step's type is " + font[0] + " px, not larger for a projector");
                    }
                    console.screenshot(
                            robot,
                            "lab-layout-" + size[0] + "x" + size[1] + "-"
                                    + theme.name().toLowerCase() + (presenter ? "-presenter" : ""));
                }
            }
        }
        assertThat(problems)
                .as("cut off, out of sight, or not larger in presenter mode")
                .isEmpty();
    }
}
