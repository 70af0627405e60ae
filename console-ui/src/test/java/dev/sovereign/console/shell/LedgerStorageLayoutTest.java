package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.LayoutChecks;
import dev.sovereign.console.testing.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.ScrollPane;
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
 * Issue 29 item 4: the Supervisor page's Ledger section and the low-disk warning across the top, on the scenario's
 * ledger with a nearly full disk (simulated), at 1024×700 and 1440×900 in both themes: nothing cut off, nothing out
 * of sight, the section and the warning shown; the status bar's size where it has room (at 1440×900). Each is written
 * to {@code target/screenshots/ledger-storage/} to be looked at.
 */
@ExtendWith(ApplicationExtension.class)
class LedgerStorageLayoutTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;
    private Stage stage;
    private Scene scene;

    @Start
    void start(Stage stage) {
        this.stage = stage;
        Scenario.build(fx);
        vm = fx.shell();
        vm.attachment().useFreeSpace(file -> 420_000_000L);
        vm.themeProperty().set(ConsoleTheme.LIGHT);
        MainWindow window = new MainWindow(vm, () -> {});
        scene = new Scene(window.create(), 1440, 900);
        window.install(scene);
        stage.setScene(scene);
        stage.show();
        vm.attach(fx.file());
        vm.tick(fx.clock.millis() + 400);
        vm.pageProperty().set(Page.SUPERVISOR);
    }

    @Test
    void theLedgerSectionAndTheWarningFitAtBothSizes(FxRobot robot) throws Exception {
        Path dir = Path.of("target", "screenshots", "ledger-storage");
        Files.createDirectories(dir);
        List<String> cut = new ArrayList<>();
        for (int[] size : new int[][] {{1024, 700}, {1440, 900}}) {
            String at = size[0] + "x" + size[1];
            robot.interact(() -> {
                stage.setWidth(size[0]);
                stage.setHeight(size[1]);
            });
            for (ConsoleTheme theme : ConsoleTheme.values()) {
                robot.interact(() -> vm.themeProperty().set(theme));
                WaitForAsyncUtils.waitForFxEvents();
                WritableImage[] shot = new WritableImage[1];
                robot.interact(() -> {
                    scene.getRoot().applyCss();
                    scene.getRoot().layout();
                    shot[0] = scene.snapshot(null);
                    String where = at + " " + theme + ": ";
                    LayoutChecks.truncated(scene.getRoot(), cut, where);
                    LayoutChecks.outside(scene.getRoot(), scene.getWidth(), scene.getHeight(), cut, where);
                });
                ScreenshotTest.write(
                        shot[0],
                        dir.resolve("supervisor-" + at + "-" + theme.name().toLowerCase() + ".png"));
                assertThat(vm.bannerProperty().get().isDiskWarning()).as(at).isTrue();
                assertThat(shown(robot, "#banner"))
                        .as(at + ": the warning across the top")
                        .isTrue();
                assertThat(shown(robot, "#supervisor-storage"))
                        .as(at + ": the Ledger section")
                        .isTrue();
                assertThat(shown(robot, "#storage-warning"))
                        .as(at + ": the section's warning")
                        .isTrue();
                assertThat(shown(robot, "#storage-size")).isTrue();
            }
            if (size[0] == 1440) {
                assertThat(shown(robot, "#status-size"))
                        .as("room for the size in the status bar")
                        .isTrue();
                // the page scrolled to its end: the whole Ledger section
                // (docs/images/console-ledger-storage-1440-light.png)
                robot.interact(() -> vm.themeProperty().set(ConsoleTheme.LIGHT));
                WaitForAsyncUtils.waitForFxEvents();
                WritableImage[] end = new WritableImage[1];
                robot.interact(() -> {
                    Node n = robot.lookup("#supervisor-storage").query();
                    while (!(n instanceof ScrollPane)) {
                        n = n.getParent();
                    }
                    ScrollPane page = (ScrollPane) n;
                    page.setVvalue(page.getVmax());
                    scene.getRoot().applyCss();
                    scene.getRoot().layout();
                    end[0] = scene.snapshot(null);
                    LayoutChecks.truncated(scene.getRoot(), cut, at + " scrolled to the end: ");
                });
                ScreenshotTest.write(end[0], dir.resolve("supervisor-ledger-" + at + "-light.png"));
            }
        }
        robot.interact(() -> {
            stage.setWidth(1320);
            stage.setHeight(820);
        });
        assertThat(cut).as("texts cut off or controls out of sight").isEmpty();
    }

    private static boolean shown(FxRobot robot, String id) {
        Node n = robot.lookup(id).query();
        for (Node p = n; p != null; p = p.getParent()) {
            if (!p.isVisible()) {
                return false;
            }
        }
        return true;
    }
}
