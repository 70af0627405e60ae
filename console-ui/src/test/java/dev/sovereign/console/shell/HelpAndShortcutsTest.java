package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.Scenario;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javafx.scene.Scene;
import javafx.scene.control.MenuBar;
import javafx.scene.input.KeyCode;
import javafx.stage.Stage;
import javafx.stage.Window;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** Issue 17, item 16: the Help menu's shortcut sheet and documents; Shift+F6 says what stops with it. */
@ExtendWith(ApplicationExtension.class)
class HelpAndShortcutsTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;
    private final List<String> opened = new ArrayList<>();

    @Start
    void start(Stage stage) {
        Scenario.build(fx);
        vm = fx.shell();
        MainWindow window = new MainWindow(vm, () -> {}, opened::add);
        Scene scene = new Scene(window.create(), 1320, 820);
        window.install(scene);
        stage.setScene(scene);
        stage.show();
        vm.attach(fx.file());
    }

    @Test
    void theShortcutSheetListsEveryMenuShortcutAndOpensWithCtrlSlash(FxRobot robot) {
        List<String[]> rows = ShortcutSheet.rows(robot.lookup("#menu-bar").queryAs(MenuBar.class));
        List<String> says = rows.stream().map(r -> r[0] + " = " + r[1]).toList();
        assertThat(says)
                .contains(
                        "Ctrl+F = View \u2192 Find\u2026 (actor, process, id, token)",
                        "Shift+F6 = Actions \u2192 Start / stop this console's supervisor",
                        "F6 = Actions \u2192 Run a supervisor" + " tick now",
                        "Ctrl+1 = View \u2192 Leases",
                        "Ctrl+8 = View \u2192 Lab",
                        "F5 = View \u2192 Refresh now",
                        "Ctrl+/ = Help \u2192 Keyboard shortcuts",
                        "F1 = Help \u2192 About Sovereign",
                        "Space or \u2192 = Lab \u2192 Next step (step by step, slow motion)",
                        "P = Lab \u2192 Presenter mode on or off");

        robot.press(KeyCode.CONTROL, KeyCode.SLASH).release(KeyCode.SLASH, KeyCode.CONTROL);
        WaitForAsyncUtils.waitForFxEvents();

        Window sheet = robot.listWindows().stream()
                .filter(w -> w instanceof Stage s
                        && s.getTitle() != null
                        && s.getTitle().startsWith("Keyboard shortcuts"))
                .findFirst()
                .orElseThrow();
        assertThat(robot.from(sheet.getScene().getRoot())
                        .lookup("#shortcut-sheet .label")
                        .queryAll())
                .hasSize(rows.size() * 2);
        robot.interact(sheet::hide);
    }

    @Test
    void theDocumentsOfThisCheckoutOpenFromTheHelpMenu(FxRobot robot) {
        robot.clickOn("#menu-help");
        robot.clickOn("#menu-doc-console");
        WaitForAsyncUtils.waitForFxEvents();

        assertThat(opened).singleElement().asString().startsWith("file:").endsWith("/docs/console.md");
    }

    @Test
    void stoppingAutoTickFromAnyPageWarnsOnceThatRecoveriesStop(FxRobot robot) throws Exception {
        robot.interact(() -> vm.pageProperty().set(Page.LEASES));
        robot.press(KeyCode.SHIFT, KeyCode.F6).release(KeyCode.F6, KeyCode.SHIFT);
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> vm.supervisor().isAutoTicking());
        assertThat(vm.bannerProperty().get()).isNull();

        robot.press(KeyCode.SHIFT, KeyCode.F6).release(KeyCode.F6, KeyCode.SHIFT);
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> !vm.supervisor().isAutoTicking());
        WaitForAsyncUtils.waitForFxEvents();

        assertThat(vm.bannerProperty().get()).isEqualTo(Banner.autoTickOff());
        assertThat(robot.lookup("#banner").tryQuery()).isPresent();
        assertThat(vm.bannerProperty().get().text()).contains("nothing recovers the runs of dead workers");
        // the Supervisor page says it once: its line says what is, the action's result only that it stopped
        assertThat(vm.supervisor().status().message()).isEqualTo("Stopped this console's supervisor.");
        assertThat(vm.supervisor().ownSupervisorProperty().get())
                .isNotEqualTo(vm.supervisor().status().message());

        robot.press(KeyCode.SHIFT, KeyCode.F6).release(KeyCode.F6, KeyCode.SHIFT);
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> vm.supervisor().isAutoTicking());
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(vm.bannerProperty().get())
                .as("the warning goes when auto-tick is back")
                .isNull();

        robot.interact(vm::detach);
        assertThat(vm.bannerProperty().get())
                .as("letting the database go is not an operator stopping it")
                .isNull();
        assertThat(robot.lookup("#welcome").tryQuery()).isPresent();
    }
}
