package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.LayoutChecks;
import dev.sovereign.console.testing.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.image.WritableImage;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Issue 31: with alerts showing from the start (the scenario's ledger has runs that need the operator), the status
 * bar makes room at every window size instead of cutting its texts — at 1440×900 everything is said whole, at
 * 1024×700 what matters least goes first and the database's tooltip still says all of it — and clicking the alerts
 * opens the run. Each size and theme is written to {@code target/screenshots/status-bar/} to be looked at.
 */
@ExtendWith(ApplicationExtension.class)
class StatusBarRoomTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;
    private Stage stage;
    private Scene scene;
    private Scenario scenario;

    @Start
    void start(Stage stage) {
        this.stage = stage;
        scenario = Scenario.build(fx);
        vm = fx.shell();
        vm.themeProperty().set(ConsoleTheme.LIGHT);
        MainWindow window = new MainWindow(vm, () -> {});
        scene = new Scene(window.create(), 1440, 900);
        window.install(scene);
        stage.setScene(scene);
        stage.show();
        vm.attach(fx.file());
        vm.tick(fx.clock.millis() + 400);
    }

    private static String text(FxRobot robot, String id) {
        return robot.lookup(id).queryAs(Label.class).getText();
    }

    @Test
    void theStatusBarMakesRoomForTheAlertsAtEverySize(FxRobot robot) throws Exception {
        Path dir = Path.of("target", "screenshots", "status-bar");
        Files.createDirectories(dir);
        List<String> cut = new ArrayList<>();
        // 760 wide: narrower than the console is meant for, to see the last steps (the badge, the file's name)
        for (int[] size : new int[][] {{1440, 900}, {1320, 820}, {1024, 700}, {760, 700}}) {
            String at = size[0] + "x" + size[1];
            robot.interact(() -> {
                stage.setWidth(size[0]);
                stage.setHeight(size[1]);
                vm.pageProperty().set(Page.LEASES);
                vm.banners().dismissBanner();
            });
            for (ConsoleTheme theme : ConsoleTheme.values()) {
                robot.interact(() -> vm.themeProperty().set(theme));
                WaitForAsyncUtils.waitForFxEvents();
                WritableImage[] shot = new WritableImage[1];
                robot.interact(() -> {
                    scene.getRoot().applyCss();
                    scene.getRoot().layout();
                    shot[0] = scene.snapshot(null);
                    LayoutChecks.truncated(robot.lookup("#status-bar").query(), cut, at + " " + theme + ": ");
                });
                ScreenshotTest.write(
                        shot[0], dir.resolve("leases-" + at + "-" + theme.name().toLowerCase() + ".png"));
                assertThat(robot.lookup("#status-alerts").queryAs(Button.class).isVisible())
                        .as(at + ": the alerts are showing")
                        .isTrue();
            }
            String database = fx.file().toString();
            String tooltip = robot.lookup("#status-database")
                    .queryAs(Label.class)
                    .getTooltip()
                    .getText();
            assertThat(tooltip)
                    .as(at + ": the database's tooltip says whole what the bar may leave out")
                    .startsWith(database)
                    .contains("schema v")
                    .contains("change ");
            if (size[0] == 760) {
                assertThat(robot.lookup("#status-alerts").queryAs(Button.class).getText())
                        .as("the alerts as a badge")
                        .isEqualTo("\u26a0 2");
                assertThat(robot.lookup("#status-change-marker").query().isVisible())
                        .isFalse();
                assertThat(robot.lookup("#status-schema").query().isVisible()).isFalse();
            }
            if (size[0] == 1440) {
                assertThat(text(robot, "#status-database"))
                        .as("room for the whole path")
                        .isEqualTo(database);
                assertThat(robot.lookup("#status-alerts").queryAs(Button.class).getText())
                        .isEqualTo("2 alerts");
                assertThat(text(robot, "#status-change-marker")).startsWith("change ");
                assertThat(robot.lookup("#status-change-marker").query().isVisible())
                        .isTrue();
                assertThat(robot.lookup("#status-schema").query().isVisible()).isTrue();
            }

            if (size[0] < 1024) {
                continue; // the pages themselves are not laid out for less
            }
            // the alerts open the run that waits longest, selected, its id a link in the banner
            robot.interact(() -> vm.themeProperty().set(ConsoleTheme.LIGHT));
            robot.clickOn("#status-alerts");
            WaitForAsyncUtils.waitForFxEvents();
            assertThat(vm.pageProperty().get()).isEqualTo(Page.RUNS);
            assertThat(vm.runs().selectedProperty().get().id()).isEqualTo(scenario.lostRun.id());
            WritableImage[] opened = new WritableImage[1];
            robot.interact(() -> {
                scene.getRoot().applyCss();
                scene.getRoot().layout();
                opened[0] = scene.snapshot(null);
                LayoutChecks.truncated(robot.lookup("#status-bar").query(), cut, at + " alert opened: ");
            });
            ScreenshotTest.write(opened[0], dir.resolve("alert-opened-" + at + ".png"));
        }
        robot.interact(() -> {
            stage.setWidth(1320);
            stage.setHeight(820);
        });
        assertThat(cut).as("status bar texts cut off (shown with an ellipsis)").isEmpty();
    }
}
