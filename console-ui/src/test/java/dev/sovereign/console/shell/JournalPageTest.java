package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.LayoutChecks;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.lease.Lease;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.TableView;
import javafx.scene.image.WritableImage;
import javafx.scene.input.KeyCode;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Issue 31, item 17: the Journal page in the whole window — reached by its navigation button and Ctrl+0 — at
 * 1024×700 and 1440×900, light and dark: nothing cut off or out of sight, the table showing the rows its height
 * holds with the newest whole at the bottom, and scrolling up stops the tail from moving the rows being read.
 * With {@code -Dsovereign.screenshots=true} it also writes the Journal page and the Rejections page with a late
 * write's incident selected to {@code target/screenshots/journal/}.
 */
@ExtendWith(ApplicationExtension.class)
class JournalPageTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;
    private Stage stage;
    private Scene scene;
    private Engine a;

    @Start
    void start(Stage stage) {
        this.stage = stage;
        a = fx.engine("worker A");
        Engine b = fx.engine("worker B");
        for (String actor : List.of("operator", "reviewer", "planner")) {
            a.actors().add(actor);
        }
        churn(b, "reviewer", 40);
        churn(a, "planner", 20);
        // then one late write, the newest rows: a paused holder's run, taken over, woken (three refusals, one
        // incident), rows of several lines at the bottom the table follows
        a.leases().acquire("operator", Duration.ofSeconds(10));
        fx.gatedRun(a, "operator", Duration.ofSeconds(10), "late");
        fx.clock.advance(Duration.ofSeconds(12));
        b.leases().acquire("operator", Duration.ofSeconds(30));
        a.heartbeatNow();
        fx.openGate("late");
        vm = fx.shell();
        vm.themeProperty().set(ConsoleTheme.LIGHT);
        MainWindow window = new MainWindow(vm, () -> {});
        scene = new Scene(window.create(), 1440, 900);
        window.install(scene);
        stage.setScene(scene);
        stage.show();
        vm.attach(fx.file());
        vm.tick(fx.clock.millis());
    }

    private void churn(Engine e, String actor, int n) {
        for (int i = 0; i < n; i++) {
            Lease l = e.leases().acquire(actor, Duration.ofSeconds(30));
            fx.clock.advance(Duration.ofMillis(700));
            e.leases().release(actor, l.token());
        }
    }

    @Test
    void theJournalPageFitsBothSizesFollowsTheTailAndHoldsStillWhenScrolledUp(FxRobot robot) throws Exception {
        WaitForAsyncUtils.waitForFxEvents();
        robot.clickOn("#leases-table"); // the keyboard in the window, as an operator's would be
        robot.push(KeyCode.CONTROL, KeyCode.DIGIT0);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(vm.pageProperty().get()).as("Ctrl+0 opens the Journal").isEqualTo(Page.JOURNAL);
        assertThat(robot.lookup("#nav-journal").queryAs(Node.class)).isNotNull();
        assertThat(robot.lookup(".nav-shortcut")
                        .match(n -> n instanceof Label l && "Ctrl+0".equals(l.getText()))
                        .tryQuery())
                .isPresent();
        long newest = fx.reader.snapshot().lastSeq();
        assertThat(vm.journal().rows()).hasSizeGreaterThan(100);
        assertThat(vm.journal().rows().get(vm.journal().rows().size() - 1).seq())
                .isEqualTo(newest);

        boolean screenshots = Boolean.getBoolean("sovereign.screenshots");
        Path dir = Path.of("target", "screenshots", "journal");
        Files.createDirectories(dir);
        List<String> problems = new ArrayList<>();
        for (int[] size : new int[][] {{1024, 700}, {1440, 900}}) {
            String at = size[0] + "x" + size[1];
            robot.interact(() -> {
                stage.setWidth(size[0]);
                stage.setHeight(size[1]);
            });
            for (ConsoleTheme theme : ConsoleTheme.values()) {
                robot.interact(() -> vm.themeProperty().set(theme));
                WaitForAsyncUtils.waitForFxEvents();
                // rows of the late write wrap to three or four lines at 1024 px: a few whole rows, and no empty space
                int least = size[0] == 1024 ? 4 : 8;
                WritableImage[] shot = new WritableImage[1];
                robot.interact(() -> {
                    scene.getRoot().applyCss();
                    scene.getRoot().layout();
                    String where = at + " " + theme + ": ";
                    LayoutChecks.truncated(scene.getRoot(), problems, where);
                    LayoutChecks.outside(scene.getRoot(), scene.getWidth(), scene.getHeight(), problems, where);
                    TableView<?> table = (TableView<?>) scene.lookup("#journal-table");
                    double right = 0;
                    for (var c : table.getVisibleLeafColumns()) {
                        right += c.getWidth();
                    }
                    if (right > table.getWidth()) {
                        problems.add(where + "the columns end at " + right + " in a " + table.getWidth() + " px table");
                    }
                    int rows = LayoutChecks.wholeRows(table);
                    if (rows < least) {
                        problems.add(where + rows + " whole journal rows, want at least " + least);
                    }
                    double empty = emptyInView(table);
                    if (empty > 1) {
                        problems.add(where + Math.round(empty) + " px of the table empty while it has rows to show");
                    }
                    if (!wholeInView(table, "#journal-table-row-" + newest)) {
                        problems.add(where + "the newest row #" + newest + " is not whole at the bottom");
                    }
                    shot[0] = scene.snapshot(null);
                });
                if (screenshots) {
                    ScreenshotTest.write(
                            shot[0],
                            dir.resolve("journal-" + at + "-" + theme.name().toLowerCase() + ".png"));
                }
            }
        }
        assertThat(problems)
                .as("cut off, out of sight, too few rows, or the newest row not in view")
                .isEmpty();

        // scrolled up (Home; a wheel's direction differs under the headless robot): new events are counted above
        // the table, the rows being read stay where they are
        robot.interact(() -> scene.lookup("#journal-table").requestFocus());
        robot.push(KeyCode.HOME);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(vm.journal().followingProperty().get())
                .as("scrolling up stops following")
                .isFalse();
        List<JournalEntry> reading = List.copyOf(vm.journal().rows());
        long first = reading.get(0).seq();
        churn(a, "planner", 3);
        robot.interact(vm::pollNow);
        WaitForAsyncUtils.waitForFxEvents();
        long now = fx.reader.snapshot().lastSeq();
        // below the bound the new rows are added at the bottom, out of sight; the top the operator reads stays put
        assertThat(vm.journal().rows().subList(0, reading.size())).isEqualTo(reading);
        assertThat(vm.journal().rows()).hasSize(reading.size() + 6);
        boolean[] seen = new boolean[2];
        robot.interact(() -> {
            scene.getRoot().applyCss();
            scene.getRoot().layout();
            TableView<?> table = (TableView<?>) scene.lookup("#journal-table");
            seen[0] = wholeInView(table, "#journal-table-row-" + first);
            seen[1] = wholeInView(table, "#journal-table-row-" + now);
        });
        assertThat(seen[0]).as("the first row, being read, still in view").isTrue();
        assertThat(seen[1]).as("the newest row not scrolled to").isFalse();

        robot.clickOn("#journal-follow");
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(vm.journal().followingProperty().get()).isTrue();
        robot.interact(() -> {
            scene.getRoot().applyCss();
            scene.getRoot().layout();
        });
        WaitForAsyncUtils.waitForFxEvents();
        robot.interact(() ->
                seen[1] = wholeInView((TableView<?>) scene.lookup("#journal-table"), "#journal-table-row-" + now));
        assertThat(seen[1]).as("Follow newest shows the newest row whole").isTrue();

        if (screenshots) {
            robot.interact(() -> {
                vm.themeProperty().set(ConsoleTheme.LIGHT);
                stage.setWidth(1440);
                stage.setHeight(900);
                vm.pageProperty().set(Page.REJECTIONS);
                vm.rejections().selectedProperty().set(vm.rejections().rows().get(0));
            });
            WaitForAsyncUtils.waitForFxEvents();
            WritableImage[] shot = new WritableImage[1];
            robot.interact(() -> shot[0] = scene.snapshot(null));
            ScreenshotTest.write(shot[0], dir.resolve("rejections-incident-1440x900-light.png"));
        }
        robot.interact(
                () -> { // the primary stage outlives this class: give the next test class its size back
                    vm.themeProperty().set(ConsoleTheme.LIGHT);
                    stage.setWidth(1320);
                    stage.setHeight(820);
                });
    }

    /** How much of the table's viewport no row covers (rows are stacked: the viewport minus the rows in it). */
    private static double emptyInView(TableView<?> table) {
        Node viewport = table.lookup(".clipped-container");
        Bounds view = viewport.localToScene(viewport.getLayoutBounds());
        double covered = 0;
        for (Node r : table.lookupAll(".table-row-cell")) {
            if (r instanceof javafx.scene.control.TableRow<?> row && row.isVisible() && row.getItem() != null) {
                Bounds b = row.localToScene(row.getLayoutBounds());
                covered += Math.max(0, Math.min(b.getMaxY(), view.getMaxY()) - Math.max(b.getMinY(), view.getMinY()));
            }
        }
        return view.getHeight() - covered;
    }

    /**
     * Whether a row with {@code id} is drawn whole inside the table's viewport (the flow keeps an invisible cell to
     * measure rows with, which may carry the same item: only visible rows count).
     */
    private static boolean wholeInView(TableView<?> table, String id) {
        Node viewport = table.lookup(".clipped-container");
        if (viewport == null) {
            return false;
        }
        Bounds view = viewport.localToScene(viewport.getLayoutBounds());
        for (Node row : table.lookupAll(id)) {
            Bounds b = row.localToScene(row.getLayoutBounds()); // its box: a border may overhang it by a pixel
            if (row.isVisible() && b.getMinY() >= view.getMinY() - 0.5 && b.getMaxY() <= view.getMaxY() + 0.5) {
                return true;
            }
        }
        return false;
    }
}
