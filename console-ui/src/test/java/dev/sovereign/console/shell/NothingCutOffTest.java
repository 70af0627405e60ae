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
 * Issue 17, item 12 and issue 31, items 1 and 3: at the default window size (1320×820), at 1024×700 and at
 * 1440×900, in light and dark, no text on any page (the Lab and Trends pages too) is cut off — no label, button,
 * header or table cell shows an ellipsis instead of its words — no control lies beyond the window's right or
 * bottom edge or outside the pane that clips it (a split pane's half), and the Runs table shows at least five
 * whole rows at 1024×700, eight at 1320×820 and ten at 1440×900. An actor's journal rows show their process's link
 * whole, a restarted worker's long label too, also in rows scrolled out of sight. Each page is also written to
 * {@code target/screenshots/<size>/} to be looked at.
 */
@ExtendWith(ApplicationExtension.class)
class NothingCutOffTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;
    private Stage stage;
    private Scene scene;
    private String workerA;

    @Start
    void start(Stage stage) {
        this.stage = stage;
        Scenario scenario = Scenario.build(fx);
        workerA = scenario.workerA.processIdentity();
        for (int i = 0; i < 12; i++) { // 17 assignments, as in issue 31: more than any of the sizes shows
            scenario.workerB.runs().assign("planner", "command:./report.sh --day " + i);
        }
        // a process labelled as the demo labels a restarted worker, writing about the actor whose page is checked:
        // its label is a link in the page's Process column and must show whole (issue 31)
        fx.engine("operator worker 1 (restart 1)").runs().assign("operator", "command:./restarted.sh");
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
    void noTextIsCutOffOnAnyPageAtEitherSizeInEitherTheme(FxRobot robot) throws Exception {
        WaitForAsyncUtils.waitForFxEvents();
        // the scenario's ledger has runs that need the operator from the start: the status bar's alerts show, and
        // must make room rather than push the other items into an ellipsis (issue 31)
        assertThat(robot.lookup("#status-alerts").query().isVisible())
                .as("the status bar's alerts are showing")
                .isTrue();
        List<String> cut = new ArrayList<>();
        List<String> rowsShort = new ArrayList<>();
        for (int[] size : new int[][] {{1320, 820}, {1024, 700}, {1440, 900}}) {
            Path dir = Path.of("target", "screenshots", size[0] + "x" + size[1]);
            Files.createDirectories(dir);
            robot.interact(() -> {
                stage.setWidth(size[0]);
                stage.setHeight(size[1]);
            });
            for (ConsoleTheme theme : ConsoleTheme.values()) {
                robot.interact(() -> vm.themeProperty().set(theme));
                for (Page page : Page.values()) { // the actor's and the process's pages too
                    robot.interact(() -> {
                        if (page == Page.ACTOR) {
                            vm.navigation().openActor("operator");
                        } else if (page == Page.PROCESS) {
                            vm.navigation().openProcess(workerA);
                        } else {
                            vm.pageProperty().set(page);
                        }
                        if (page == Page.REJECTIONS) {
                            vm.rejections()
                                    .selectedProperty()
                                    .set(vm.rejections().rows().get(0));
                        }
                    });
                    WaitForAsyncUtils.waitForFxEvents();
                    WritableImage[] shot = new WritableImage[1];
                    robot.interact(() -> {
                        scene.getRoot().applyCss();
                        scene.getRoot().layout();
                        shot[0] = scene.snapshot(null);
                        String where = size[0] + "x" + size[1] + " " + theme + " " + page + ": ";
                        LayoutChecks.truncated(scene.getRoot(), cut, where);
                        LayoutChecks.outside(scene.getRoot(), scene.getWidth(), scene.getHeight(), cut, where);
                        if (page == Page.REJECTIONS) {
                            LayoutChecks.sentenceInSight((TableView<?>) scene.lookup("#rejections-table"), cut, where);
                        }
                        if (page == Page.ACTOR) { // the links of its journal rows, scrolled to or not (issue 31)
                            TableView<?> journal = (TableView<?>) scene.lookup("#actor-journal");
                            LayoutChecks.columnHoldsItsText(journal, "Process", cut, where);
                            LayoutChecks.columnHoldsItsText(journal, "About", cut, where);
                        }
                        if (page == Page.LEASES) { // the page's key column, at 1024x700 too (issue 31)
                            LayoutChecks.columnInSight(
                                    (TableView<?>) scene.lookup("#leases-table"), "Expires in", cut, where);
                        }
                    });
                    ScreenshotTest.write(
                            shot[0], dir.resolve(page.id() + "-" + theme.name().toLowerCase() + ".png"));
                }
                robot.interact(() -> vm.pageProperty().set(Page.RUNS));
                WaitForAsyncUtils.waitForFxEvents();
                int[] rows = new int[1];
                robot.interact(() -> {
                    scene.getRoot().applyCss();
                    scene.getRoot().layout();
                    rows[0] = LayoutChecks.wholeRows((TableView<?>) scene.lookup("#assignments-table"));
                });
                int least = size[0] == 1024 ? 5 : size[0] == 1320 ? 8 : 10;
                if (rows[0] < least) {
                    rowsShort.add(size[0] + "x" + size[1] + " " + theme + ": " + rows[0] + " whole rows of 17, want "
                            + least);
                }
            }
        }
        // the primary stage outlives this class: give the next test class the default size back
        robot.interact(() -> {
            stage.setWidth(1320);
            stage.setHeight(820);
        });
        cut.addAll(rowsShort);
        assertThat(cut)
                .as("texts cut off (shown with an ellipsis), controls out of sight, or a Runs table showing fewer"
                        + " assignments than its window holds")
                .isEmpty();
    }
}
