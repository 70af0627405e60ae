package dev.sovereign.console.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.Scenario;
import dev.sovereign.engine.admin.JournalEntry;
import javafx.scene.Scene;
import javafx.scene.input.KeyCode;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** Issue 17, item 7 (a first part): a refusal links to its assignment and process; Back and Forward return. */
@ExtendWith(ApplicationExtension.class)
class LinksAndBackTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;
    private Scenario scenario;

    @Start
    void start(Stage stage) {
        scenario = Scenario.build(fx);
        vm = fx.shell();
        MainWindow window = new MainWindow(vm, () -> {});
        Scene scene = new Scene(window.create(), 1320, 820);
        window.install(scene);
        stage.setScene(scene);
        stage.show();
        vm.attach(fx.file());
    }

    @Test
    void aRefusalLinksToItsAssignmentAndProcessAndBackAndForwardReturn(FxRobot robot) {
        // the late write is one incident (decision 0320): its row links to the run its terminal write was about
        JournalEntry late = vm.rejections().rows().stream()
                .filter(e -> vm.rejections().incident(e).parts().stream()
                        .anyMatch(p -> "assignment".equals(p.resourceType())))
                .findFirst()
                .orElseThrow();
        String run = vm.rejections().incident(late).parts().stream()
                .filter(p -> "assignment".equals(p.resourceType()))
                .findFirst()
                .orElseThrow()
                .resourceId();
        robot.interact(() -> {
            vm.pageProperty().set(Page.REJECTIONS);
            vm.runs().stateFilterProperty().set("COMPLETED"); // the link must show the run anyway
            vm.rejections().selectedProperty().set(late);
        });
        WaitForAsyncUtils.waitForFxEvents();

        robot.clickOn("#rejection-link-resource");

        assertThat(vm.pageProperty().get()).isEqualTo(Page.RUNS);
        assertThat(vm.runs().selectedProperty().get().id())
                .isEqualTo(scenario.lostRun.id())
                .isEqualTo(run);

        robot.press(KeyCode.ALT, KeyCode.LEFT).release(KeyCode.LEFT, KeyCode.ALT);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(vm.pageProperty().get()).isEqualTo(Page.REJECTIONS);
        robot.press(KeyCode.ALT, KeyCode.RIGHT).release(KeyCode.RIGHT, KeyCode.ALT);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(vm.pageProperty().get()).isEqualTo(Page.RUNS);

        robot.interact(() -> vm.pageProperty().set(Page.REJECTIONS));
        WaitForAsyncUtils.waitForFxEvents();
        robot.clickOn("#rejection-link-process");
        assertThat(vm.pageProperty().get()).as("the process's own page").isEqualTo(Page.PROCESS);
        assertThat(vm.processPage().identity()).isEqualTo(late.process().identity());

        robot.interact(vm.navigation()::back);
        assertThat(vm.pageProperty().get()).isEqualTo(Page.REJECTIONS);
        assertThat(vm.search().queryProperty().get())
                .as("the search as it was on that page")
                .isEmpty();
    }
}
