package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.actions.DesktopOpener;
import dev.sovereign.console.feature.trends.TrendsViewModel;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.LayoutChecks;
import dev.sovereign.console.testing.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.TableView;
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
 * Issue 31, items 19 and 20: in the whole window at 1024×700 and 1440×900, light and dark, the Trends page with a
 * range chosen and a run's page showing its receipt file and output folder cut nothing off and put nothing out of
 * sight: the range and zoom buttons, the four charts, the files' buttons and the line saying why they are off; the
 * Runs table still shows its rows (five at 1024×700, ten at 1440×900). Each state is written to
 * {@code target/screenshots/issue31-trends-runs/} to be looked at.
 */
@ExtendWith(ApplicationExtension.class)
class TrendsAndRunFilesLayoutTest {
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
        for (int i = 0; i < 12; i++) {
            scenario.workerB.runs().assign("planner", "command:./report.sh --day " + i);
        }
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

    @Test
    void trendsWithARangeAndARunsFilesFitAtBothSizesInBothThemes(FxRobot robot) throws Exception {
        Path dir = Path.of("target", "screenshots", "issue31-trends-runs");
        Files.createDirectories(dir);
        List<String> wrong = new ArrayList<>();
        for (int[] size : new int[][] {{1024, 700}, {1440, 900}}) {
            robot.interact(() -> {
                stage.setWidth(size[0]);
                stage.setHeight(size[1]);
            });
            for (ConsoleTheme theme : ConsoleTheme.values()) {
                String where = size[0] + "x" + size[1] + " " + theme + " ";
                robot.interact(() -> {
                    vm.themeProperty().set(theme);
                    vm.pageProperty().set(Page.TRENDS);
                    vm.trends().choose(TrendsViewModel.Range.LAST_15_MIN);
                });
                check(
                        robot,
                        where + "TRENDS: ",
                        wrong,
                        dir.resolve("trends-" + size[0] + "x" + size[1] + "-"
                                + theme.name().toLowerCase() + ".png"));
                for (String id : List.of(
                        "#trends-range-last-15-min",
                        "#trends-range-all",
                        "#trends-zoom-in",
                        "#trends-zoom-out",
                        "#trends-grants",
                        "#trends-journal")) {
                    inWindow(robot, id, where + "TRENDS: ", wrong);
                }
                // a point's rows: the Journal filtered to two kinds and one interval, its filters whole
                robot.interact(() -> {
                    TrendsViewModel.Bucket b = vm.trends().bucketsProperty().get().stream()
                            .filter(x -> x.takeovers() > 0)
                            .findFirst()
                            .orElseThrow();
                    vm.navigation().openJournal(vm.trends().rowsBehind(b, TrendsViewModel.Series.GRANTS, null));
                });
                check(
                        robot,
                        where + "JOURNAL (a point's rows): ",
                        wrong,
                        dir.resolve("journal-point-" + size[0] + "x" + size[1] + "-"
                                + theme.name().toLowerCase() + ".png"));
                robot.interact(() -> {
                    // no desktop here: the buttons are off and the line saying why shows, as on a headless machine
                    vm.runs()
                            .files()
                            .openerProperty()
                            .set(DesktopOpener.none("This console runs without a desktop (headless): open the path"
                                    + " from a terminal."));
                    vm.navigation().openAssignment(scenario.completedRun.id());
                });
                check(
                        robot,
                        where + "RUNS: ",
                        wrong,
                        dir.resolve("run-files-" + size[0] + "x" + size[1] + "-"
                                + theme.name().toLowerCase() + ".png"));
                for (String id : List.of("#run-open-receipt", "#run-open-output")) {
                    inWindow(robot, id, where + "RUNS: ", wrong);
                }
                // why they are off: the first line of the run's files, inside the detail (which scrolls)
                robot.interact(() -> {
                    Node why = scene.lookup("#run-files-why");
                    if (why == null
                            || !why.isVisible()
                            || !(why instanceof javafx.scene.control.Label l)
                            || l.getText().isEmpty()) {
                        wrong.add(where + "RUNS: no line says why the files' buttons are off");
                    }
                });
                int[] rows = new int[1];
                robot.interact(
                        () -> rows[0] = LayoutChecks.wholeRows((TableView<?>) scene.lookup("#assignments-table")));
                int least = size[0] == 1024 ? 5 : 10;
                if (rows[0] < least) {
                    wrong.add(where + "RUNS: " + rows[0] + " whole rows, want " + least);
                }
                // the run's files, scrolled into the detail's sight, for the pictures, with the split's divider dragged
                // up as an operator reading a receipt would (and put back after)
                double[] kept = new double[1];
                javafx.scene.control.SplitPane[] split = new javafx.scene.control.SplitPane[1];
                robot.interact(() -> {
                    for (Node n : scene.getRoot().lookupAll(".split-pane")) {
                        if (n instanceof javafx.scene.control.SplitPane sp
                                && sp.getOrientation() == javafx.geometry.Orientation.VERTICAL
                                && sp.lookup("#assignments-table") != null) {
                            kept[0] = sp.getDividerPositions()[0];
                            split[0] = sp;
                            sp.setDividerPositions(0.3);
                        }
                    }
                    scene.getRoot().layout();
                });
                robot.interact(() -> {
                    javafx.scene.control.ScrollPane scroll =
                            (javafx.scene.control.ScrollPane) scene.lookup("#run-detail-scroll");
                    Node box = scene.lookup("#run-files");
                    Node content = scroll.getContent();
                    double y = content.sceneToLocal(box.localToScene(0, 0)).getY();
                    double room = content.getLayoutBounds().getHeight()
                            - scroll.getViewportBounds().getHeight();
                    scroll.setVvalue(room <= 0 ? 0 : Math.min(1, Math.max(0, y / room)));
                });
                check(
                        robot,
                        where + "RUNS (files in sight): ",
                        wrong,
                        dir.resolve("run-files-" + size[0] + "x" + size[1] + "-"
                                + theme.name().toLowerCase() + "-on-disk.png"));
                robot.interact(() -> split[0].setDividerPositions(kept[0]));
            }
        }
        robot.interact(() -> {
            stage.setWidth(1320);
            stage.setHeight(820);
        });
        assertThat(wrong).as("cut off, out of sight, or too few rows").isEmpty();
    }

    private void check(FxRobot robot, String where, List<String> wrong, Path png) throws Exception {
        WaitForAsyncUtils.waitForFxEvents();
        // a table whose rows were just replaced shows its sideways scroll bar at the next layout pass
        robot.interact(() -> {
            scene.getRoot().applyCss();
            scene.getRoot().layout();
        });
        WaitForAsyncUtils.waitForFxEvents();
        WritableImage[] shot = new WritableImage[1];
        robot.interact(() -> {
            scene.getRoot().applyCss();
            scene.getRoot().layout();
            LayoutChecks.truncated(scene.getRoot(), wrong, where);
            LayoutChecks.outside(scene.getRoot(), scene.getWidth(), scene.getHeight(), wrong, where);
            shot[0] = scene.snapshot(null);
        });
        ScreenshotTest.write(shot[0], png);
    }

    /** {@code id} shows, whole, inside the window (and inside the scroll pane around it, unscrolled). */
    private void inWindow(FxRobot robot, String id, String where, List<String> wrong) {
        robot.interact(() -> {
            Node n = scene.lookup(id);
            if (n == null || !n.isVisible()) {
                wrong.add(where + id + " is not shown");
                return;
            }
            Bounds b = n.localToScene(n.getLayoutBounds());
            if (b.getMinX() < 0
                    || b.getMinY() < 0
                    || b.getMaxX() > scene.getWidth() + 0.5
                    || b.getMaxY() > scene.getHeight() + 0.5) {
                wrong.add(where + id + " lies outside the window: " + b);
                return;
            }
            for (Node p = n.getParent(); p != null; p = p.getParent()) {
                if (p instanceof javafx.scene.control.ScrollPane sp) {
                    Node viewport = sp.lookup(".viewport");
                    Bounds v = viewport == null ? null : viewport.localToScene(viewport.getLayoutBounds());
                    if (v != null && (b.getMaxY() > v.getMaxY() + 0.5 || b.getMaxX() > v.getMaxX() + 0.5)) {
                        wrong.add(where + id + " is scrolled out of sight: " + b + " in " + v);
                    }
                }
            }
        });
    }
}
