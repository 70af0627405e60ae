package dev.sovereign.console.feature;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.actions.DesktopOpener;
import dev.sovereign.console.feature.runs.RunsView;
import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.console.testing.Scenario;
import dev.sovereign.console.testing.ViewHarness;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Issue 31, item 20 (first half): a run's page shows its receipt file as written and its output folder's entries,
 * and opens either with the desktop; without a desktop, or when the run's files are on another host, the buttons
 * are off and one line says why. On a real ledger with real receipt files.
 */
@ExtendWith(ApplicationExtension.class)
class RunFilesTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel vm;
    private Scenario scenario;
    private final List<Path> opened = new ArrayList<>();

    @Start
    void start(Stage stage) {
        scenario = Scenario.build(fx);
        vm = fx.attachedShell();
        ViewHarness.show(stage, new RunsView(vm.runs(), vm.formats()).create());
    }

    /** Records what it was asked to open: no file manager starts in a test. */
    private DesktopOpener recording() {
        return new DesktopOpener() {
            @Override
            public String whyNot() {
                return null;
            }

            @Override
            public void open(Path target) {
                opened.add(target);
            }
        };
    }

    private void select(FxRobot robot, String id) {
        robot.interact(() -> vm.runs().select(id));
        WaitForAsyncUtils.waitForFxEvents();
    }

    private String text(FxRobot robot, String id) {
        return robot.lookup(id).queryAs(Label.class).getText();
    }

    @Test
    void aCompletedRunShowsItsReceiptFileAndOutputFolderAndOpensEachWithTheDesktop(FxRobot robot) {
        robot.interact(() -> vm.runs().files().openerProperty().set(recording()));
        String done = scenario.completedRun.id();
        select(robot, done);

        var receipt = vm.runs().selectedProperty().get().receipt();
        Path file = receipt.receiptFile();
        assertThat(file).exists().hasFileName(receipt.attemptId() + ".receipt.json");
        assertThat(robot.lookup("#run-files").query().isVisible()).isTrue();
        assertThat(text(robot, "#run-receipt-path")).isEqualTo(file.toString());
        assertThat(text(robot, "#run-receipt-text"))
                .contains("\"status\": \"completed\"")
                .contains("\"attempt\": \"" + receipt.attemptId() + "\"")
                .contains("\"output_dir\": \"" + receipt.outputDir() + "\"");
        assertThat(text(robot, "#run-output-path"))
                .isEqualTo(receipt.outputDir().toString());
        assertThat(receipt.outputDir()).isDirectory();
        assertThat(text(robot, "#run-output-entries")).isNotEmpty();
        assertThat(robot.lookup("#run-files-why").query().isVisible()).isFalse();

        robot.clickOn("#run-open-receipt");
        robot.clickOn("#run-open-output");
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(opened).containsExactly(file, receipt.outputDir());
    }

    @Test
    void withoutADesktopTheButtonsAreOffAndOneLineSaysWhy(FxRobot robot) throws Exception {
        String done = scenario.completedRun.id();
        DesktopOpener headless = DesktopOpener.of("Linux", Map.of("DISPLAY", ":0"), "Monocle");
        DesktopOpener noDisplay = DesktopOpener.of("Linux", Map.of("PATH", "/usr/bin"), null);
        Path emptyBin = Files.createDirectories(fx.dir().resolve("bin"));
        DesktopOpener noOpener = DesktopOpener.of("Linux", Map.of("DISPLAY", ":0", "PATH", emptyBin.toString()), null);
        assertThat(headless.whyNot()).contains("without a desktop");
        assertThat(noDisplay.whyNot()).contains("no display");
        assertThat(noOpener.whyNot()).contains("xdg-open");
        for (DesktopOpener none : List.of(headless, noDisplay, noOpener)) {
            robot.interact(() -> vm.runs().files().openerProperty().set(none));
            select(robot, done);
            assertThat(robot.lookup("#run-open-receipt").queryAs(Button.class).isDisabled())
                    .isTrue();
            assertThat(robot.lookup("#run-open-output").queryAs(Button.class).isDisabled())
                    .isTrue();
            assertThat(text(robot, "#run-files-why")).isEqualTo(none.whyNot());
            // what the disk holds is shown all the same
            assertThat(text(robot, "#run-receipt-text")).contains("\"status\": \"completed\"");
        }
        // a real opener on a machine with a display and xdg-open can open
        Path bin = Files.createDirectories(fx.dir().resolve("with-opener"));
        Path xdg = Files.writeString(bin.resolve("xdg-open"), "#!/bin/sh\n");
        xdg.toFile().setExecutable(true);
        assertThat(DesktopOpener.of("Linux", Map.of("DISPLAY", ":0", "PATH", bin.toString()), "gtk")
                        .whyNot())
                .isNull();
    }

    @Test
    void filesOfAnAttemptThatRanOnAnotherHostAreNotLookedForHere(FxRobot robot) {
        robot.interact(() -> {
            vm.runs().files().openerProperty().set(recording());
            vm.runs().files().thisHostForTests("console-host");
        });
        String done = scenario.completedRun.id();
        select(robot, done);

        String why = text(robot, "#run-files-why");
        assertThat(why)
                .startsWith("Its files are on ")
                .contains("where worker 7103")
                .endsWith("this console runs on console-host.");
        assertThat(robot.lookup("#run-open-receipt").queryAs(Button.class).isDisabled())
                .isTrue();
        assertThat(robot.lookup("#run-open-output").queryAs(Button.class).isDisabled())
                .isTrue();
        assertThat(robot.lookup("#run-receipt-text").query().isVisible()).isFalse();
    }

    @Test
    void aRunWithoutAReceiptShowsNoFiles(FxRobot robot) {
        select(robot, scenario.runningRun.id());
        assertThat(robot.lookup("#run-files").query().isVisible()).isFalse();
        select(robot, scenario.waitingRun.id());
        assertThat(robot.lookup("#run-files").query().isVisible()).isFalse();
    }
}
