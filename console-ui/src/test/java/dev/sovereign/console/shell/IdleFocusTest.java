package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.Scenario;
import java.util.List;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
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
 * Issue 17, item 15: an idle console runs no pulse it does not need. The empty search box never keeps the
 * keyboard (its blinking caret ran the scene's pulse 60 times a second on every page), a page shown gives it to
 * its table, a search being typed keeps it.
 */
@ExtendWith(ApplicationExtension.class)
class IdleFocusTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;
    private Scene scene;

    @Start
    void start(Stage stage) {
        Scenario.build(fx);
        vm = fx.shell();
        MainWindow window = new MainWindow(vm, () -> {}, url -> {});
        scene = new Scene(window.create(), 1320, 820);
        window.install(scene);
        stage.setScene(scene);
        stage.show();
        vm.attach(fx.file());
    }

    @Test
    void theEmptySearchBoxNeverKeepsTheKeyboardAndEveryPageGivesItToItsTable(FxRobot robot) {
        WaitForAsyncUtils.waitForFxEvents();
        for (Page page : List.of(Page.LEASES, Page.RUNS, Page.PROCESSES, Page.REJECTIONS, Page.MAILBOX, Page.LEASES)) {
            robot.interact(() -> vm.pageProperty().set(page));
            WaitForAsyncUtils.waitForFxEvents();
            Node owner = scene.getFocusOwner();
            assertThat(owner).as("focus on %s", page).isInstanceOf(TableView.class);
            assertThat(owner.getScene()).isSameAs(scene);
        }

        robot.press(KeyCode.CONTROL, KeyCode.F).release(KeyCode.F, KeyCode.CONTROL);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(scene.getFocusOwner())
                .as("Ctrl+F still finds the search box")
                .isInstanceOf(TextField.class);
        robot.write("actor");
        robot.interact(() -> vm.pageProperty().set(Page.RUNS));
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(scene.getFocusOwner())
                .as("a search being typed keeps the keyboard")
                .isInstanceOf(TextField.class);
    }
}
