package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.LayoutChecks;
import dev.sovereign.console.testing.Scenario;
import dev.sovereign.engine.Engine;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.TableCell;
import javafx.scene.image.PixelReader;
import javafx.scene.image.WritableImage;
import javafx.stage.Stage;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Renders every page of the main window with a real scenario, light and dark, to
 * {@code target/screenshots/} (the docs' images come from here), and checks each picture is a
 * real rendering, not a blank frame.
 */
@ExtendWith(ApplicationExtension.class)
class ScreenshotTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;
    private Scene scene;

    private Scenario scenario;

    @Start
    void start(Stage stage) {
        scenario = Scenario.build(fx);
        // one more run whose worker went silent, for "Run a tick now" to recover
        Engine silent = fx.engine("worker 7105");
        silent.leases().acquire("archivist", Duration.ofSeconds(5));
        fx.gatedRun(silent, "archivist", Duration.ofSeconds(5), "silent");
        for (int i = 0; i < 6; i++) { // workers B and C keep beating; the silent one does not
            fx.clock.advance(Duration.ofSeconds(1));
            scenario.workerB.heartbeatNow();
            scenario.workerC.heartbeatNow();
        }
        vm = fx.shell();
        vm.themeProperty().set(ConsoleTheme.LIGHT);
        MainWindow window = new MainWindow(vm, () -> {});
        scene = new Scene(window.create(), 1320, 820);
        window.install(scene);
        stage.setScene(scene);
        stage.show();
        vm.attach(fx.file());
        vm.tick(fx.clock.millis() + 400);
    }

    @Test
    void everyPageRendersInBothThemes(FxRobot robot) throws Exception {
        Path dir = Path.of("target", "screenshots");
        Files.createDirectories(dir);
        for (ConsoleTheme theme : ConsoleTheme.values()) {
            robot.interact(() -> vm.themeProperty().set(theme));
            for (Page page : Page.navigation()) {
                robot.interact(() -> {
                    vm.pageProperty().set(page);
                    if (page == Page.REJECTIONS) {
                        vm.rejections()
                                .selectedProperty()
                                .set(vm.rejections().rows().get(0));
                    }
                    if (page == Page.RUNS) {
                        vm.runs()
                                .selectedProperty()
                                .set(vm.runs().assignments().stream()
                                        .filter(a -> a.isWorkerLost())
                                        .findFirst()
                                        .orElseThrow());
                    }
                    if (page == Page.TIMELINE) {
                        vm.timeline()
                                .selectedProperty()
                                .set(vm.timeline().lanes().stream()
                                        .flatMap(l -> l.markers().stream())
                                        .filter(m -> m.event().isRejection())
                                        .findFirst()
                                        .orElseThrow());
                    }
                });
                WaitForAsyncUtils.waitForFxEvents();
                WritableImage[] shot = new WritableImage[1];
                robot.interact(() -> shot[0] = scene.snapshot(null));
                Path png =
                        dir.resolve("console-" + page.id() + "-" + theme.name().toLowerCase() + ".png");
                write(shot[0], png);
                assertThat(distinctColours(shot[0])).as(png.toString()).isGreaterThan(20);
            }
        }
    }

    @Test
    void theOperatorActionsRenderTheirOutcome(FxRobot robot) throws Exception {
        Path dir = Path.of("target", "screenshots");
        Files.createDirectories(dir);
        for (ConsoleTheme theme : ConsoleTheme.values()) {
            robot.interact(() -> {
                vm.themeProperty().set(theme);
                vm.pageProperty().set(Page.SUPERVISOR);
                if (theme == ConsoleTheme.LIGHT) {
                    vm.supervisor().tickNow();
                }
            });
            shoot(robot, dir.resolve("console-supervisor-tick-" + theme.name().toLowerCase() + ".png"));
        }
        assertThat(vm.supervisor().lastRecoveryProperty().get()).startsWith("Last recovery at ");
        robot.interact(() -> {
            vm.themeProperty().set(ConsoleTheme.LIGHT);
            vm.pageProperty().set(Page.RUNS);
            vm.runs()
                    .selectedProperty()
                    .set(vm.runs().assignments().stream()
                            .filter(a -> a.id().equals(scenario.lostRun.id()))
                            .findFirst()
                            .orElseThrow());
            vm.runs().retrySelected();
            vm.pollNow();
        });
        shoot(robot, dir.resolve("console-runs-retried-light.png"));
        assertThat(vm.runs().status().message()).startsWith("Retried " + scenario.lostRun.id());
        // a settled run's two chips ("failed", "worker lost · retried") show whole, as every text must (item 12)
        List<String> cut = new ArrayList<>();
        robot.interact(() -> {
            scene.getRoot().applyCss();
            scene.getRoot().layout();
            LayoutChecks.truncated(scene.getRoot(), cut, "Runs after a retry: ");
        });
        assertThat(cut).as("texts cut off (shown with an ellipsis)").isEmpty();
        // ... and not clipped by their cell either
        double[] chip = new double[2];
        robot.interact(() -> {
            Node lost = robot.lookup("#worker-lost-" + scenario.lostRun.id()).query();
            Node cell = lost;
            while (!(cell instanceof TableCell<?, ?>)) {
                cell = cell.getParent();
            }
            chip[0] = lost.localToScene(lost.getBoundsInLocal()).getMaxX();
            chip[1] = cell.localToScene(cell.getBoundsInLocal()).getMaxX();
        });
        assertThat(chip[0])
                .as("the right edge of \"worker lost \u00b7 retried\" inside its cell")
                .isLessThanOrEqualTo(chip[1]);
    }

    @Test
    void theActorAndProcessPagesRenderInBothThemes(FxRobot robot) throws Exception {
        Path dir = Path.of("target", "screenshots");
        Files.createDirectories(dir);
        for (ConsoleTheme theme : ConsoleTheme.values()) {
            robot.interact(() -> {
                vm.themeProperty().set(theme);
                vm.navigation().openActor("operator");
            });
            shoot(robot, dir.resolve("console-actor-" + theme.name().toLowerCase() + ".png"));
            assertThat(vm.actorPage().holds()).isNotEmpty();
            robot.interact(() -> vm.navigation().openProcess(scenario.workerA.processIdentity()));
            shoot(robot, dir.resolve("console-process-" + theme.name().toLowerCase() + ".png"));
            assertThat(vm.processPage().journal()).isNotEmpty();
        }
        robot.interact(() -> {
            vm.themeProperty().set(ConsoleTheme.LIGHT);
            vm.navigation().openProcess(scenario.workerC.processIdentity());
        });
        robot.clickOn("#process-stop");
        shoot(robot, dir.resolve("console-process-stop-light.png"));
    }

    private void shoot(FxRobot robot, Path png) throws Exception {
        WaitForAsyncUtils.waitForFxEvents();
        WritableImage[] shot = new WritableImage[1];
        robot.interact(() -> shot[0] = scene.snapshot(null));
        write(shot[0], png);
        assertThat(distinctColours(shot[0])).as(png.toString()).isGreaterThan(20);
    }

    @Test
    void theWelcomePageRendersWithRecentFiles(FxRobot robot) throws Exception {
        Path dir = Path.of("target", "screenshots");
        Files.createDirectories(dir);
        robot.interact(vm::detach);
        WaitForAsyncUtils.waitForFxEvents();
        WritableImage[] shot = new WritableImage[1];
        robot.interact(() -> shot[0] = scene.snapshot(null));
        write(shot[0], dir.resolve("console-welcome-light.png"));
        assertThat(robot.lookup("#recent-0").tryQuery()).isPresent();
    }

    static void write(WritableImage image, Path png) throws IOException {
        int w = (int) image.getWidth();
        int h = (int) image.getHeight();
        BufferedImage out = new BufferedImage(w, h, BufferedImage.TYPE_INT_ARGB);
        PixelReader r = image.getPixelReader();
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                out.setRGB(x, y, r.getArgb(x, y));
            }
        }
        ImageIO.write(out, "png", png.toFile());
    }

    private static int distinctColours(WritableImage image) {
        Set<Integer> colours = new HashSet<>();
        PixelReader r = image.getPixelReader();
        for (int y = 0; y < image.getHeight(); y += 7) {
            for (int x = 0; x < image.getWidth(); x += 7) {
                colours.add(r.getArgb(x, y));
            }
        }
        return colours.size();
    }
}
