package dev.sovereign.console.shell;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.Scenario;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.run.Assignment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import javafx.scene.Scene;
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
 * The pages issue 31 changed, at 1440×900 and 1024×700, to {@code target/screenshots/issue31/} for a person to
 * look at. Off by default (it only renders): {@code -Dsovereign.screenshots=true}, under Xvfb with
 * {@code -Dtestfx.headless=false} for the real window.
 */
@ExtendWith(ApplicationExtension.class)
class Issue31ScreenshotsTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;
    private Scene scene;
    private Stage stage;
    private Scenario scenario;
    private Assignment silentRun;

    @Start
    void start(Stage stage) {
        this.stage = stage;
        if (!Boolean.getBoolean("sovereign.screenshots")) {
            return;
        }
        scenario = Scenario.build(fx);
        Engine silent = fx.engine("operator worker 1 (restart 1)");
        silent.leases().acquire("archivist", Duration.ofSeconds(5));
        silentRun = fx.gatedRun(silent, "archivist", Duration.ofSeconds(5), "g31");
        for (int i = 0; i < 9; i++) {
            fx.clock.advance(Duration.ofSeconds(1));
            scenario.workerB.heartbeatNow();
            scenario.workerC.heartbeatNow();
        }
        vm = fx.shell();
        vm.themeProperty().set(ConsoleTheme.LIGHT);
        MainWindow window = new MainWindow(vm, () -> {});
        scene = new Scene(window.create(), 1440, 900);
        window.install(scene);
        stage.setScene(scene);
        stage.show();
        vm.attach(fx.file());
    }

    @Test
    void thePagesIssue31Changed(FxRobot robot) throws Exception {
        assumeTrue(Boolean.getBoolean("sovereign.screenshots"), "screenshots only when asked");
        Path dir = Path.of("target", "screenshots", "issue31");
        Files.createDirectories(dir);
        for (int[] size : new int[][] {{1440, 900}, {1024, 700}}) {
            String at = size[0] + "x" + size[1];
            robot.interact(() -> {
                stage.setWidth(size[0]);
                stage.setHeight(size[1]);
                vm.tick(fx.clock.millis());
                vm.navigation().openAssignment(silentRun.id());
            });
            shoot(robot, dir.resolve("runs-silent-holder-" + at + ".png"));
            robot.interact(() -> vm.search().queryProperty().set("zz-nothing"));
            shoot(robot, dir.resolve("runs-search-empty-" + at + ".png"));
            robot.interact(() -> {
                vm.search().queryProperty().set("");
                vm.pageProperty().set(Page.PROCESSES);
            });
            shoot(robot, dir.resolve("processes-" + at + ".png"));
            robot.interact(() -> vm.navigation().openProcess(scenario.workerD.processIdentity()));
            shoot(robot, dir.resolve("process-" + at + ".png"));
            robot.interact(() -> vm.pageProperty().set(Page.REJECTIONS));
            shoot(robot, dir.resolve("rejections-" + at + ".png"));
            robot.interact(() -> {
                vm.pageProperty().set(Page.SUPERVISOR);
                vm.supervisor().tickNow();
            });
            shoot(robot, dir.resolve("supervisor-" + at + ".png"));
        }
    }

    private void shoot(FxRobot robot, Path png) throws Exception {
        WaitForAsyncUtils.waitForFxEvents();
        Thread.onSpinWait();
        WritableImage[] shot = new WritableImage[1];
        robot.interact(() -> shot[0] = scene.snapshot(null));
        ScreenshotTest.write(shot[0], png);
    }
}
