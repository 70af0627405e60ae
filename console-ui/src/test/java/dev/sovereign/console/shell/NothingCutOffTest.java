package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.fx.TickingText;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javafx.geometry.Orientation;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.Scene;
import javafx.scene.control.Labeled;
import javafx.scene.control.ScrollBar;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.image.WritableImage;
import javafx.scene.text.Text;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Issue 17, item 12: at the default window size (1320×820) and at 1024×700, in light and dark, no text on
 * any page is cut off — no label, button, header or table cell shows an ellipsis instead of its words —
 * and the Runs page shows more than four assignments. Each page is also written to
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
        for (int i = 0; i < 4; i++) { // more runs than the four the page used to show
            scenario.workerB.runs().assign("planner", "command:./report.sh --day " + i);
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
    void noTextIsCutOffOnAnyPageAtEitherSizeInEitherTheme(FxRobot robot) throws Exception {
        WaitForAsyncUtils.waitForFxEvents();
        // the scenario's ledger has runs that need the operator from the start: the status bar's alerts show, and
        // must make room rather than push the other items into an ellipsis (issue 31)
        assertThat(robot.lookup("#status-alerts").query().isVisible())
                .as("the status bar's alerts are showing")
                .isTrue();
        List<String> cut = new ArrayList<>();
        for (int[] size : new int[][] {{1320, 820}, {1024, 700}}) {
            Path dir = Path.of("target", "screenshots", size[0] + "x" + size[1]);
            Files.createDirectories(dir);
            robot.interact(() -> {
                stage.setWidth(size[0]);
                stage.setHeight(size[1]);
            });
            for (ConsoleTheme theme : ConsoleTheme.values()) {
                robot.interact(() -> vm.themeProperty().set(theme));
                for (Page page : Page.values()) { // the actor's and the process's pages too
                    if (page == Page.LAB) {
                        continue; // the Lab page has its own test and sandbox; not attached here
                    }
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
                        truncated(scene.getRoot(), cut, size[0] + "x" + size[1] + " " + theme + " " + page + ": ");
                    });
                    ScreenshotTest.write(
                            shot[0], dir.resolve(page.id() + "-" + theme.name().toLowerCase() + ".png"));
                }
                if (theme == ConsoleTheme.LIGHT) {
                    robot.interact(() -> vm.pageProperty().set(Page.RUNS));
                    WaitForAsyncUtils.waitForFxEvents();
                    int[] rows = new int[1];
                    robot.interact(() ->
                            rows[0] = (int) robot.lookup("#assignments-table .table-row-cell").queryAll().stream()
                                    .filter(n -> n instanceof TableRow<?> r
                                            && !r.isEmpty()
                                            && r.localToScene(r.getBoundsInLocal())
                                                            .getMaxY()
                                                    <= robot.lookup("#assignments-table")
                                                            .query()
                                                            .localToScene(robot.lookup("#assignments-table")
                                                                    .query()
                                                                    .getBoundsInLocal())
                                                            .getMaxY())
                                    .count());
                    if (size[0] == 1320) {
                        assertThat(rows[0])
                                .as("whole assignment rows on the Runs page at 1320x820")
                                .isGreaterThan(4);
                    }
                }
            }
        }
        // the primary stage outlives this class: give the next test class the default size back
        robot.interact(() -> {
            stage.setWidth(1320);
            stage.setHeight(820);
        });
        assertThat(cut).as("texts cut off (shown with an ellipsis)").isEmpty();
    }

    private static <T> T ancestor(Node n, Class<T> type) {
        for (Node p = n.getParent(); p != null; p = p.getParent()) {
            if (type.isInstance(p)) {
                return type.cast(p);
            }
        }
        return null;
    }

    /** Every visible labeled node whose drawn text is not its whole text. */
    static void truncated(Node node, List<String> out, String where) {
        if (!node.isVisible()) {
            return;
        }
        // A timeline bar is as long as the hold lasted: its label is a hint inside it, given whole by its
        // tooltip and its sentence on click. Everything else must show its words.
        if (node instanceof Labeled l
                && l.getText() != null
                && !l.getText().isEmpty()
                && !l.getStyleClass().contains("segment")) {
            Text drawn = (Text) l.lookup(".text");
            if (drawn != null
                    && drawn.getParent() == l
                    && !l.getText().equals(drawn.getText())
                    && !l.getText().replace("\n", "").equals(drawn.getText().replace("\n", ""))) {
                out.add(where + (l.getId() == null ? l.getClass().getSimpleName() : "#" + l.getId()) + " \""
                        + l.getText() + "\" shown as \"" + drawn.getText() + "\"");
            }
        }
        if (node instanceof TickingText painted
                && painted.getText() != null
                && painted.getFont() != null
                && painted.getWidth() > 0) {
            Text measure = new Text(painted.getText());
            measure.setFont(painted.getFont());
            TableCell<?, ?> cell = ancestor(painted, TableCell.class);
            double room = cell == null
                    ? painted.getWidth()
                    : cell.getWidth() - cell.snappedLeftInset() - cell.snappedRightInset();
            if (measure.getLayoutBounds().getWidth() > room + 0.5) {
                out.add(where + "#" + painted.getId() + " painted \"" + painted.getText() + "\" needs "
                        + Math.round(measure.getLayoutBounds().getWidth()) + " px, has " + Math.round(room));
            }
        }
        if (node instanceof TableView<?> t && t.getWidth() > 0) {
            double columns = t.getVisibleLeafColumns().stream()
                    .mapToDouble(c -> c.getWidth())
                    .sum();
            boolean sideways = t.lookupAll(".scroll-bar").stream()
                    .anyMatch(b -> b instanceof ScrollBar sb
                            && sb.getOrientation() == Orientation.HORIZONTAL
                            && sb.isVisible());
            if (columns > t.getWidth() + 1 && !sideways) {
                out.add(where + "#" + t.getId() + ": columns end at " + Math.round(columns) + " px in a "
                        + Math.round(t.getWidth()) + " px table with no scroll bar to reach them");
            }
        }
        if (node instanceof Parent p) {
            for (Node child : p.getChildrenUnmodifiable()) {
                truncated(child, out, where);
            }
        }
    }
}
