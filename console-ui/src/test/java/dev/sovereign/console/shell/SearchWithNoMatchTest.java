package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.engine.Engine;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.TableView;
import javafx.scene.paint.Color;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Issue 31, item 6: a search with no match says so on Runs (not "No assignments yet. Create one…"), and the
 * navigation's counts during a search are hits, not red alarm badges.
 */
@ExtendWith(ApplicationExtension.class)
class SearchWithNoMatchTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;

    @Start
    void start(Stage stage) {
        Engine e = fx.engine("worker 7401");
        e.actors().add("operator");
        for (int i = 0; i < 3; i++) {
            e.runs().assign("operator", "command:./nightly-" + i + ".sh");
        }
        vm = fx.shell();
        MainWindow window = new MainWindow(vm, () -> {});
        Scene scene = new Scene(window.create(), 1320, 820);
        window.install(scene);
        stage.setScene(scene);
        stage.show();
        vm.attach(fx.file());
        vm.pageProperty().set(Page.RUNS);
    }

    @Test
    void anEmptySearchSaysSoAndItsCountsAreNotAlarms(FxRobot robot) {
        robot.interact(() -> vm.search().queryProperty().set("zz-nothing-matches"));
        WaitForAsyncUtils.waitForFxEvents();

        assertThat(vm.runs().assignments()).isEmpty();
        Label empty = (Label)
                robot.lookup("#assignments-table").queryAs(TableView.class).getPlaceholder();
        assertThat(empty.getText())
                .as("the empty table's text")
                .startsWith("No assignment matches the search 'zz-nothing-matches' (of 3).")
                .doesNotContain("No assignments yet");

        Label count = robot.lookup("#nav-count-runs").queryAs(Label.class);
        assertThat(count.isVisible()).isTrue();
        assertThat(count.getText()).isEqualTo("0");
        Color fill = (Color) count.getBackground().getFills().get(0).getFill();
        assertThat(fill.getRed() - Math.max(fill.getGreen(), fill.getBlue()))
                .as("not a red alarm badge: " + fill)
                .isLessThan(0.2);

        robot.interact(() -> vm.search().queryProperty().set(""));
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(empty.getText())
                .as("no search: all three rows, the text unchanged")
                .isNotEmpty();
        assertThat(vm.runs().assignments()).hasSize(3);
    }
}
